"""Claude Code's `permissions` (`allow` / `ask` / `deny`) from its settings files, as rules.

The user's `~/.claude/settings.json` always applies (it is theirs, like their own config); a
project's `.claude/settings.json` and `.claude/settings.local.json` only in a trusted folder.
The trust hash leaves `permissions` out (trust.py), so an edit there — Claude Code writing an
"always allow" answer — does not withhold the project's hooks; instead the project's `allow`
rules are remembered when the folder is trusted, and an `allow` rule added since waits for the
folder to be trusted again (named in one notice). `ask` and `deny` only narrow what runs, so
they apply as soon as the folder is trusted. Each rule keeps the tier of its file.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agent_tui.policy import project_layout
from agent_tui.policy.permission_rules import AllowRule, Tier
from agent_tui.policy.rule_vocabulary import RuleVocabulary
from agent_tui.runtime import paths

RuleKind = Literal["allow", "ask", "deny"]
KINDS: tuple[RuleKind, ...] = ("allow", "ask", "deny")


def user_settings_file() -> Path:
    """Claude Code's own user settings (`CLAUDE_CONFIG_DIR` moves them, as in Claude Code); under
    AGENT_TUI_HOME when that is set, so tests never read the real home."""
    shared = project_layout.CLAUDE_SETTINGS[0]  # Claude Code keeps the same name at home
    if folder := os.environ.get("CLAUDE_CONFIG_DIR"):
        return Path(folder).expanduser() / shared.name
    if root := os.environ.get(paths.HOME_ENV):
        return Path(root).expanduser() / shared
    return Path.home() / shared


def project_files(workspace: Path) -> list[tuple[Path, Tier]]:
    shared, local = project_layout.CLAUDE_SETTINGS
    return [(workspace / shared, "project"), (workspace / local, "local")]


@dataclass(frozen=True)
class ClaudeRules:
    """The rules of every Claude Code settings file that applies, each `(kind, text, tier)`."""

    rules: tuple[tuple[RuleKind, str, Tier], ...] = ()
    notices: tuple[str, ...] = ()
    withheld: tuple[str, ...] = ()
    """Project rules left out until the folder is trusted (again)."""
    present: bool = False
    """Some settings file has `permissions`: hints suggest rules in Claude Code's syntax."""

    def of(self, kind: RuleKind) -> list[tuple[str, Tier]]:
        return [(text, tier) for k, text, tier in self.rules if k == kind]


def _permissions(path: Path) -> tuple[dict[str, list[str]] | None, str | None]:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"{paths.shown(path)}: permissions not read ({exc})"
    table = data.get("permissions") if isinstance(data, dict) else None
    if table is None:
        return None, None
    if not isinstance(table, dict):
        return None, f"{paths.shown(path)}: `permissions` must be an object; not read"
    found: dict[str, list[str]] = {}
    for kind in KINDS:
        rules = table.get(kind, [])
        if not isinstance(rules, list):
            return None, f"{paths.shown(path)}: permissions.{kind} must be a list of rules; not read"
        found[kind] = [r for r in rules if isinstance(r, str)]
    return found, None


def allow_digest(workspace: Path) -> str:
    """What the project's `allow` rules are now: stored when the folder is trusted."""
    rules = sorted(
        f"{tier}:{rule}"
        for path, tier in project_files(workspace)
        for rule in ((_permissions(path)[0] or {}).get("allow", []))
    )
    return hashlib.sha256(json.dumps(rules).encode()).hexdigest()


def load(
    workspace: Path, *, words: RuleVocabulary, trusted: bool, trusted_allow: str | None = None
) -> ClaudeRules:
    """Every rule that applies in `workspace` (a rule naming no tool in `words` is skipped with a
    notice). `trusted_allow`: the allow digest stored when the folder was trusted (None: not
    recorded, the rules as they are were trusted)."""
    rules: list[tuple[RuleKind, str, Tier]] = []
    notices: list[str] = []
    withheld: list[str] = []
    present = False
    allow_changed = trusted and trusted_allow is not None and trusted_allow != allow_digest(workspace)
    for path, tier in [(user_settings_file(), "user"), *project_files(workspace)]:
        found, problem = _permissions(path)
        if problem:
            notices.append(problem)
        if not found:
            continue
        present = True
        for kind in KINDS:
            for text in found[kind]:
                if (why := AllowRule.problem_any(text, words)) is not None:
                    notices.append(f"{paths.shown(path)}: permissions.{kind} {text!r} skipped: {why}")
                elif tier != "user" and not trusted:
                    withheld.append(f"{paths.shown(path)} {kind} {text}")
                elif tier != "user" and kind == "allow" and allow_changed:
                    withheld.append(f"{paths.shown(path)} allow {text} (added since you trusted it)")
                else:
                    rules.append((kind, text, tier))
    if allow_changed:
        # Rules the folder was trusted with are not told apart from new ones: all wait.
        notices.append(
            "the .claude/ permissions allow rules changed since you trusted this folder: not applied "
            "until you trust it again (`agent-tui trust add`); its hooks and deny/ask rules still apply"
        )
    return ClaudeRules(tuple(rules), tuple(notices), tuple(withheld), present)
