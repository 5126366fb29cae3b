"""Which bash prefix "allow for this session" may offer: never one that would let anything run.

A prefix rule allows every command that starts with it. `uv run` allows `uv run python -c …`,
`pip install` allows installing (and so running) any package, `bash -c` allows anything at all.
So a suggestion never ends at a runner, interpreter or installer: a runner is followed by what it
runs (`uv run pytest`), and commands whose next words are themselves arbitrary code or packages
get no prefix at all, only "this exact command". The lists live here, in one place, and
tests/test_trust_prefixes.py checks every entry. The user can still type a wider prefix.
"""

from __future__ import annotations

import re

# What may not follow a prefix: defined with the rule type that matches prefixes.
from agent_tui.policy.permission_rules import SHELL_META as SHELL_META

RUNNERS: tuple[str, ...] = (
    "uv run",
    "uv tool run",
    "uvx",
    "poetry run",
    "pipx run",
    "pdm run",
    "hatch run",
    "rye run",
    "conda run",
    "pixi run",
    "npx",
    "bunx",
    "npm exec",
    "npm run",
    "npm run-script",
    "pnpm exec",
    "pnpm dlx",
    "pnpm run",
    "yarn dlx",
    "yarn exec",
    "yarn run",
    "bundle exec",
    "cargo run",
    "dotnet run",
    "nix run",
)
"""Run the next word as a command or script: the prefix must name what they run."""

NEVER: tuple[str, ...] = (
    # shells and anything that runs its arguments as a command line
    "bash",
    "sh",
    "zsh",
    "fish",
    "dash",
    "ksh",
    "env",
    "xargs",
    "eval",
    "exec",
    "source",
    ".",
    "command",
    "builtin",
    "nohup",
    "timeout",
    "time",
    "nice",
    "watch",
    "sudo",
    "su",
    "doas",
    "ssh",
    "nix-shell",
    "strace",
    # interpreters (`python -m MODULE` is handled below)
    "python",
    "python3",
    "node",
    "ruby",
    "perl",
    "php",
    "deno",
    "bun",
    "lua",
    "Rscript",
    "osascript",
    # containers: the next words are an image and then anything
    "docker run",
    "docker exec",
    "docker compose run",
    "docker compose exec",
    "podman run",
    "podman exec",
    "kubectl exec",
    "kubectl run",
    # installers: a package runs its own code when installed
    "pip install",
    "pip3 install",
    "uv pip install",
    "uv add",
    "uv tool install",
    "pipx install",
    "poetry add",
    "pdm add",
    "npm install",
    "npm i",
    "npm ci",
    "pnpm add",
    "pnpm install",
    "yarn add",
    "yarn install",
    "bun add",
    "bun install",
    "gem install",
    "cargo install",
    "go install",
    "go get",
    "go run",
    "apt install",
    "apt-get install",
    "brew install",
    # build drivers whose variables and targets can run anything (`make SHELL=…`)
    "make",
    "just",
    # destructive by themselves
    "rm",
    "dd",
    "find",
    "git -c",
    "git config",
)
"""Commands a prefix may never cover: only the exact command is offered."""

SUBCOMMAND_TOOLS = frozenset(
    {
        "git",
        "npm",
        "pnpm",
        "yarn",
        "cargo",
        "go",
        "docker",
        "kubectl",
        "uv",
        "poetry",
        "pip",
        "pip3",
        "dotnet",
        "gradle",
        "mvn",
        "bundle",
        "rake",
        "hatch",
        "tox",
        "nox",
        "podman",
        "pdm",
    }
)
"""Launchers whose first word alone means nothing: their prefix is the first two words."""

INTERPRETERS = frozenset({"python", "python3", "node", "ruby", "perl", "php", "deno", "bun"})


def _starts_with(words: list[str], entry: str) -> bool:
    head = entry.split(" ")
    return words[: len(head)] == head


def _never(words: list[str]) -> bool:
    return any(_starts_with(words, entry) for entry in NEVER)


def _runner(words: list[str]) -> int:
    """How many words of `words` are a runner (0: none)."""
    return max((len(e.split(" ")) for e in RUNNERS if _starts_with(words, e)), default=0)


def _suggest(words: list[str]) -> list[str] | None:
    if not words:
        return None
    first = words[0]
    if "=" in first or first.startswith("-"):
        return None  # `FOO=1 cmd`, an option where a command should be
    if first in INTERPRETERS and len(words) >= 3 and words[1] == "-m":
        rest = _suggest(words[2:])  # python -m pytest; never python -m pip install
        return None if rest is None else words[:2] + rest
    if _never(words):
        return None
    taken = _runner(words)
    if taken:
        rest = _suggest(words[taken:])  # uv run pytest, never uv run python
        return None if rest is None else words[:taken] + rest
    if first in SUBCOMMAND_TOOLS:
        # `git status`; but not bare `git` or `git -c …`, which reach arbitrary commands.
        if len(words) >= 2 and not words[1].startswith("-"):
            return words[:2]
        return None
    return [first]


def suggest_prefix(command: str) -> str | None:
    """The prefix to offer for "allow for this session": `git status`, `pytest`, `uv run pytest`.

    None (only the exact command) when the command chains or redirects, or when any prefix of it
    would allow arbitrary commands (`bash -c`, `sudo`, `python -c`, `pip install`, `docker run`).
    """
    command = re.sub(r"[ \t]+", " ", command.strip())
    if not command or SHELL_META.search(command):
        return None
    words = _suggest(command.split(" "))
    return " ".join(words) if words else None
