"""Folder trust: what a project's own `.agent-tui.toml` may change before the user trusts it.

A cloned repository is a stranger's input. Until the user trusts its folder, only harmless keys of
its `.agent-tui.toml` apply (thresholds, ratios, output sizes, theme); keys that run code, send
data elsewhere or widen permissions (`[tools] allow`, `[mcp]`, `[model] name / api_base /
api_key_env`, `[compaction] model`, `[store] db`, …) are ignored and named in one notice. The
list of harmless keys is an allow-list, so a key added later is untrusted until someone decides
otherwise. A few keys (`USER_ONLY`) are never taken from a project file, trusted or not.

Trust lives in the user's config dir (`trusted.json`), keyed by the folder's real path, with a
hash of the project file's bytes: when the file changes, the folder must be trusted again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agent_tui.policy import extension_files, project_layout
from agent_tui.policy.claude_permissions import allow_digest
from agent_tui.runtime import paths

log = logging.getLogger(__name__)

HARMLESS: frozenset[str] = frozenset(
    {
        "model.context_window",
        "model.max_output_tokens",
        "agent.*",
        "compaction.enabled",
        "compaction.auto",
        "compaction.target_ratio",
        "compaction.retain_last_turns",
        "compaction.summary_directives",
        "compaction.retain_directives",
        "compaction.protected_ratio",
        "compaction.tool_clearing",
        "compaction.pruning",
        "compaction.summarization",
        "compaction.truncation",
        "compaction.keep_user_messages_tokens",
        "tool_output.*",
        "tools.bash_timeout",
        "ui.*",
        "loop.*",
        "mcp.startup_timeout",
        # config.py drops a project's sandbox keys that would loosen the user's sandbox, trusted
        # or not; what is left can only tighten it.
        "sandbox.*",
    }
)
"""Keys a project file may set in any folder: `section.key`, or `section.*` for a whole section."""

USER_ONLY: frozenset[str] = frozenset({"store.recall_scope", "mcp.trust_annotations"})
"""Keys only the user's own config (or a flag) may set: a project file's value is always ignored."""

TrustState = Literal["trusted", "untrusted", "changed"]


def trust_file() -> Path:
    return paths.config_dir() / "trusted.json"


def folder_key(folder: Path) -> str:
    """The folder's real path: a symlinked checkout and its target are one folder."""
    return str(Path(os.path.realpath(folder)))


CODE_FILES = project_layout.CLAUDE_SETTINGS
"""Beside `.agent-tui.toml`, files whose change asks for trust again (they hold hooks); every
file under the commands, skills and agents folders does too (extension_files.py)."""


def _settings_bytes(rel: Path, data: bytes) -> bytes:
    """A `.claude/` settings file as the hash sees it: without `permissions`, whose `allow` rules
    are held to the trusted ones apart (claude_permissions.py), so Claude Code recording an
    answer there does not withhold the file's hooks."""
    if rel not in CODE_FILES:
        return data
    try:
        parsed = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return data
    if not isinstance(parsed, dict) or "permissions" not in parsed:
        return data
    parsed.pop("permissions")
    return b"json-without-permissions\0" + json.dumps(parsed, sort_keys=True).encode()


def content_hash(folder: Path, *, whole_settings: bool = False) -> str:
    """sha256 of the folder's `.agent-tui.toml` (`absent` when there is none), mixed with its
    `.agent-tui.local.toml`, `.claude/` settings and its commands, skills and agents when it has
    them (a project layer, hooks that run code, prompts and scripts). A folder with none of those
    keeps the hash it was trusted with before. `whole_settings`: the hash as it was before
    `permissions` was left out, so a folder trusted then stays trusted."""

    try:
        digest = hashlib.sha256(paths.project_config_file(folder).read_bytes()).hexdigest()
    except OSError:
        digest = "absent"
    extra = hashlib.sha256()
    found = False
    for rel in (Path(paths.LOCAL_CONFIG_NAME), *CODE_FILES):
        try:
            data = (folder / rel).read_bytes()
        except OSError:
            continue
        found = True
        data = data if whole_settings else _settings_bytes(rel, data)
        extra.update(str(rel).encode() + b"\0" + hashlib.sha256(data).digest())
    extensions = extension_files.digest(folder)
    if extensions is not None:
        found = True
        extra.update(b"extensions\0" + extensions.encode())
    if not found:
        return digest
    extra.update(digest.encode())
    return extra.hexdigest()


