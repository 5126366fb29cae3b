"""Every config key, declared once: its section, type, default, range or choices and help.

The dataclasses are the typed settings the rest of the program reads; each field's metadata is a
`Spec` (config/spec.py). A section's docstring is its introduction in `config.example.toml`, and
`EXAMPLE_TAIL` what the example shows after its keys. Adding a key here is enough for it to be
read, checked and documented: `make docs` regenerates the example file and the README table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from agent_tui.base.reasoning import EFFORTS, ReasoningSettings
from agent_tui.config.spec import COUNT, FRACTION, SECONDS, Range, spec
from agent_tui.policy.permission_rules import Tier

SANDBOX_MODES = ("workspace-write", "read-only", "off")
"""tools/sandbox.py's MODES; not imported from there: config loads before any tool, at start-up."""


NOTIFY_METHODS = ("auto", "osc9", "osc777", "bell", "off")
"""`[ui] notify` values (frontends/tui/attention.py sends them)."""


@dataclass(frozen=True)
class ModelSettings:
    name: str | None = field(
        default=None,
        metadata=spec(
            "litellm model name, e.g. `anthropic/claude-sonnet-4-5` or `openai/gpt-4o-mini`.",
            'Also "ollama_chat/qwen2.5" and any name behind an api_base.',
            example="anthropic/claude-sonnet-4-5",
        ),
    )
    api_base: str | None = field(
        default=None,
        metadata=spec(
            "Base URL of an OpenAI-compatible server (Ollama, llama.cpp, vLLM).",
            "With an api_base and no key found, a placeholder key is sent: local servers need none.",
            example="http://localhost:11434/v1",
        ),
    )
    api_key_env: str | None = field(
        default=None,
        metadata=spec(
            "Name of the environment variable holding the API key (default: the one litellm reads).",
            example="MY_PROVIDER_KEY",
        ),
    )
    context_window: int | None = field(
        default=None,
        metadata=spec(
            "The model's window in tokens; required for models litellm does not know.",
            range=Range(256, 100_000_000, unit="tokens"),
            example=32768,
        ),
    )
    max_output_tokens: int | None = field(
        default=None,
        metadata=spec(
            "The reply reserve; default min(model max output, 8192, window / 4).",
            range=Range(1, 10_000_000, unit="tokens"),
            example=8192,
        ),
    )
    input_price_per_mtok: float | None = field(
        default=None,
        metadata=spec(
            "USD per million input tokens (cached ones too), for a model litellm has no prices for "
            "or one behind an api_base; with output_price_per_mtok. Unset = litellm's prices, or "
            "the cost is unknown (never shown as 0).",
            range=Range(0, 10_000, unit="USD"),
            example=0.15,
        ),
    )
    output_price_per_mtok: float | None = field(
        default=None,
        metadata=spec(
            "USD per million output tokens (see input_price_per_mtok).",
            range=Range(0, 10_000, unit="USD"),
            example=0.6,
        ),
    )
    reasoning_effort: str | None = field(
        default=None,
        metadata=spec(
            "Reasoning models: how hard they think; unset = the provider's default.",
            "Sent as reasoning_effort to OpenAI-compatible servers (o-series, gpt-5, DeepSeek, vLLM, "
            "OpenRouter); for Anthropic it picks a thinking budget (1 024 / 4 096 / 10 000 / 32 000 "
            "tokens). `/effort` changes it for the session, `run --effort` for one run.",
            choices=EFFORTS,
            example="medium",
        ),
    )
    thinking_budget_tokens: int = field(
        default=0,
        metadata=spec(
            "Anthropic extended thinking: tokens the model may think per reply; 0 = from reasoning_effort.",
            "The reply reserve grows by it; 0 is off when reasoning_effort is unset too.",
            range=Range(1024, 1_000_000, unit="tokens", off=0),
        ),
    )

    @property
    def reasoning(self) -> ReasoningSettings:
        return ReasoningSettings(self.reasoning_effort, self.thinking_budget_tokens)


