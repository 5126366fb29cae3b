"""The layer merge: defaults, user file, project file (trust-aware), local file, environment and
command-line flags, later winning; then the one validation pass.

A project's `.agent-tui.toml` (and its git-ignored `.agent-tui.local.toml`) applies in full only
in a trusted folder, otherwise only its harmless keys (trust.py); it may tighten the sandbox but
never loosen it (config/sandbox_policy.py). Which layer set each value is kept for `config show`,
and which tier each allow rule came from for /permissions.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.agent.definitions import untrusted_items
from agent_tui.base.toml_files import ConfigError, read_toml
from agent_tui.config.checks import config_problems
from agent_tui.config.coerce import apply, build, flatten
from agent_tui.config.sandbox_policy import project_keeps_sandbox
from agent_tui.config.schema import Config, Provenance
from agent_tui.hooks.sources import withheld_hooks
from agent_tui.policy import claude_permissions
from agent_tui.policy import trust as folder_trust
from agent_tui.policy.extension_files import withheld as withheld_extensions
from agent_tui.policy.permission_rules import Tier
from agent_tui.policy.rule_vocabulary import RuleVocabulary
from agent_tui.runtime import paths


@dataclass
class LoadedConfig:
    """The merged config plus where each value came from (for `config show`)."""

    config: Config
    sources: dict[str, str]
    files: list[Path]
    trust: str = "trusted"
    """The project folder's trust state: trusted, untrusted, changed (trust.TrustState)."""
    ignored: tuple[str, ...] = ()
    """Project-file keys left out because the folder is not trusted."""
    notices: list[str] = field(default_factory=list)
    """Lines the user must see at start: what was ignored, where no key is sent."""


def config_files(cwd: Path | None = None) -> list[Path]:
    """The files read, in order (later wins)."""
    return [paths.user_config_file(), paths.project_config_file(cwd), paths.local_config_file(cwd)]


def load_config(
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    trusted: bool | None = None,
    *,
    rule_words: RuleVocabulary,
) -> LoadedConfig:
    """Merge defaults, user file, project file, environment and `overrides` (CLI flags).

    The project file applies in full only in a trusted folder (`trusted=None`: as the trust
    store says; True: `--trust`); otherwise only its harmless keys (trust.py). Permission rules
    are checked in the words the tools declare (`rule_words`: compose/rule_words.py gives agent-tui's)."""

    env = os.environ if env is None else env
    merged: dict[str, dict[str, Any]] = {}
    sources: dict[str, str] = {}
    read: list[Path] = []
    state: folder_trust.TrustState = "trusted"
    ignored: tuple[str, ...] = ()
    notices: list[str] = []
    layer_rules: dict[Tier, list[str]] = {}
    user_file, project_file, local_file = config_files(cwd)
    folder_state = folder_trust.StateOnce(project_file.parent)  # the layers share one folder
    if user_file.is_file():
        apply(merged, sources, read_toml(user_file), str(user_file))
        read.append(user_file)
    user_only: tuple[str, ...] = ()
    ignored_in: list[str] = []  # the files whose keys were ignored, for the notices to name
    user_only_in: list[str] = []
    for layer in (project_file, local_file):  # the local file: "Always allow" rules, git-ignored
        if not layer.is_file():
            continue
        data = read_toml(layer)
        apply({}, {}, data, str(layer))  # every key is checked, applied or not
        data = project_keeps_sandbox(data, merged.get("sandbox", {}), layer)
        folder = layer.parent
        state = "trusted" if trusted else folder_state()
        split = folder_trust.filter_project(data, state == "trusted")
        if state != "trusted" and layer == local_file:
            split = _with_own_rules(split, data, folder)
        kept = split.kept
        allowed = kept.get("tools", {}).get("allow")
        if isinstance(allowed, list):
            layer_rules["local" if layer == local_file else "project"] = [str(r) for r in allowed]
        if layer == local_file and isinstance(allowed, list):
            # The local rules add to the shared ones, they do not replace them.
            shared = merged.get("tools", {}).get("allow", [])
            kept = {**kept, "tools": {**kept["tools"], "allow": list(dict.fromkeys([*shared, *allowed]))}}
        apply(merged, sources, kept, str(layer))
        read.append(layer)
        ignored += split.ignored
        user_only += split.user_only
        ignored_in += [layer.name] if split.ignored else []
        user_only_in += [layer.name] if split.user_only else []
    if ignored:
        ignored = tuple(dict.fromkeys(ignored))  # the same key in both files: named once
        notices.append(
            folder_trust.untrusted_notice(project_file.parent, ignored, state, " and ".join(ignored_in))
        )
    if user_only:
        notices.append(
            folder_trust.user_only_notice(tuple(dict.fromkeys(user_only)), " and ".join(user_only_in))
        )
    if env.get("AGENT_TUI_MODEL"):
        apply(merged, sources, {"model": {"name": env["AGENT_TUI_MODEL"]}}, "env AGENT_TUI_MODEL")
    if overrides:
        cleaned = {s: {k: v for k, v in t.items() if v is not None} for s, t in overrides.items()}
        apply(merged, sources, cleaned, "command line")
    project_keys = frozenset(
        k for k, origin in sources.items() if origin in (str(project_file), str(local_file))
    )
    folder = project_file.parent
    if not project_file.is_file() and not trusted:
        state = folder_state()
    folder_trusted = state == "trusted"
    if not folder_trusted:
        withheld = withheld_hooks(folder)  # .claude/ hooks run code: listed like the keys above
        if withheld:
            ignored = (*ignored, *withheld)
            notices.append(folder_trust.untrusted_notice(folder, withheld, state, source=".claude/"))

        held = withheld_extensions(folder)  # the project's commands and skills wait for trust too
        if held:
            ignored = (*ignored, *held)
            notices.append(
                folder_trust.untrusted_notice(folder, held, state, source=".claude/ and .agent-tui/")
            )
    agents_ok, held_back = _project_agents(folder, trusted or folder_state() == "trusted")
    if held_back:
        ignored = (*ignored, *held_back)
        notices.append(_agents_notice(held_back))
    allow = merged.get("tools", {}).get("allow", [])
    extra, claude_present = _extra_rules(folder, folder_trusted, merged, sources, notices, rule_words)
    config = build(
        merged,
        provenance=Provenance(
            project_keys,
            folder_trusted,
            project_agents=agents_ok,
            rule_tiers=_tiers(allow, layer_rules),
            extra_rules=extra,
            claude_rules=claude_present,
        ),
    )
    problems = config_problems(flatten(config), sources, rule_words)  # ranges, choices and allow-rule syntax
    if problems:
        raise ConfigError(problems[0])
    if config.model.api_base and not config.provenance.api_key_allowed:
        notices.append(folder_trust.KEY_WITHHELD_NOTICE)
    return LoadedConfig(
        config=config, sources=sources, files=read, trust=state, ignored=ignored, notices=notices
    )


