"""Custom slash commands: Markdown files that become `/NAME` (sub-folders give `/folder:name`).

Read from `frontends/cli/` in the user config dir always, and — in a trusted folder — from
`.claude/commands/` and `.agent-tui/commands/` (a later folder's command wins over an earlier
one of the same name). Front matter: `description`, `argument-hint`, `model`, `allowed-tools`.
The body is the prompt: `$ARGUMENTS` and `$1`…`$9` are replaced, `` !`command` `` is replaced by
the command's output, and `@path` mentions attach files as in any prompt.
"""

from __future__ import annotations

import logging
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.base import frontmatter
from agent_tui.context.safe_read import read_confined
from agent_tui.policy import project_layout
from agent_tui.policy.extension_files import walk
from agent_tui.policy.permission_rules import bash_prefix_matches, normalize_command
from agent_tui.runtime import paths

log = logging.getLogger(__name__)

MAX_COMMAND_BYTES = 64 * 1024
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_TOOL_RULE = re.compile(r"\s*([A-Za-z_][\w-]*)\s*(?:\(([^)]*)\))?\s*")


@dataclass(frozen=True)
class CustomCommand:
    name: str
    """Without the slash: `review`, `frontend:test`."""
    path: Path
    description: str
    argument_hint: str
    model: str | None
    allowed_tools: tuple[str, ...]
    """`Bash(git diff:*)`, `Bash(git status)`, `Bash`: inline commands these cover run without
    the approval question (still in the sandbox)."""
    body: str

    @property
    def source(self) -> str:
        return paths.shown(self.path)

    def grants(self, command: str) -> bool:
        """Does `allowed-tools` cover running `command` with bash?"""
        for rule in self.allowed_tools:
            match = _TOOL_RULE.fullmatch(rule)
            if match is None or match.group(1).lower() not in ("bash", "bash_tool"):
                continue
            spec = match.group(2)
            if spec is None or spec.strip() in ("", "*"):
                return True
            spec = spec.strip()
            # The same matching as an allow rule: a prefix never covers what a command chains,
            # pipes, substitutes or redirects after it (`echo ok; touch PWNED`).
            if spec.endswith(":*"):
                if bash_prefix_matches(spec[:-2].strip(), command):
                    return True
            elif normalize_command(command) == normalize_command(spec):
                return True
        return False


@dataclass(frozen=True)
class Catalog:
    """The custom commands of one workspace, by lower-cased name."""

    commands: dict[str, CustomCommand] = field(default_factory=dict)
    notices: tuple[str, ...] = ()

    def get(self, name: str) -> CustomCommand | None:
        return self.commands.get(name.lower())


def command_dirs(workspace: Path, trusted: bool) -> list[Path]:
    dirs = [paths.config_dir() / "commands"]
    if trusted:
        dirs += [workspace / rel for rel in project_layout.extension_dirs("commands")]
    return dirs


def _tools(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(v).strip() for v in value if str(v).strip())
    text = str(value or "")
    # "Bash(git diff:*), Bash(git status:*)": split on commas outside parentheses.
    return tuple(part.strip() for part in re.split(r",(?![^()]*\))", text) if part.strip())


def read_command(path: Path, name: str) -> tuple[CustomCommand | None, list[str]]:

    try:
        raw, _size = read_confined(path, MAX_COMMAND_BYTES)
    except OSError as exc:
        return None, [f"{paths.shown(path)}: cannot read ({exc})"]
    parsed = frontmatter.read(raw.decode("utf-8", "replace"))
    notices = [
        f"{paths.shown(path)}:{line}: {why}; the rest of the file is used" for line, why in parsed.problems
    ]
    meta = parsed.meta
    first = next((ln.lstrip("# ").strip() for ln in parsed.body.splitlines() if ln.strip()), "")
    model = meta.get("model")
    return (
        CustomCommand(
            name=name,
            path=path,
            description=str(meta.get("description") or first)[:120],
            argument_hint=parsed.raw.get("argument-hint", ""),
            model=str(model) if isinstance(model, str) and model else None,
            allowed_tools=_tools(meta.get("allowed-tools")),
            body=parsed.body,
        ),
        notices,
    )


def discover(workspace: Path, trusted: bool) -> Catalog:
    found: dict[str, CustomCommand] = {}
    notices: list[str] = []

    user_dir = paths.config_dir() / "commands"
    for folder in command_dirs(workspace, trusted):
        # The trust hash's own walker: a project's links are followed only inside the project.
        for path in walk(folder, None if folder == user_dir else workspace):
            if path.suffix != ".md":
                continue
            parts = path.relative_to(folder).with_suffix("").parts
            if not all(_NAME.match(p) for p in parts):
                continue
            command, problems = read_command(path, ":".join(parts))
            notices += problems
            if command is not None:
                found[command.name.lower()] = command
    return Catalog(found, tuple(notices))


def withheld(workspace: Path, trusted: bool) -> dict[str, CustomCommand]:
    """The folder's own commands that trust holds back (none when `trusted`): every front end
    names them when typed rather than running a built-in or sending the text as a prompt."""
    if trusted:
        return {}
    offered = discover(workspace, False).commands
    return {n: c for n, c in discover(workspace, True).commands.items() if n not in offered}


def withheld_invoked(text: str, workspace: Path, trusted: bool) -> tuple[str, str] | None:
    """(name, file as shown) when `text` invokes one of the folder's withheld commands."""
    invoked = split_invocation(text)
    command = withheld(workspace, trusted).get(invoked[0].lower()) if invoked else None
    if command is None:
        return None
    path = command.path
    return command.name, str(path.relative_to(workspace) if path.is_relative_to(workspace) else path)


def split_invocation(text: str) -> tuple[str, str] | None:
    """`/name args…` → (name, args); None when `text` is not a slash invocation."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, args = stripped[1:].partition(" ")
    if not name or "/" in name:
        return None
    return name, args.strip()


def _words(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:
        return args.split()


def has_placeholders(body: str) -> bool:
    return "$ARGUMENTS" in body or re.search(r"\$[1-9]", body) is not None


def fill(text: str, args: str, *, shell: bool = False) -> str:
    """`$ARGUMENTS` and `$1`…`$9` replaced; with `shell`, each value quoted as one shell word, so
    the arguments stay data inside an inline command."""
    words = _words(args)
    quote = shlex.quote if shell else str
    text = text.replace("$ARGUMENTS", quote(args))
    return re.sub(
        r"\$([1-9])",
        lambda m: quote(words[int(m.group(1)) - 1]) if int(m.group(1)) <= len(words) else "",
        text,
    )


def substitute(body: str, args: str) -> str:
    """`$ARGUMENTS` and `$1`…`$9`; arguments given to a body without placeholders are appended."""
    text = fill(body, args)
    if args and not has_placeholders(body):
        text = f"{text.rstrip()}\n\nARGUMENTS: {args}"
    return text


INLINE = re.compile(r"!`([^`\n]+)`")
"""`` !`git diff --stat` ``: the command's output goes where it stands."""