@dataclass(frozen=True)
class AgentSettings:
    INTRO: ClassVar[str] = "Thresholds are fractions of the effective window (window - reply reserve)."

    compact_trigger: float = field(default=0.95, metadata=spec("Compact automatically.", range=FRACTION))
    hard_block: float = field(
        default=0.98, metadata=spec("Block new input until compaction frees room.", range=FRACTION)
    )
    warn_at: float = field(
        default=0.80, metadata=spec("Tell the model it can call compact_context.", range=FRACTION)
    )
    result_offload_threshold: int = field(
        default=4096,
        metadata=spec(
            "Bytes: a non-paged tool output (bash, grep, MCP) past this is stored and shown as a head+tail view.",
            range=Range(256, 1 << 30, unit="bytes"),
        ),
    )
    tool_deferral_threshold: float = field(
        default=0.10,
        metadata=spec(
            "Share of the window tool descriptions may take before MCP/skill tools are deferred.",
            range=FRACTION,
        ),
    )
    max_steps: int = field(
        default=50,
        metadata=spec(
            "Model calls in one turn before the loop stops and asks you to continue.",
            range=Range(1, 10_000),
        ),
    )


@dataclass(frozen=True)
class CompactionSettings:
    enabled: bool = field(
        default=True, metadata=spec("Compaction at all; false: never, not even `/compact`.")
    )
    auto: bool = field(default=True, metadata=spec("Compact automatically at agent.compact_trigger."))
    model: str | None = field(
        default=None,
        metadata=spec(
            "Model for summaries; default: a cheaper model of the same provider when its key is set.",
            "Else the chat model (always the chat model with a custom api_base).",
            example="anthropic/claude-haiku-4-5",
        ),
    )
    target_ratio: float = field(
        default=0.6,
        metadata=spec(
            "Compact down to this share of the effective window.",
            range=Range(0, 1, low_open=True, high_open=True),
        ),
    )
    retain_last_turns: int = field(
        default=1, metadata=spec("Turns kept verbatim after the summary.", range=Range(0, 1000))
    )
    summary_directives: str = field(default="", metadata=spec("Appended to the summary instructions."))
    retain_directives: str = field(default="", metadata=spec("Appended to the retain-block instructions."))
    protected_ratio: float = field(
        default=0.25,
        metadata=spec(
            "Share of the target kept for the newest tool outputs, which clearing never touches.",
            range=Range(0, 1),
        ),
    )
    keep_user_messages_tokens: int = field(
        default=2000,
        metadata=spec(
            "Tokens of the newest replaced user messages a summary keeps verbatim; 0 = off.",
            "They go to the retain block, at most an eighth of the target.",
            range=Range(0, 100_000_000, unit="tokens"),
        ),
    )
    pin_budget_tokens: int = field(
        default=2000,
        metadata=spec(
            "Tokens all pins together may take (/pin, the pin tool); sent in every request.",
            range=Range(0, 100_000_000, unit="tokens"),
        ),
    )
    tool_clearing: bool = field(
        default=True, metadata=spec("Strategy 1 of the chain (cheapest first): clear old tool outputs.")
    )
    pruning: bool = field(default=True, metadata=spec("Strategy 2: prune old messages."))
    summarization: bool = field(default=True, metadata=spec("Strategy 3: summarise with a model."))
    truncation: bool = field(default=True, metadata=spec("Strategy 4: drop the oldest messages."))


@dataclass(frozen=True)
class ToolOutputSettings:
    max_message_bytes: int = field(
        default=51200,
        metadata=spec(
            "Most a paged reader (read_file, read_result) returns at once.",
            range=Range(1024, 1 << 30, unit="bytes"),
        ),
    )
    max_line_length: int = field(
        default=2000,
        metadata=spec("Longer lines are cut in views.", range=Range(16, 1_000_000, unit="characters")),
    )
    budget_tokens: int | None = field(
        default=None,
        metadata=spec(
            "Tokens all tool outputs may hold together before the oldest are trimmed (refs kept).",
            "Unset: clamp(0.25 × window, 20000, 60000).",
            range=Range(1, 100_000_000, unit="tokens"),
            example=40000,
        ),
    )


