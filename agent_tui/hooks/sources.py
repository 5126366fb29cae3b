"""Where hooks come from: the user's config, and — in a trusted folder only — the project's
`.agent-tui.toml` and its `.claude/settings.json` / `.claude/settings.local.json`.

Hooks from every source run (Claude Code merges them the same way); the config merge's
later-wins rule would let a project silently replace the user's own hooks, so the files are read
here rather than from the merged `Config`. A malformed entry is one notice naming its file (and
line where the file says), and the rest still load.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.base.toml_files import ConfigError, read_toml
from agent_tui.hooks.spec import DEFAULT_TIMEOUT, EVENTS, HookSpec
from agent_tui.policy import project_layout
from agent_tui.runtime import paths

log = logging.getLogger(__name__)

CLAUDE_SETTINGS = project_layout.CLAUDE_SETTINGS


@dataclass(frozen=True)
class HookSet:
    """Every hook that may run in this workspace, in the order their sources were read."""

    hooks: tuple[HookSpec, ...] = ()
    notices: tuple[str, ...] = ()
    """Malformed files and entries, one line each."""
    withheld: tuple[str, ...] = field(default_factory=tuple)
    """Project hooks left out because the folder is not trusted (`EVENT (runs CMD)`)."""

    def for_event(self, event: str, tool: str | None = None) -> list[HookSpec]:
        return [h for h in self.hooks if h.event == event and h.matches(tool)]

    def __bool__(self) -> bool:
        return bool(self.hooks)


def _line_of(path: Path, needle: str) -> int | None:
    try:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if needle and needle in line:
                return number
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _where(path: Path, needle: str = "") -> str:
    line = _line_of(path, needle) if needle else None
    return f"{paths.shown(path)}:{line}" if line else paths.shown(path)


def _entry(event: str, raw: Any, path: Path, *, claude: bool, matcher: str = "") -> Iterator[HookSpec | str]:
    """One hook table (`command`, `matcher`, `timeout`), or a Claude Code matcher group
    (`matcher` + `hooks: [{type, command, timeout}]`): specs, or notices for what is wrong."""
    if not isinstance(raw, Mapping):
        yield f"{_where(path, event)}: a {event} hook must be a table, got {raw!r:.40}; skipped"
        return
    if isinstance(raw.get("hooks"), list):
        group = str(raw.get("matcher") or "")
        for inner in raw["hooks"]:
            yield from _entry(event, inner, path, claude=claude, matcher=group)
        return
    command = raw.get("command")
    kind = raw.get("type", "command")
    if kind != "command":
        yield f"{_where(path, str(kind))}: {event} hook of type {kind!r} is not supported (only command); skipped"
        return
    if not isinstance(command, str) or not command.strip():
        yield f"{_where(path, event)}: a {event} hook needs a command (a string); skipped"
        return
    pattern = raw.get("matcher", matcher)
    pattern = "" if pattern is None else pattern
    timeout = raw.get("timeout", DEFAULT_TIMEOUT)
    problem = None
    if not isinstance(pattern, str):
        problem = f"matcher must be a string, got {pattern!r}"
    else:
        try:
            re.compile(pattern if pattern != "*" else "")
        except re.error as exc:
            problem = f"matcher {pattern!r} is not a valid regex ({exc})"
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        problem = problem or f"timeout must be a positive number of seconds, got {timeout!r}"
    if problem:
        yield f"{_where(path, command)}: {event} hook {command!r:.40}: {problem}; skipped"
        return
    yield HookSpec(event, command, str(pattern), float(timeout), paths.shown(path), claude)


def parse_hooks(table: Any, path: Path, *, claude: bool) -> tuple[list[HookSpec], list[str]]:
    """The hooks of one file's `hooks` table: `{EVENT: [entry, …]}`."""
    specs: list[HookSpec] = []
    notices: list[str] = []
    if table is None:
        return specs, notices
    if not isinstance(table, Mapping):
        return specs, [f"{_where(path, 'hooks')}: `hooks` must be a table of events; skipped"]
    for event, entries in table.items():
        if event not in EVENTS:
            notices.append(
                f"{_where(path, event)}: unknown hook event {event!r} (known: {', '.join(EVENTS)})"
            )
            continue
        for raw in entries if isinstance(entries, list) else [entries]:
            for item in _entry(event, raw, path, claude=claude):
                (specs if isinstance(item, HookSpec) else notices).append(item)  # type: ignore[arg-type]
    return specs, notices


def _read_toml(path: Path) -> tuple[dict[str, Any] | None, str | None]:

    if not path.is_file():
        return None, None
    try:
        return read_toml(path), None
    except ConfigError as exc:
        return None, f"{exc}; its hooks are not loaded"


def _read_json(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{paths.shown(path)}: hooks not loaded ({exc})"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"{paths.shown(path)}:{exc.lineno}: not valid JSON ({exc.msg}); its hooks are not loaded"
    if not isinstance(data, dict):
        return None, f"{paths.shown(path)}: not a JSON object; its hooks are not loaded"
    return data, None


def project_files(workspace: Path) -> list[tuple[Path, bool]]:
    """The project's hook files, with whether each is in Claude Code's shape."""
    return [(paths.project_config_file(workspace), False), *((workspace / p, True) for p in CLAUDE_SETTINGS)]


def _from_file(path: Path, claude: bool) -> tuple[list[HookSpec], list[str]]:
    data, problem = (_read_json if claude else _read_toml)(path)
    if problem:
        return [], [problem]
    if data is None:
        return [], []
    return parse_hooks(data.get("hooks"), path, claude=claude)


def load_hooks(workspace: Path, *, trusted: bool) -> HookSet:
    """Every hook for `workspace`: the user's always, the project's only when `trusted`."""
    specs: list[HookSpec] = []
    notices: list[str] = []
    withheld: list[str] = []
    user_specs, user_notices = _from_file(paths.user_config_file(), False)
    specs += user_specs
    notices += user_notices
    for path, claude in project_files(workspace):
        found, problems = _from_file(path, claude)
        if trusted:
            specs += found
            notices += problems
        else:
            withheld += [f"{path.name} {h.event} hook (runs {h.one_line})" for h in found]
    return HookSet(tuple(specs), tuple(notices), tuple(withheld))


def withheld_hooks(workspace: Path) -> tuple[str, ...]:
    """The `.claude/` hooks an untrusted folder would run, for the trust notice and dialog
    (`.agent-tui.toml` hooks are named by the config's own trust filter)."""
    out: list[str] = []
    for rel in CLAUDE_SETTINGS:
        found, _ = _from_file(workspace / rel, True)
        out += [f".claude/{rel.name} {h.event} hook (runs {h.one_line})" for h in found]
    return tuple(out)