def _tiers(allow: list[str], layer_rules: Mapping[Tier, list[str]]) -> tuple[tuple[str, Tier], ...]:
    """Each effective allow rule with the file tier it came from (the user's file, or a flag,
    unless a project file holds it)."""
    found: list[tuple[str, Tier]] = []
    for rule in allow:
        candidates: tuple[Tier, ...] = ("project", "local")
        held = [tier for tier in candidates if rule in layer_rules.get(tier, ())]
        found.append((rule, held[0] if held else "user"))
    return tuple(found)


def _extra_rules(
    folder: Path,
    trusted: bool,
    merged: Mapping[str, Mapping[str, Any]],
    sources: Mapping[str, str],
    notices: list[str],
    words: RuleVocabulary,
) -> tuple[tuple[tuple[str, str, Tier], ...], bool]:
    """`[tools] ask` / `deny` (each with the tier of the file that set it), then Claude Code's
    settings.json rules (claude_permissions.py); their notices join the others."""

    found: list[tuple[str, str, Tier]] = []
    for kind in ("ask", "deny"):
        origin = sources.get(f"tools.{kind}", "")
        tier: Tier = "project" if origin.endswith(paths.CONFIG_NAME) else "user"
        tier = "local" if origin.endswith(paths.LOCAL_CONFIG_NAME) else tier
        found += [(kind, str(rule), tier) for rule in merged.get("tools", {}).get(kind, [])]
    claude = claude_permissions.load(
        folder,
        words=words,
        trusted=trusted,
        trusted_allow=folder_trust.trusted_allow(folder) if trusted else None,
    )
    notices += claude.notices
    if claude.withheld and not trusted:
        notices.append(
            "this folder is not trusted: .claude/ permission rules not applied: "
            f"{', '.join(claude.withheld)}. Trust it with `agent-tui trust add` (or `--trust` for one run)."
        )
    return (*found, *claude.rules), claude.present


def _project_agents(folder: Path, trusted: bool) -> tuple[bool, tuple[str, ...]]:
    """Whether the folder's sub-agent definitions may load, and if not, which ones wait for
    trust (a definition is a prompt and a tool list from the repository: a project setting)."""

    if trusted:
        return True, ()
    return False, untrusted_items(folder)


def _agents_notice(items: tuple[str, ...]) -> str:
    names = ", ".join(item.split(" (")[0].removeprefix("sub-agent ") for item in items)
    return (
        f"this folder is not trusted: sub-agent definitions not loaded: {names}. "
        "Trust it with `agent-tui trust add` (or `--trust` for one run)."
    )


def _with_own_rules(split: Any, data: Mapping[str, Any], folder: Path) -> Any:
    """An untrusted folder's local file still applies the allow rules the user gave there by
    answering "Always" (trust.own_rules); any other rule it holds waits for trust."""
    from dataclasses import replace

    rules = data.get("tools", {}).get("allow") if isinstance(data.get("tools"), Mapping) else None
    if not isinstance(rules, list):
        return split
    own = folder_trust.own_rules(folder)
    mine = [r for r in rules if isinstance(r, str) and r in own]
    if not mine:
        return split
    kept = {**split.kept, "tools": {**split.kept.get("tools", {}), "allow": mine}}
    ignored = split.ignored
    if len(mine) == len(rules):
        ignored = tuple(k for k in ignored if k != folder_trust.display("tools", "allow"))
    return replace(split, kept=kept, ignored=ignored)