@dataclass(frozen=True)
class ToolsSettings:
    allow: list[str] = field(
        default_factory=list,
        metadata=spec(
            'Tools and commands allowed without asking: "tool", or "bash:PREFIX" (a trailing * globs).',
            "A bash rule never covers chained commands (;, &&, |, $(…), redirections). A file "
            'tool takes a path glob ("edit_file:src/**"), web_fetch a domain ("web_fetch:'
            'docs.python.org"); Claude Code\'s syntax works too ("Bash(git status:*)", "Edit(src/**)").',
        ),
    )
    ask: list[str] = field(
        default_factory=list,
        metadata=spec(
            "Rules (as in allow) that always ask first, even when an allow rule or a session "
            "answer covers the call, and even for tools that only read.",
        ),
    )
    deny: list[str] = field(
        default_factory=list,
        metadata=spec(
            'Rules (as in allow) refused without asking, even with --yes ("read_file:.env", '
            '"Read(./secrets/**)", "bash:rm"). Checked before ask and allow.',
        ),
    )
    bash_timeout: float = field(
        default=120.0,
        metadata=spec(
            "Seconds; the whole process group is killed past it.",
            range=Range(0, 1800, low_open=True, unit="seconds"),
        ),
    )
    deny_ends_turn: bool = field(
        default=True,
        metadata=spec(
            "A denied call ends the turn and waits for you; false: the model carries on. "
            "Headless `run` always carries on (no one to wait for; its result lists the denials)."
        ),
    )
    search_timeout: float = field(
        default=5.0,
        metadata=spec(
            "Seconds one grep / grep_result / blob-browser search may spend on regex work.",
            'Past it, it stops with "search stopped after N s; narrow the pattern" (catastrophic '
            "patterns cannot hang it).",
            range=Range(0, 600, low_open=True, unit="seconds"),
        ),
    )
    max_output_bytes: int = field(
        default=256 << 20,
        metadata=spec(
            "Bytes one command may print (stdout + stderr); past it its process group is killed.",
            "The part printed so far is kept. 268435456 = 256 MB.",
            range=Range(1024, 1 << 40, unit="bytes"),
        ),
    )
    env_passthrough: list[str] = field(
        default_factory=list,
        metadata=spec(
            "Secret-looking variables bash and MCP servers still get, by name (e.g. NPM_TOKEN).",
            "They get your environment minus variables whose names look like secrets (*KEY*, "
            "*SECRET*, *TOKEN*, *PASSWORD*, *PASSWD*, *CREDENTIAL*, words like AUTH, DSN, PAT) or "
            "whose value is a URL with a password.",
        ),
    )
    max_background: int = field(
        default=8,
        metadata=spec(
            "Background commands (bash with background: true) one session may run at once; 0 = off.",
            "They end with the session.",
            range=Range(0, 1000),
        ),
    )


@dataclass(frozen=True)
class StoreSettings:
    db: str | None = field(
        default=None,
        metadata=spec(
            "SQLite database; default in the user data dir. --db overrides.", example="~/agent-tui.db"
        ),
    )
    recall_scope: str = field(
        default="project",
        metadata=spec(
            "Other projects' stored outputs: `project` asks once per session per project; `all` never asks.",
            "User config only.",
            choices=("project", "all"),
        ),
    )


@dataclass(frozen=True)
class UISettings:
    theme: str = field(
        default="agent-dark", metadata=spec('"agent-dark", "agent-light", or any file in themes/.')
    )
    editing_mode: str = field(
        default="default",
        metadata=spec(
            'Keys in the input: "default", or "vim" (insert / normal mode, shown under the input: '
            "h j k l w b e 0 $ gg G, x dd dw D, i a I A o O, u, ., counts).",
            choices=("default", "vim"),
        ),
    )
    notify: str = field(
        default="auto",
        metadata=spec(
            "When a turn ends or an approval waits while the terminal is not focused: osc9 (a "
            "desktop notification), osc777, bell, off; auto = osc9, but off inside tmux unless "
            "you choose one.",
            choices=NOTIFY_METHODS,
        ),
    )


@dataclass(frozen=True)
class LoopSettings:
    INTRO: ClassVar[str] = "`agent-tui loop GOAL`: autonomous iterations."

    max_iterations: int = field(default=50, metadata=spec("Iterations before the loop stops.", range=COUNT))
    raw_window_size: int = field(
        default=5, metadata=spec("Iterations kept verbatim in the loop's prompt.", range=COUNT)
    )
    summarize_every: int = field(
        default=10, metadata=spec("Iterations between summaries of the older ones.", range=COUNT)
    )
    max_summary_tokens: int = field(
        default=2000,
        metadata=spec("Tokens of one loop summary.", range=Range(16, 10_000_000, unit="tokens")),
    )
    stall_limit: int = field(
        default=3, metadata=spec("Iterations without progress before the loop stops.", range=COUNT)
    )