def _read_all() -> dict[str, Any]:
    try:
        raw = json.loads(trust_file().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("cannot read %s (%s); no folder is trusted", trust_file(), exc)
        return {}
    return raw if isinstance(raw, dict) else {}


def _read() -> dict[str, dict[str, Any]]:
    folders = _read_all().get("folders")
    return {k: v for k, v in folders.items() if isinstance(v, dict)} if isinstance(folders, dict) else {}


def _write(
    folders: Mapping[str, Mapping[str, Any]] | None = None, rules: Mapping[str, list[str]] | None = None
) -> None:
    """Replace the folders or the remembered rules (None keeps what the file holds)."""
    raw = _read_all()
    if folders is not None:
        raw["folders"] = dict(folders)
    if rules is not None:
        raw["rules"] = {k: v for k, v in rules.items() if v}
    path = trust_file()
    paths.ensure_private_dir(path.parent)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(raw, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def state(folder: Path) -> TrustState:
    """trusted; untrusted (never trusted); changed (trusted, but its project file changed since)."""
    entry = _read().get(folder_key(folder))
    if entry is None:
        return "untrusted"
    held = entry.get("sha256")
    same = held == content_hash(folder) or held == content_hash(folder, whole_settings=True)
    return "trusted" if same else "changed"


def trusted_allow(folder: Path) -> str | None:
    """The digest of the `.claude/` allow rules the folder was trusted with (None: not recorded)."""
    entry = _read().get(folder_key(folder))
    found = entry.get("claude_allow") if entry is not None else None
    return found if isinstance(found, str) else None


class StateOnce:
    """A folder's trust state, worked out at most once. One config load asks it for each project
    layer and for the sub-agent definitions, and each answer hashes every file of the project's
    commands, skills and agents (~240 ms with a vendored skill). Made per load, so an edit before
    the next load (or a `trust add` between them) is seen."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._state: TrustState | None = None

    def __call__(self) -> TrustState:
        if self._state is None:
            self._state = state(self.folder)
        return self._state


def is_trusted(folder: Path) -> bool:
    return state(folder) == "trusted"


def add(folder: Path, *, keep_claude_allow: bool = False) -> str:
    """Trust `folder` with its project file as it is now; returns the key stored.
    `keep_claude_allow`: the `.claude/` allow rules stay as trusted before (our own edit of the
    project file must not trust rules the user has not looked at)."""
    folders = _read()
    key = folder_key(folder)

    held = folders.get(key, {}).get("claude_allow") if keep_claude_allow else None
    folders[key] = {
        "sha256": content_hash(folder),
        "claude_allow": held or allow_digest(folder),
        "added": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    _write(folders)
    return key


def remove(folder: Path | str) -> bool:
    """Stop trusting `folder`; False when it was not trusted."""
    folders = _read()
    for key in {folder_key(Path(folder)), str(folder)}:
        if key in folders:
            del folders[key]
            _write(folders)
            return True
    return False


def listing() -> list[tuple[str, TrustState]]:
    """Every trusted folder with its current state (`changed` when its file changed since)."""
    return [(key, state(Path(key)) if Path(key).is_dir() else "changed") for key in sorted(_read())]


def keep_after_own_edit(folder: Path, before_hash: str) -> None:
    """After agent-tui itself wrote the user's "always allow" answer into the local file, a folder
    trusted with the content the write replaced stays trusted. Nothing else changes: an untrusted
    folder stays untrusted whatever its files hold (a rule is remembered apart, `own_rules`), so a
    harmless answer never lets the repository's hooks, commands or skills in."""
    entry = _read().get(folder_key(folder))
    if entry is not None and entry.get("sha256") == before_hash:
        add(folder, keep_claude_allow=True)  # our edit never trusts .claude/ allow rules unseen


def _rules() -> dict[str, list[str]]:
    held = _read_all().get("rules")
    if not isinstance(held, dict):
        return {}
    return {k: [r for r in v if isinstance(r, str)] for k, v in held.items() if isinstance(v, list)}


def own_rules(folder: Path) -> frozenset[str]:
    """The allow rules the user gave in `folder` by answering "Always": they apply from the local
    file even while the folder is untrusted, because the user, not the repository, wrote them."""
    return frozenset(_rules().get(folder_key(folder), ()))


def remember_rule(folder: Path, rule: str, *, keep: bool = True) -> None:
    """Record (or, `keep=False`, forget) a rule the user answered in `folder`."""
    rules = _rules()
    held = [r for r in rules.get(folder_key(folder), []) if r != rule]
    rules[folder_key(folder)] = [*held, rule] if keep else held
    _write(rules=rules)


def _matches(patterns: frozenset[str], section: str, key: str) -> bool:
    return f"{section}.{key}" in patterns or f"{section}.*" in patterns


def display(section: str, key: str) -> str:
    """How the notice names a key: `[tools] allow`, `[mcp.servers] web`."""
    return f"[{section}] {key}"


@dataclass(frozen=True)
class Filtered:
    """A project file split by what may apply."""

    kept: dict[str, dict[str, Any]]
    ignored: tuple[str, ...]
    """Keys left out until the folder is trusted (as `display` names them)."""
    user_only: tuple[str, ...]
    """Keys left out because only the user's config may set them."""


def filter_project(data: Mapping[str, Any], trusted: bool) -> Filtered:
    """Split a parsed project file. MCP servers are named one by one, so the notice says which
    commands would have started."""
    kept: dict[str, dict[str, Any]] = {}
    ignored: list[str] = []
    user_only: list[str] = []
    for section, table in data.items():
        if not isinstance(table, Mapping):
            continue
        for key, value in table.items():
            if _matches(USER_ONLY, section, key):
                user_only.append(display(section, key))
            elif trusted or _matches(HARMLESS, section, key):
                kept.setdefault(section, {})[key] = value
            elif section == "mcp" and key == "servers" and isinstance(value, Mapping) and value:
                ignored.extend(
                    f"[mcp.servers.{name}] (runs {_command(spec)})" for name, spec in value.items()
                )
            elif section == "hooks" and isinstance(value, list) and value:
                ignored.extend(f"[[hooks.{key}]] (runs {_command(spec)})" for spec in value)
            else:
                ignored.append(display(section, key))
    return Filtered(kept, tuple(ignored), tuple(user_only))


def _command(spec: Any) -> str:
    if not isinstance(spec, Mapping):
        return "?"
    words = [str(spec.get("command", "?")), *(str(a) for a in spec.get("args", []) or [])]
    text = " ".join(words)
    return text if len(text) <= 60 else text[:59] + "…"


def untrusted_notice(folder: Path, ignored: tuple[str, ...], why: TrustState, source: str = "") -> str:
    """The one line naming every ignored key and how to trust the folder."""
    reason = "changed since you trusted it" if why == "changed" else "is not trusted"
    return (
        f"this folder {reason}: ignored from {source or paths.project_config_file(folder).name}: "
        f"{', '.join(ignored)}. Trust it with `agent-tui trust add` (or `--trust` for one run)."
    )


def is_untrusted_notice(line: str) -> bool:
    """A line `untrusted_notice` wrote."""
    return line.startswith("this folder ") and "agent-tui trust add" in line


def _notice_parts(line: str) -> tuple[str, list[str]]:
    """(`this folder …: ignored from SOURCE`, its items) of an `untrusted_notice` line."""
    head, _, rest = line.partition(": ignored from ")
    source, _, tail = rest.partition(": ")
    items = tail.rsplit(". Trust it with", 1)[0]
    return f"{head}: ignored from {source}", items.split(", ")


def not_now_notice(lines: list[str], room: int = 60) -> str:
    """After *Not now*, the untrusted notices as one short line: the question listed everything
    already, and a toast of ~20 rows covered the meter and the input at 80×24."""
    parts = [_notice_parts(line) for line in lines]
    head, first = parts[0]
    total = sum(len(items) for _, items in parts)
    shown: list[str] = []
    for item in first:
        if shown and len(", ".join([*shown, item])) > room:
            break
        shown.append(item)
    more = f" and {total - len(shown)} more" if total > len(shown) else ""
    return f"{head}: {', '.join(shown)}{more}. Trust it with `agent-tui trust add`."


def user_only_notice(keys: tuple[str, ...], source: str = "") -> str:
    """The one line naming keys a project file may never set; `source`: the file(s) holding them."""
    where = source or paths.CONFIG_NAME
    return f"ignored from {where} (only your own config may set them): {', '.join(keys)}"


KEY_WITHHELD_NOTICE = (
    "[model] api_base comes from .agent-tui.toml: no API key from your environment or config is "
    "sent there (name one with api_key_env in that same file)"
)
