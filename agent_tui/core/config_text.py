"""`/config`'s listing: each setting in TOML's own spelling with the file it came from.

It printed Python values (`None`, `True`, `'quoted'`), listed `hooks.PreToolUse = []` while three
`.claude` hooks ran (hooks are read from every file, not merged into the config), and did not
say where a value came from. `agent-tui config show` says the same things.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import ConfigError, flatten, load_config
from agent_tui.extensions.report import hook_lines
from agent_tui.hooks.sources import load_hooks
from agent_tui.runtime import paths


def toml_value(value: Any) -> str:
    """`value` as it is written in a config file; an unset one as a comment."""
    if value is None:
        return "# not set"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple, frozenset, set)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(str(value))


def config_lines(config: Any, workspace: Path, word: str = "") -> list[str]:
    """`key = value    # origin` for every setting (hooks apart: listed from their files)."""

    trusted = config.provenance.folder_trusted
    try:
        fresh = load_config(rule_words=SHIPPED_WORDS, cwd=workspace, trusted=trusted)
        sources, files = fresh.sources, flatten(fresh.config)
    except ConfigError:
        sources, files = {}, {}
    lines = []
    for key, value in flatten(config).items():
        if key.startswith("hooks.") or (word and word not in key):
            continue
        origin = sources.get(key, "default") if files.get(key) == value else "command line or this session"
        shown = paths.shown(Path(origin)) if origin.startswith("/") else origin
        lines.append(f"{key} = {toml_value(value)}    # {shown}")
    if not word or "hook" in word:
        hooks = hook_lines(load_hooks(workspace, trusted=trusted))
        lines += [f"# hook {line}" for line in hooks] or ["# hooks: none"]
    return lines