@dataclass(frozen=True)
class McpSettings:
    EXAMPLE_TAIL: ClassVar[str] = (
        "One [mcp.servers.NAME] table per server, e.g.:\n"
        "[mcp.servers.time]\n"
        'command = "mcp-server-time"\n'
        "args = []\n"
        "env = {}\n"
        "sandbox = true   — false trusts the server to run outside the command sandbox\n"
        "network = false  — true lets it use the network inside the sandbox"
    )

    servers: dict[str, Any] = field(
        default_factory=dict,
        metadata=spec(
            "`[mcp.servers.NAME]` tables: command, args, env, sandbox, network (example below).",
            commented=True,
        ),
    )
    startup_timeout: float = field(
        default=20.0, metadata=spec("Seconds each server may take to start.", range=SECONDS)
    )
    trust_annotations: list[str] = field(
        default_factory=list,
        metadata=spec(
            "Servers whose readOnlyHint may skip approval (e.g. time); user config only.",
            "The hints are always shown, but by default every MCP tool asks.",
        ),
    )


@dataclass(frozen=True)
class SandboxSettings:
    INTRO: ClassVar[str] = (
        'Where bash commands and MCP servers run (Linux, bubblewrap). "workspace-write": the '
        "system read-only, the workspace and a private $TMPDIR writable; all of .git (and "
        "core.hooksPath), .agent-tui.toml, .agent-tui/, .claude/ and the rules files protected. "
        '"read-only": only $TMPDIR writable. "off": no sandbox. Without bwrap the mode falls back '
        'to "off" with a notice at start. --sandbox MODE overrides.'
    )

    mode: str = field(
        default="workspace-write",
        metadata=spec('Where bash commands and MCP servers run (README "Sandbox").', choices=SANDBOX_MODES),
    )
    network: bool = field(default=False, metadata=spec("Sandboxed commands may use the network."))
    auto_approve: bool = field(
        default=False, metadata=spec("Sandboxed commands without network run without asking.")
    )
    allow_read: list[str] = field(
        default_factory=list,
        metadata=spec(
            "Hidden paths sandboxed commands may read anyway, e.g. ~/.ssh/known_hosts; ~ and $VARS expand.",
            "Hidden: your secrets (~/.ssh, ~/.aws, ~/.config/gcloud, ~/.netrc, ~/.gnupg, ~/.kube, "
            "~/.docker, browser profiles, ~/.claude, ~/.codex, …), agent-tui's own config, data and "
            "state folders, /tmp, /var/tmp and $XDG_RUNTIME_DIR. Only your own config can open them "
            "(a project's .agent-tui.toml cannot).",
        ),
    )
    unix_sockets: list[str] = field(
        default_factory=list,
        metadata=spec(
            "Unix sockets sandboxed commands may reach, e.g. $SSH_AUTH_SOCK (turns the socket filter off).",
            "Unix sockets are refused (tmux, D-Bus, docker, the SSH agent…); with one listed, only "
            "sockets in the hidden folders stay out.",
        ),
    )


@dataclass(frozen=True)
class ProviderSettings:
    INTRO: ClassVar[str] = (
        "How models are reached. A time limit that runs out is retried once, then the turn fails "
        "with a one-line error naming the server and the setting."
    )

    transport: str = field(
        default="auto",
        metadata=spec(
            "auto: OpenAI-compatible and Anthropic models over agent-tui's own HTTP client; litellm: all through litellm.",
            "With auto, openai/…, openrouter/…, any name behind an api_base, anthropic/… and "
            "claude-… go direct; every other provider goes through litellm.",
            choices=("auto", "litellm"),
        ),
    )
    connect_timeout: float = field(
        default=10.0, metadata=spec("Seconds to open the connection.", range=SECONDS)
    )
    first_byte_timeout: float = field(
        default=45.0,
        metadata=spec(
            "Seconds from sending the request to the response starting.",
            "A slow local prefill of a long prompt may need more.",
            range=SECONDS,
        ),
    )
    idle_timeout: float = field(
        default=120.0,
        metadata=spec("Longest silence, in seconds, between two chunks of a streamed reply.", range=SECONDS),
    )
    total_timeout: float = field(
        default=600.0, metadata=spec("Seconds one model call may take in all.", range=SECONDS)
    )


