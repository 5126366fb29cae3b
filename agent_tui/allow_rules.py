"""Persistent approval rules in the project's `.agent-tui.toml` (`[tools] allow = [...]`).

"Always allow" in the approval modal and `/permissions` edit the file in place (and keep the
folder trusted, see trust.keep_after_own_edit): only the `allow`
array of the `[tools]` table is rewritten, so the user's comments and other settings survive.
The result is parsed again before it is written; a file we cannot edit safely is left untouched.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from agent_tui import paths
from agent_tui.config import ConfigError, read_toml

_TOOLS_HEADER = re.compile(r"(?m)^\[tools\][ \t]*(?:#.*)?$")
_NEXT_HEADER = re.compile(r"(?m)^\[")
_ALLOW = re.compile(r"(?ms)^allow[ \t]*=[ \t]*\[.*?\][ \t]*(?:#[^\n]*)?$")


def project_rules(cwd: Path | None = None) -> list[str]:
    """The allow rules of the project file (not the user file)."""
    path = paths.project_config_file(cwd)
    if not path.is_file():
        return []
    rules = read_toml(path).get("tools", {}).get("allow", [])
    return [r for r in rules if isinstance(r, str)]


def _with_allow(text: str, rules: list[str]) -> str:
    line = "allow = " + json.dumps(rules, ensure_ascii=False)
    header = _TOOLS_HEADER.search(text)
    if header is None:
        sep = "\n\n" if text.strip() else ""
        return text.rstrip() + sep + f"[tools]\n{line}\n"
    start = header.end()
    following = _NEXT_HEADER.search(text, start + 1)
    end = following.start() if following else len(text)
    body = text[start:end]
    allow = _ALLOW.search(body)
    if allow:
        body = body[: allow.start()] + line + body[allow.end() :]
    else:
        body = "\n" + line + body
    return text[:start] + body + text[end:]


def _write(rules: list[str], cwd: Path | None) -> Path:
    from agent_tui import trust

    path = paths.project_config_file(cwd)
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    before_hash = trust.content_hash(path.parent)
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        before = {"tools": {"unreadable": True}}  # needs trust: never trusted by our edit
    new = _with_allow(text, rules)
    try:
        parsed = tomllib.loads(new)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: could not update [tools] allow safely ({exc}); edit it by hand") from None
    if parsed.get("tools", {}).get("allow") != rules:
        raise ConfigError(f"{path}: could not update [tools] allow safely; edit it by hand")
    path.write_text(new, encoding="utf-8")
    trust.keep_after_own_edit(path.parent, before_hash, before)
    return path


def add_rule(rule: str, cwd: Path | None = None) -> Path:
    """Append `rule` (once) to the project's allow list; returns the file written."""
    rules = project_rules(cwd)
    if rule not in rules:
        rules.append(rule)
    return _write(rules, cwd)


def remove_rule(rule: str, cwd: Path | None = None) -> bool:
    """Drop `rule` from the project's allow list; False when it was not there."""
    rules = project_rules(cwd)
    if rule not in rules:
        return False
    rules.remove(rule)
    _write(rules, cwd)
    return True
