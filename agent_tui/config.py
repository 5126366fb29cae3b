"""Typed settings merged from four layers: user file, project file, environment, CLI flags.

Later layers win. Every key has a default here (and in `config.example.toml`); a malformed file,
an unknown key or a wrong type is a `ConfigError` whose one line names the file, the key and what
was expected, so the CLI can print it instead of a traceback.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui import paths
from agent_tui.config_checks import config_problems
from agent_tui.reasoning import EFFORTS, ReasoningSettings

# Re-exported: most callers know them as config's (defined apart so hooks/sources.py can use them).
from agent_tui.toml_files import ConfigError as ConfigError
from agent_tui.toml_files import read_toml as read_toml

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelSettings:
    name: str | None = None
    """litellm model name, e.g. `anthropic/claude-sonnet-4-5` or `openai/gpt-4o-mini`."""
    api_base: str | None = None
    """Base URL for OpenAI-compatible local servers (Ollama, llama.cpp, vLLM)."""
    api_key_env: str | None = None
    """Name of the environment variable holding the key (litellm's default names otherwise)."""
    context_window: int | None = None
    """Override of the model's window, required for models litellm does not know."""
    max_output_tokens: int | None = None
    """The reply reserve; default min(model max output, 8192, window/4)."""
    reasoning_effort: str | None = None
    """minimal / low / medium / high for reasoning models; unset = the provider's default."""
    thinking_budget_tokens: int = 0
    """Anthropic extended thinking: tokens per reply (≥ 1 024); 0 = from reasoning_effort."""

    @property
    def reasoning(self) -> ReasoningSettings:
        return ReasoningSettings(self.reasoning_effort, self.thinking_budget_tokens)


@dataclass(frozen=True)
class AgentSettings:
    compact_trigger: float = 0.95
    hard_block: float = 0.98
    warn_at: float = 0.80
    result_offload_threshold: int = 4096
    """Bytes: a non-paged tool output past this is stored and the model sees a head+tail view."""
    tool_deferral_threshold: float = 0.10
    max_steps: int = 50
    """Model calls in one turn before the loop stops and asks the user."""


@dataclass(frozen=True)
class CompactionSettings:
    enabled: bool = True
    auto: bool = True
    model: str | None = None
    target_ratio: float = 0.6
    retain_last_turns: int = 1
    summary_directives: str = ""
    retain_directives: str = ""
    protected_ratio: float = 0.25
    """Share of the target kept for the newest tool outputs, which clearing never touches."""
    keep_user_messages_tokens: int = 2000
    """A summary keeps the newest user messages it replaces verbatim in the retain block, up to
    this many tokens (at most an eighth of the target); 0 turns it off."""
    tool_clearing: bool = True
    pruning: bool = True
    summarization: bool = True
    truncation: bool = True


@dataclass(frozen=True)
class ToolOutputSettings:
    max_message_bytes: int = 51200
    max_line_length: int = 2000
    budget_tokens: int | None = None
    """Tokens all tool outputs together may hold; unset = clamp(0.25 × window, 20k, 60k)."""


@dataclass(frozen=True)
class ToolsSettings:
    allow: list[str] = field(default_factory=list)
    """Approval rules: `bash:git status`, `bash:pytest*`, `edit_file`."""
    bash_timeout: float = 120.0
    deny_ends_turn: bool = True
    """A denied call ends the turn (the model waits for you); false lets it carry on."""
    search_timeout: float = 5.0
    """Seconds one grep / grep_result / blob search may spend before it stops with a note."""
    max_output_bytes: int = 256 << 20
    """Bytes one command may print; past it its process group is killed (the part is kept)."""
    env_passthrough: list[str] = field(default_factory=list)
    """Secret-looking variables (`*KEY*`, `*TOKEN*`…) bash and MCP servers still get, by name."""
    max_background: int = 8
    """Background commands (`bash` with `background: true`) one session may have running at once."""


@dataclass(frozen=True)
class StoreSettings:
    db: str | None = None
    """Database path; default in the user data dir."""
    recall_scope: str = "project"
    """`project`: other projects' outputs need approval once per session; `all`: never ask."""


@dataclass(frozen=True)
class UISettings:
    theme: str = "agent-dark"


@dataclass(frozen=True)
class LoopSettings:
    max_iterations: int = 50
    raw_window_size: int = 5
    summarize_every: int = 10
    max_summary_tokens: int = 2000
    stall_limit: int = 3


@dataclass(frozen=True)
class McpSettings:
    servers: dict[str, Any] = field(default_factory=dict)
    """`[mcp.servers.NAME]` tables with command, args, env."""
    startup_timeout: float = 20.0
    trust_annotations: list[str] = field(default_factory=list)
    """Servers whose `readOnlyHint` may skip approval (user config only)."""


@dataclass(frozen=True)
class AgentsSettings:
    """Sub-agents (the `task` tool, agent/subagents.py)."""

    max_parallel: int = 4
    """Children of one session that run at once; more wait their turn."""
    max_depth: int = 1
    """How deep children may nest: 1 = children cannot start children (at most 3)."""
    result_tokens: int = 2000
    """Tokens of a child's final answer the parent sees; the whole answer is stored with a ref."""


@dataclass(frozen=True)
class Provenance:
    """Not a config section: which effective values came from the project file."""

    project_keys: frozenset[str] = frozenset()
    """`section.key` set by the (trusted) project's .agent-tui.toml."""
    folder_trusted: bool = False
    """The project folder is trusted (or `--trust` was given): its hooks, commands and skills
    (`.agent-tui/`, `.claude/`) apply."""

    @property
    def api_key_allowed(self) -> bool:
        """A key goes to an api_base only if the api_base is the user's own, or the same
        project file that chose it also names the key's variable."""
        keys = self.project_keys
        return "model.api_base" not in keys or "model.api_key_env" in keys

    project_agents: bool = False
    """The folder is trusted: its sub-agent definitions (.agent-tui/agents, .claude/agents) load."""


@dataclass(frozen=True)
class SandboxSettings:
    mode: str = "workspace-write"
    """workspace-write, read-only or off; falls back to off (with a notice) without bubblewrap."""
    network: bool = False
    """Whether sandboxed commands may use the network."""
    auto_approve: bool = False
    """Sandboxed commands without network run without asking."""
    allow_read: list[str] = field(default_factory=list)
    """Hidden paths (secrets, agent-tui's own folders, /tmp…) sandboxed commands may read anyway."""
    unix_sockets: list[str] = field(default_factory=list)
    """Unix sockets sandboxed commands may connect to (any listed turns the socket filter off)."""


@dataclass(frozen=True)
class ProviderSettings:
    transport: str = "auto"
    """auto: OpenAI-compatible and Anthropic models over the direct HTTP path, the rest through
    litellm; litellm: every model through litellm."""
    connect_timeout: float = 10.0
    """Seconds to open the connection."""
    first_byte_timeout: float = 45.0
    """Seconds from sending the request to the response starting (a slow local prefill of a long
    prompt may need more)."""
    idle_timeout: float = 120.0
    """Longest silence, in seconds, between two chunks of a streamed reply."""
    total_timeout: float = 600.0
    """Seconds one model call may take in all."""


@dataclass(frozen=True)
class HooksSettings:
    """`[[hooks.EVENT]]` tables (`matcher`, `command`, `timeout`): hooks/sources.py reads them
    from each file so the user's and the project's both run; here they are only checked."""

    PreToolUse: list[dict[str, Any]] = field(default_factory=list)
    PostToolUse: list[dict[str, Any]] = field(default_factory=list)
    UserPromptSubmit: list[dict[str, Any]] = field(default_factory=list)
    Stop: list[dict[str, Any]] = field(default_factory=list)
    SubagentStop: list[dict[str, Any]] = field(default_factory=list)
    PreCompact: list[dict[str, Any]] = field(default_factory=list)
    SessionStart: list[dict[str, Any]] = field(default_factory=list)
    SessionEnd: list[dict[str, Any]] = field(default_factory=list)
    Notification: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Config:
    model: ModelSettings = field(default_factory=ModelSettings)
    agent: AgentSettings = field(default_factory=AgentSettings)
    compaction: CompactionSettings = field(default_factory=CompactionSettings)
    tool_output: ToolOutputSettings = field(default_factory=ToolOutputSettings)
    tools: ToolsSettings = field(default_factory=ToolsSettings)
    store: StoreSettings = field(default_factory=StoreSettings)
    ui: UISettings = field(default_factory=UISettings)
    loop: LoopSettings = field(default_factory=LoopSettings)
    mcp: McpSettings = field(default_factory=McpSettings)
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    provider: ProviderSettings = field(default_factory=ProviderSettings)
    hooks: HooksSettings = field(default_factory=HooksSettings)
    agents: AgentsSettings = field(default_factory=AgentsSettings)
    provenance: Provenance = field(default_factory=Provenance, metadata={"section": False})

    def tool_output_budget(self, window: int) -> int:
        if self.tool_output.budget_tokens is not None:
            return self.tool_output.budget_tokens
        return int(min(max(0.25 * window, 20_000), 60_000))


# Each section's field is built by its class, so the factory *is* the section type.
_SECTION_TYPES: dict[str, type] = {
    f.name: f.default_factory  # type: ignore[misc]  # every Config field has a section factory
    for f in dataclasses.fields(Config)
    if f.metadata.get("section", True)
}
_HINTS = {name: typing.get_type_hints(cls) for name, cls in _SECTION_TYPES.items()}


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


def _describe(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        parts = [_describe(a) for a in typing.get_args(tp) if a is not type(None)]
        return " or ".join(parts)
    if origin is list:
        (item,) = typing.get_args(tp) or (str,)
        return "a list of tables" if typing.get_origin(item) is dict else "a list of strings"
    if origin is dict:
        return "a table"
    return {int: "an integer", float: "a number", bool: "true or false", str: "a string"}.get(tp, str(tp))


def _coerce(value: Any, tp: Any) -> Any:
    """Return `value` as `tp`, or raise TypeError. Ints are accepted where floats are expected."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if value is None:
            return None
        for arg in args:
            try:
                return _coerce(value, arg)
            except TypeError:
                continue
        raise TypeError
    if origin is list:
        (item,) = typing.get_args(tp) or (str,)
        kind = dict if typing.get_origin(item) is dict else str
        if not isinstance(value, list) or not all(isinstance(v, kind) for v in value):
            raise TypeError
        return list(value)
    if origin is dict:
        if not isinstance(value, dict):
            raise TypeError
        return dict(value)
    if tp is bool:
        if not isinstance(value, bool):
            raise TypeError
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise TypeError
        return value
    raise TypeError


def _apply(
    merged: dict[str, dict[str, Any]],
    sources: dict[str, str],
    data: Mapping[str, Any],
    origin: str,
) -> None:
    for section, table in data.items():
        if section not in _HINTS:
            known = ", ".join(f"[{s}]" for s in _HINTS)
            raise ConfigError(f"{origin}: unknown section [{section}] (known: {known})")
        if not isinstance(table, Mapping):
            raise ConfigError(f"{origin}: [{section}] must be a table")
        hints = _HINTS[section]
        for key, value in table.items():
            if key not in hints:
                known = ", ".join(hints)
                raise ConfigError(f"{origin}: unknown key {section}.{key} (known: {known})")
            try:
                merged.setdefault(section, {})[key] = _coerce(value, hints[key])
            except TypeError:
                raise ConfigError(
                    f"{origin}: {section}.{key} must be {_describe(hints[key])}, got {value!r}"
                ) from None
            sources[f"{section}.{key}"] = origin


def config_files(cwd: Path | None = None) -> list[Path]:
    """The files read, in order (later wins)."""
    return [paths.user_config_file(), paths.project_config_file(cwd), paths.local_config_file(cwd)]


def load_config(
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    trusted: bool | None = None,
) -> LoadedConfig:
    """Merge defaults, user file, project file, environment and `overrides` (CLI flags).

    The project file applies in full only in a trusted folder (`trusted=None`: as the trust
    store says; True: `--trust`); otherwise only its harmless keys (trust.py)."""
    from agent_tui import trust as folder_trust

    env = os.environ if env is None else env
    merged: dict[str, dict[str, Any]] = {}
    sources: dict[str, str] = {}
    read: list[Path] = []
    state: folder_trust.TrustState = "trusted"
    ignored: tuple[str, ...] = ()
    notices: list[str] = []
    user_file, project_file, local_file = config_files(cwd)
    if user_file.is_file():
        _apply(merged, sources, read_toml(user_file), str(user_file))
        read.append(user_file)
    user_only: tuple[str, ...] = ()
    for layer in (project_file, local_file):  # the local file: "Always allow" rules, git-ignored
        if not layer.is_file():
            continue
        data = read_toml(layer)
        _apply({}, {}, data, str(layer))  # every key is checked, applied or not
        data = _project_keeps_sandbox(data, merged.get("sandbox", {}), layer)
        folder = layer.parent
        state = "trusted" if trusted else folder_trust.state(folder)
        split = folder_trust.filter_project(data, state == "trusted")
        kept = split.kept
        if layer == local_file and isinstance(kept.get("tools", {}).get("allow"), list):
            # The local rules add to the shared ones, they do not replace them.
            shared = merged.get("tools", {}).get("allow", [])
            kept = {
                **kept,
                "tools": {**kept["tools"], "allow": list(dict.fromkeys([*shared, *kept["tools"]["allow"]]))},
            }
        _apply(merged, sources, kept, str(layer))
        read.append(layer)
        ignored += split.ignored
        user_only += split.user_only
    if ignored:
        notices.append(folder_trust.untrusted_notice(project_file.parent, ignored, state))
    if user_only:
        notices.append(folder_trust.user_only_notice(user_only))
    if env.get("AGENT_TUI_MODEL"):
        _apply(merged, sources, {"model": {"name": env["AGENT_TUI_MODEL"]}}, "env AGENT_TUI_MODEL")
    if overrides:
        cleaned = {s: {k: v for k, v in t.items() if v is not None} for s, t in overrides.items()}
        _apply(merged, sources, cleaned, "command line")
    project_keys = frozenset(
        k for k, origin in sources.items() if origin in (str(project_file), str(local_file))
    )
    folder = project_file.parent
    if not project_file.is_file() and not trusted:
        state = folder_trust.state(folder)
    folder_trusted = state == "trusted"
    if not folder_trusted:
        from agent_tui.hooks.sources import withheld_hooks

        withheld = withheld_hooks(folder)  # .claude/ hooks run code: listed like the keys above
        if withheld:
            ignored = (*ignored, *withheld)
            notices.append(folder_trust.untrusted_notice(folder, withheld, state, source=".claude/"))
        from agent_tui.extension_files import withheld as withheld_extensions

        held = withheld_extensions(folder)  # the project's commands and skills wait for trust too
        if held:
            ignored = (*ignored, *held)
            notices.append(
                folder_trust.untrusted_notice(folder, held, state, source=".claude/ and .agent-tui/")
            )
    agents_ok, held_back = _project_agents(folder, trusted)
    if held_back:
        ignored = (*ignored, *held_back)
        notices.append(_agents_notice(held_back))
    config = Config(
        **{n: cls(**merged.get(n, {})) for n, cls in _SECTION_TYPES.items()},
        provenance=Provenance(project_keys, folder_trusted, project_agents=agents_ok),
    )
    problems = config_problems(flatten(config), sources)  # ranges and allow-rule syntax
    if problems:
        raise ConfigError(problems[0])
    _validate(config)
    if config.model.api_base and not config.provenance.api_key_allowed:
        notices.append(folder_trust.KEY_WITHHELD_NOTICE)
    return LoadedConfig(
        config=config, sources=sources, files=read, trust=state, ignored=ignored, notices=notices
    )


def _project_agents(folder: Path, trusted: bool | None) -> tuple[bool, tuple[str, ...]]:
    """Whether the folder's sub-agent definitions may load, and if not, which ones wait for
    trust (a definition is a prompt and a tool list from the repository: a project setting)."""
    from agent_tui import trust as folder_trust
    from agent_tui.agent.definitions import untrusted_items

    if trusted or folder_trust.state(folder) == "trusted":
        return True, ()
    return False, untrusted_items(folder)


def _agents_notice(items: tuple[str, ...]) -> str:
    names = ", ".join(item.split(" (")[0].removeprefix("sub-agent ") for item in items)
    return (
        f"this folder is not trusted: sub-agent definitions not loaded: {names}. "
        "Trust it with `agent-tui trust add` (or `--trust` for one run)."
    )


_STRICTNESS = {"off": 0, "workspace-write": 1, "read-only": 2}


def _project_keeps_sandbox(data: dict[str, Any], user: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """A repository's `.agent-tui.toml` may tighten the sandbox, never loosen it: a cloned project
    must not be able to turn off the wall that makes --yes safe. Loosening keys are dropped."""
    table = data.get("sandbox")
    if not isinstance(table, Mapping):
        return data
    kept = dict(table)
    mode = user.get("mode", SandboxSettings.mode)
    looser = {
        "mode": _STRICTNESS.get(str(kept.get("mode")), 3) < _STRICTNESS.get(mode, 1),
        "network": kept.get("network") is True and user.get("network") is not True,
        "auto_approve": kept.get("auto_approve") is True and user.get("auto_approve") is not True,
        "allow_read": bool(kept.get("allow_read")),  # only the user opens a hidden path
        "unix_sockets": bool(kept.get("unix_sockets")),
    }
    for key, loosens in looser.items():
        if key in kept and loosens:
            log.warning(
                "%s: sandbox.%s = %r ignored: a project file cannot loosen the sandbox "
                "(set it in your user config or pass --sandbox)",
                path,
                key,
                kept.pop(key),
            )
    return {**data, "sandbox": kept}


def _validate(config: Config) -> None:
    a = config.agent
    for key in ("warn_at", "compact_trigger", "hard_block", "tool_deferral_threshold"):
        value = getattr(a, key)
        if not 0 < value <= 1:
            raise ConfigError(f"agent.{key} must be a fraction between 0 and 1, got {value}")
    if not a.warn_at <= a.compact_trigger <= a.hard_block:
        raise ConfigError(
            "agent thresholds must satisfy warn_at ≤ compact_trigger ≤ hard_block "
            f"(got {a.warn_at}, {a.compact_trigger}, {a.hard_block})"
        )
    if not 0 < config.compaction.target_ratio < 1:
        raise ConfigError("compaction.target_ratio must be between 0 and 1")
    if config.store.recall_scope not in ("project", "all"):
        raise ConfigError(f'store.recall_scope must be "project" or "all", got {config.store.recall_scope!r}')
    modes = ("workspace-write", "read-only", "off")  # tools/sandbox.py MODES; not imported: start-up
    if config.sandbox.mode not in modes:
        raise ConfigError(f"sandbox.mode must be one of {', '.join(modes)}, got {config.sandbox.mode!r}")
    for key in ("context_window", "max_output_tokens"):
        value = getattr(config.model, key)
        if value is not None and value <= 0:
            raise ConfigError(f"model.{key} must be a positive integer, got {value}")
    _validate_provider(config.provider)
    _validate_reasoning(config.model)


def _validate_reasoning(m: ModelSettings) -> None:
    if m.reasoning_effort is not None and m.reasoning_effort not in EFFORTS:
        raise ConfigError(
            f"model.reasoning_effort must be one of {', '.join(EFFORTS)}, got {m.reasoning_effort!r}"
        )
    if m.thinking_budget_tokens != 0 and not 1024 <= m.thinking_budget_tokens <= 1_000_000:
        raise ConfigError(
            "model.thinking_budget_tokens must be 0 (off) or between 1024 and 1000000 tokens, "
            f"got {m.thinking_budget_tokens}"
        )


def _validate_provider(p: ProviderSettings) -> None:
    if p.transport not in ("auto", "litellm"):
        raise ConfigError(f'provider.transport must be "auto" or "litellm", got {p.transport!r}')
    # The timeouts' ranges are in config_checks.RANGES with every other number.


def flatten(config: Config) -> dict[str, Any]:
    """`section.key -> value` for display."""
    out: dict[str, Any] = {}
    for section in dataclasses.fields(config):
        if not section.metadata.get("section", True):
            continue
        values = getattr(config, section.name)
        for f in dataclasses.fields(values):
            out[f"{section.name}.{f.name}"] = getattr(values, f.name)
    return out