_HOOK = spec('`[[hooks.EVENT]]` tables: matcher, command, timeout (README "Hooks").', commented=True)


@dataclass(frozen=True)
class HooksSettings:
    """hooks/sources.py reads them from each file so the user's and the project's both run; here they are only checked."""

    INTRO: ClassVar[str] = (
        "Commands run at named events, with Claude Code's contract: a JSON document on stdin; "
        "exit 0 goes on, exit 2 blocks (stderr is the reason), JSON on stdout for finer answers. "
        "Hooks from your user config always run; a project's (here, or in .claude/settings.json "
        "and .claude/settings.local.json) only in a trusted folder. They run in the project "
        'folder, outside the command sandbox, with CLAUDE_PROJECT_DIR set. README "Extending '
        'agent-tui". One [[hooks.EVENT]] table per hook; every event is a list, empty by default.'
    )

    EXAMPLE_TAIL: ClassVar[str] = (
        "[[hooks.PreToolUse]]\n"
        'matcher = "bash"                       # a regex over tool names; "" or "*" = every tool\n'
        'command = "~/.config/agent-tui/no-rm.sh"\n'
        "timeout = 60                           # seconds; past it the hook is killed and reported\n"
        "[[hooks.PostToolUse]]\n"
        'matcher = "edit_file|write_file"\n'
        'command = "jq -r .tool_input.path | xargs ruff format"'
    )

    PreToolUse: list[dict[str, Any]] = field(default_factory=list, metadata=_HOOK)
    PostToolUse: list[dict[str, Any]] = field(default_factory=list, metadata=_HOOK)
    UserPromptSubmit: list[dict[str, Any]] = field(default_factory=list, metadata=_HOOK)
    Stop: list[dict[str, Any]] = field(default_factory=list, metadata=_HOOK)
    SubagentStop: list[dict[str, Any]] = field(default_factory=list, metadata=_HOOK)
    PreCompact: list[dict[str, Any]] = field(default_factory=list, metadata=_HOOK)
    SessionStart: list[dict[str, Any]] = field(default_factory=list, metadata=_HOOK)
    SessionEnd: list[dict[str, Any]] = field(default_factory=list, metadata=_HOOK)
    Notification: list[dict[str, Any]] = field(default_factory=list, metadata=_HOOK)


@dataclass(frozen=True)
class StatusLineSettings:
    INTRO: ClassVar[str] = (
        "A line under the meter from your own command (Claude Code's statusLine works too): JSON "
        "about the session on stdin, the first line of stdout shown. A project's command runs "
        "only in a trusted folder."
    )

    command: str | None = field(
        default=None,
        metadata=spec(
            "Run with bash in the project folder; unset = Claude Code's statusLine if its settings "
            "have one, else no status line.",
            example='jq -r \'.model.display_name + " · " + (.context.used_percent|tostring) + "%"\'',
        ),
    )
    timeout: float = field(
        default=2.0,
        metadata=spec(
            "Seconds one run may take; past it the command's process group is killed and the line says so.",
            range=Range(0, 60, low_open=True, unit="seconds"),
        ),
    )


@dataclass(frozen=True)
class DiagnosticsSettings:
    INTRO: ClassVar[str] = (
        "After write_file or edit_file, the language server for the file (ruff server or pyright, "
        "typescript-language-server, gopls, rust-analyzer: found on PATH, never installed) "
        "reports the file's new diagnostics in the tool's result."
    )

    enabled: bool = field(default=True, metadata=spec("false: no language server is started."))
    timeout: float = field(
        default=5.0,
        metadata=spec(
            "Seconds a server may take to start or to answer after an edit; past it, it is "
            "stopped for the session and the edit's result says so.",
            range=Range(0, 120, low_open=True, unit="seconds"),
        ),
    )


