"""Persistent approval rules (`[tools] allow = [...]`): "Always allow" writes them to the
project's git-ignored `.agent-tui.local.toml` (Claude Code's `.claude/settings.local.json`), so
`git status` stays clean; the shared `.agent-tui.toml` is still read, and `/permissions remove`
edits whichever file holds the rule.

Writing a rule never changes what the folder is trusted with: a trusted folder stays trusted
(trust.keep_after_own_edit), an untrusted one stays untrusted and the rule is remembered as the
user's own (trust.remember_rule), so it applies there without the repository's other keys, hooks,
commands or skills. Files are edited in place: only the
`allow` array of the `[tools]` table is rewritten, so the user's comments and other settings
survive. The result is parsed again before it is written; a file we cannot edit safely is left
untouched. The local file is added to the repository's `.git/info/exclude` when git does not
ignore it already.
"""

from __future__ import annotations

import json
import logging
import re
import tomllib
from pathlib import Path

from agent_tui.config import ConfigError, read_toml
from agent_tui.policy import trust
from agent_tui.policy.permission_rules import AllowRule, RuleError
from agent_tui.policy.rule_vocabulary import RuleVocabulary
from agent_tui.runtime import paths

log = logging.getLogger(__name__)

_TOOLS_HEADER = re.compile(r"(?m)^\[tools\][ \t]*(?:#.*)?$")
_NEXT_HEADER = re.compile(r"(?m)^\[")
_ALLOW = re.compile(r"(?ms)^allow[ \t]*=[ \t]*\[.*?\][ \t]*(?:#[^\n]*)?$")


def _rules_in(path: Path) -> list[str]:
    if not path.is_file():
        return []
    rules = read_toml(path).get("tools", {}).get("allow", [])
    return [r for r in rules if isinstance(r, str)]


def saved_rules(cwd: Path | None = None) -> list[tuple[str, Path]]:
    """The project's saved rules with the file each is in (shared file first, then local)."""
    files = (paths.project_config_file(cwd), paths.local_config_file(cwd))
    return [(rule, path) for path in files for rule in _rules_in(path)]


def project_rules(cwd: Path | None = None) -> list[str]:
    """The allow rules of the project's files (not the user file)."""
    return list(dict.fromkeys(rule for rule, _ in saved_rules(cwd)))


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


def _write(rules: list[str], path: Path) -> Path:

    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    before_hash = trust.content_hash(path.parent)
    new = _with_allow(text, rules)
    try:
        parsed = tomllib.loads(new)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: could not update [tools] allow safely ({exc}); edit it by hand") from None
    if parsed.get("tools", {}).get("allow") != rules:
        raise ConfigError(f"{path}: could not update [tools] allow safely; edit it by hand")
    path.write_text(new, encoding="utf-8")
    trust.keep_after_own_edit(path.parent, before_hash)
    return path


def add_rule(rule: str, cwd: Path | None = None) -> Path:
    """Append `rule` (once) to the project's local allow list; returns the file written."""

    path = paths.local_config_file(cwd)
    rules = _rules_in(path)
    if rule not in rules:
        rules.append(rule)
    written = _write(rules, path)
    trust.remember_rule(path.parent, rule)
    _keep_out_of_git(path)
    return written


def remove_rule(rule: str, cwd: Path | None = None, *, words: RuleVocabulary) -> bool:
    """Drop `rule` from whichever project file holds it; False when none did."""

    removed = False
    for path in (paths.project_config_file(cwd), paths.local_config_file(cwd)):
        rules = _rules_in(path)
        kept = [held for held in rules if not _same_rule(held, rule, words)]
        if len(kept) != len(rules):
            _write(kept, path)
            removed = True
            for gone in set(rules) - set(kept):
                trust.remember_rule(path.parent, gone, keep=False)
    return removed


def _same_rule(held: str, wanted: str, words: RuleVocabulary) -> bool:
    """The file's spelling and the listed one name the same rule (spacing aside)."""
    try:
        return AllowRule.parse(held, words) == AllowRule.parse(wanted, words)
    except RuleError:
        return held == wanted


def _keep_out_of_git(path: Path) -> None:
    """Add the local file to the repository's info/exclude unless git ignores it already
    (a folder that is not a repository, or no git: nothing to do)."""
    import subprocess

    folder = path.parent

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=10)

    try:
        if git("check-ignore", "-q", path.name).returncode == 0:
            return
        found = git("rev-parse", "--git-path", "info/exclude")
        if found.returncode != 0:
            return
        exclude = Path(found.stdout.strip())
        exclude = exclude if exclude.is_absolute() else folder / exclude
        exclude.parent.mkdir(parents=True, exist_ok=True)
        text = exclude.read_text(encoding="utf-8") if exclude.is_file() else ""
        line = f"/{path.name}"
        if line not in text.splitlines():
            sep = "" if not text or text.endswith("\n") else "\n"
            exclude.write_text(f"{text}{sep}{line}\n", encoding="utf-8")
    except (OSError, subprocess.SubprocessError):
        log.warning("could not add %s to git's exclude list", path, exc_info=True)