@dataclass(frozen=True)
class WebSettings:
    INTRO: ClassVar[str] = (
        "web_fetch: a URL to readable text (HTML as Markdown, PDF and plain text as they are), "
        "asked per domain (rules: web_fetch:HOST or WebFetch(domain:HOST)), sent without cookies."
    )

    fetch_timeout: float = field(
        default=30.0,
        metadata=spec(
            "Seconds one fetch may take, redirects and reading included; past it, it stops.",
            range=Range(0, 600, low_open=True, unit="seconds"),
        ),
    )
    fetch_max_bytes: int = field(
        default=10 << 20,
        metadata=spec(
            "Bytes of one response read; the rest is not downloaded and the page says it was cut.",
            "10485760 = 10 MB.",
            range=Range(1024, 1 << 30, unit="bytes"),
        ),
    )
    private_hosts: list[str] = field(
        default_factory=list,
        metadata=spec(
            "Hosts web_fetch may reach although they are localhost or in a private address range "
            '(e.g. ["localhost", "127.0.0.1", "wiki.internal"]); every other such host is refused.',
        ),
    )
    search: bool = field(
        default=False,
        metadata=spec(
            "Offer the provider's own server-side web search to a model that has one (Anthropic's "
            "web_search tool over its direct API); its queries and sources show as web_search calls.",
            "Each search is billed by the provider on top of tokens.",
        ),
    )
    search_max_uses: int = field(
        default=5,
        metadata=spec(
            "Searches the provider may run in one reply.",
            range=Range(1, 50),
        ),
    )


@dataclass(frozen=True)
class AgentsSettings:
    INTRO: ClassVar[str] = (
        "Sub-agents: the `task` tool runs a child session with its own window and answers with an "
        "envelope (state, answer view + ref, usage, cost, transcript ref). Definitions are "
        "markdown files in .agent-tui/agents/ or .claude/agents/ (trusted folders only) and "
        "agents/ in the user config folder."
    )

    max_parallel: int = field(
        default=4,
        metadata=spec("Children of one session running at once; more wait their turn.", range=Range(1, 64)),
    )
    max_depth: int = field(
        default=1,
        metadata=spec("How deep children may nest: 1 = children cannot start children.", range=Range(1, 3)),
    )
    result_tokens: int = field(
        default=2000,
        metadata=spec(
            "Tokens of a child's final answer the parent sees (all of it is stored with a ref).",
            range=Range(100, 100_000, unit="tokens"),
        ),
    )


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
    rule_tiers: tuple[tuple[str, Tier], ...] = ()
    """Each `[tools] allow` rule with the file tier it came from (user, project or local)."""
    extra_rules: tuple[tuple[str, str, Tier], ...] = ()
    """`(kind, rule, tier)` for `[tools] ask` / `deny` and Claude Code's settings.json rules."""
    claude_rules: bool = False
    """A Claude Code settings file has permissions: hints suggest rules in its syntax."""

    def tier_of(self, rule: str) -> Tier:
        return dict(self.rule_tiers).get(rule, "user")


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
    web: WebSettings = field(default_factory=WebSettings)
    status_line: StatusLineSettings = field(default_factory=StatusLineSettings)
    diagnostics: DiagnosticsSettings = field(default_factory=DiagnosticsSettings)
    agents: AgentsSettings = field(default_factory=AgentsSettings)
    provenance: Provenance = field(default_factory=Provenance, metadata={"section": False})

    def allow_tiers(self) -> list[tuple[str, Tier]]:
        """`[tools] allow` with the tier (user, project, local) each rule came from, then the
        allow rules of Claude Code's settings files."""
        own = [(rule, self.provenance.tier_of(rule)) for rule in self.tools.allow]
        return [*own, *self.rules_of("allow")]

    def rules_of(self, kind: str) -> list[tuple[str, Tier]]:
        """The `ask` or `deny` rules (or Claude Code's extra `allow` ones) with their tiers."""
        return [(rule, tier) for k, rule, tier in self.provenance.extra_rules if k == kind]

    def tool_output_budget(self, window: int) -> int:
        if self.tool_output.budget_tokens is not None:
            return self.tool_output.budget_tokens
        return int(min(max(0.25 * window, 20_000), 60_000))
