"""One place that wires config, store, provider, tools and approver into sessions.

The CLI, headless mode, the TUI and the tests all build agents here, so a test drives exactly
what a user runs (with a temp database and the local test server).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.agent.compactor import Compactor
from agent_tui.agent.definitions import Definitions, load_definitions
from agent_tui.agent.image_attach import reload_images, takes_images
from agent_tui.agent.prompting import PromptAssembler
from agent_tui.agent.session import AgentSession
from agent_tui.agent.subagents import child_config, for_session
from agent_tui.agent.summarizer import ProviderSummarizer, summary_provider
from agent_tui.agent.tool_runner import ToolRunner
from agent_tui.agent.web_search import request_keys
from agent_tui.agent.window import resume_calibration
from agent_tui.base.tokens import TokenCounter
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import Config, ConfigError
from agent_tui.context.budget import BudgetMeter
from agent_tui.context.memory import UserPrompts
from agent_tui.context.prompt_sections import PromptSection
from agent_tui.extensions.skill_resume import restore
from agent_tui.extensions.skill_tool import SkillTool
from agent_tui.extensions.skills import SkillCatalog, discover_skills, index_text
from agent_tui.hooks.approval import hooked_approver
from agent_tui.hooks.runner import HookRunner
from agent_tui.hooks.sources import HookSet, load_hooks
from agent_tui.hooks.transcript import TranscriptExport
from agent_tui.llm.http_common import TimeLimits
from agent_tui.llm.models import ModelLimits, resolve_limits
from agent_tui.llm.preflight import cached_ratio
from agent_tui.llm.provider import Provider, provider_of
from agent_tui.llm.startup import preload
from agent_tui.runtime import paths
from agent_tui.store import ConversationIndex, SessionNotFound, Store, StoreSettings, open_store
from agent_tui.tools.background import BackgroundShells
from agent_tui.tools.background_tools import background_tools
from agent_tui.tools.base import Tool, ToolServices
from agent_tui.tools.context_tools import context_tools
from agent_tui.tools.diagnostics import LanguageServers, language_servers
from agent_tui.tools.env import SessionEnv
from agent_tui.tools.mcp import McpManager
from agent_tui.tools.permissions import Approver, PermissionPolicy
from agent_tui.tools.registry import ToolRegistry, builtin_tools, session_lookups
from agent_tui.tools.sandbox import Sandbox
from agent_tui.tools.sandbox_setup import make_sandbox

if TYPE_CHECKING:
    from agent_tui.agent.definitions import AgentDefinition
    from agent_tui.agent.session_port import SubagentSession
    from agent_tui.base.messages import Message
    from agent_tui.policy.permission_modes import PermissionMode

log = logging.getLogger(__name__)


def db_path_for(config: Config, override: Path | None = None) -> Path:
    if override is not None:
        return Path(override)
    if config.store.db:
        return Path(config.store.db).expanduser()
    return paths.default_db_path()


@dataclass
class AppServices:
    """What every session of one app shares: config, store, workspace."""

    config: Config
    store: Store
    workspace: Path
    definitions: Definitions
    """The sub-agent definitions (agent/definitions.py), read in `build_services`: every session
    and child of the app chooses among the same ones."""
    extra_tools: list[Tool] = field(default_factory=list)
    """Tools beyond the built-ins (MCP servers' tools), shared by every session."""
    mcp: McpManager | None = None
    """The MCP servers once `start_mcp` ran; None without servers."""
    hooks: HookSet | None = None
    """The hooks of this workspace, read in `build_services`."""
    skills: SkillCatalog | None = None
    """The skills the model may load, read in `build_services`."""
    notices: list[str] = field(default_factory=list)
    """Lines to show once at start: malformed hook, skill files (each names its file and line)."""
    sandbox: Sandbox | None = None
    """The command sandbox (tools/sandbox.py), probed in `build_services`; its mode is shared
    by every session, so /sandbox switches it for all tabs at once."""
    language_servers: LanguageServers | None = None
    """The workspace's language servers (tools/diagnostics.py; None when `[diagnostics]` is off),
    made in `build_services` (each starts on the first edit in its language) and shared by every
    session and sub-agent: a child's edits get diagnostics too."""

    def start_mcp(self) -> McpManager | None:
        """Launch the configured MCP servers in the background (idempotent, returns at once).
        Their tools join every session as they come up and leave when a server dies."""
        if self.mcp is None and self.config.mcp.servers:
            self.mcp = McpManager.from_config(self.config, self.workspace, sandbox=self.sandbox)
            self.mcp.start()
        return self.mcp

    async def mcp_ready(self) -> None:
        """Wait until every MCP server is up or has failed (bounded by mcp.startup_timeout)."""
        if self.mcp is not None:
            await self.mcp.ready()

    async def new_session(
        self,
        approver: Approver | None = None,
        *,
        yes: bool = False,
        title: str | None = None,
        mode: PermissionMode | None = None,
    ) -> AgentSession:
        """A fresh session. Raises ConfigError when no usable model is configured. `mode`: the
        permission mode it starts in (`run --permission-mode`; saved with its side state)."""
        limits = self._limits()
        info = await self.store.sessions.create(str(self.workspace), self.config.model.name, title=title)
        await self.store.leases.acquire(info.id)
        session = self._session(info.id, info.title, [], limits, approver, yes)
        if mode is not None:
            session.set_mode(mode)
        return session

    async def resume_session(
        self,
        session_id: str,
        approver: Approver | None = None,
        *,
        yes: bool = False,
        mode: PermissionMode | None = None,
    ) -> AgentSession:
        """A stored session, from its newest snapshot plus the transcript after it, repaired so
        that it can be sent (agent/wire.py). SessionBusy when another live process has it open.
        `mode`, as for `new_session`, replaces the one it was saved with; None keeps that."""
        limits = self._limits()
        try:
            info = await self.store.sessions.get(session_id)
        except SessionNotFound as exc:
            raise ConfigError(str(exc)) from None
        await self.store.leases.acquire(session_id)
        history = await self.store.sessions.load_for_resume(session_id)
        if takes_images(self.config.model.name):  # sent again on resume; a placeholder otherwise
            history = await reload_images(self.store, history, info.id)
        session = self._session(info.id, info.title, history, limits, approver, yes)

        await restore(session)  # the skills it had loaded are back in its system prompt
        await session.side.restore()  # and its pins and task list
        if mode is not None:
            session.set_mode(mode)

        await resume_calibration(session)  # and what it learned of the provider's tokenizer
        if session.background is not None:
            await session.background.load_lost()  # the model hears which commands ended with it
        await session.repair()  # said to the user at the start of the next turn
        return session

    async def newest_session_id(self) -> str | None:
        info = await self.store.sessions.newest(str(self.workspace), with_messages=True)
        return info.id if info else None

    async def close(self) -> None:
        if self.mcp is not None:
            await self.mcp.stop()
        if self.language_servers is not None:
            await self.language_servers.close()
        try:
            await self.store.leases.release_all()
        except Exception:
            log.warning("could not release this process's session leases", exc_info=True)
        if self.sandbox is not None:
            self.sandbox.close()
        await self.store.close()

    def _limits(self) -> ModelLimits:

        return resolve_limits(self.config)

    async def child_session(
        self,
        parent: SubagentSession,
        *,
        definition: AgentDefinition | None = None,
        depth: int,
        title: str | None,
        history: list[Message],
        prompt: str,
    ) -> AgentSession:
        """A sub-agent's session (agent/subagents.py): stored with its parent's id, sharing the
        parent's permission policy, with the definition's tools, model, turn limit and prompt."""
        config = child_config(parent.config, definition)
        info = await self.store.sessions.create(
            str(self.workspace), config.model.name, title=title, parent_id=parent.session_id
        )
        await self.store.leases.acquire(info.id)
        sections = [PromptSection("subagent", prompt)]
        if definition is not None:
            sections.append(PromptSection(f"agent:{definition.name}", definition.prompt))
        return self._session(
            info.id,
            info.title,
            history,
            resolve_limits(config),
            None,
            False,
            config=config,
            policy=parent.runner.policy,
            tool_names=definition.tool_names() if definition is not None else None,
            sections=sections,
            depth=depth,
        )

    def _session(
        self,
        session_id: str,
        title: str | None,
        history: list[Message],
        limits: ModelLimits,
        approver: Approver | None,
        yes: bool,
        *,
        config: Config | None = None,
        policy: PermissionPolicy | None = None,
        tool_names: tuple[str, ...] | None = None,
        sections: list[PromptSection] | None = None,
        depth: int = 0,
    ) -> AgentSession:

        cfg = config or self.config
        model = cfg.model.name
        assert model is not None
        # Keys stay with their provider: an api_base a project file chose gets no key of the user's.
        keyed = cfg.provenance.api_key_allowed
        key_env = cfg.model.api_key_env if keyed else None
        p = cfg.provider  # `[provider]`: the transport and the time limits
        timing = TimeLimits(p.connect_timeout, p.first_byte_timeout, p.idle_timeout, p.total_timeout)
        provider = Provider(
            model,
            cfg.model.api_base,
            api_key_env=key_env,
            env_key_for_api_base=keyed,
            limits=timing,
            transport=p.transport,
            reasoning=cfg.model.reasoning,
        )
        provider.extra.update(request_keys(cfg, provider))  # an OpenAI search model's own search
        registry = ToolRegistry([*builtin_tools(), *context_tools(), *background_tools(), *self.extra_tools])
        if self.mcp is not None and tool_names is None:
            self.mcp.attach(registry)
        agents = for_session(self, cfg, registry, depth=depth, tool_names=tool_names)
        counter = TokenCounter(model, lazy=True)  # tiktoken loads when a count must be exact
        a = cfg.agent
        thresholds = {"warn_at": a.warn_at, "compact_trigger": a.compact_trigger, "hard_block": a.hard_block}
        meter = BudgetMeter(counter, limits.context_window, limits.max_output_tokens, **thresholds)
        meter.seed(cached_ratio(model, cfg.model.api_base))  # what this model's last session learned
        hooks = self._hook_runner(session_id)
        if policy is None:  # a child shares its parent's policy, already answering for hooks
            # Hooks' permissionDecision and custom commands' allowed-tools answer through it.
            policy = PermissionPolicy.of_config(
                cfg,
                words=SHIPPED_WORDS,
                approver=approver,
                yes=yes,
                sandbox=self.sandbox,
                relay=partial(hooked_approver, runner=hooks),
            )
        user_prompts = self._user_prompts(registry, limits.context_window - limits.max_output_tokens)
        shells = BackgroundShells(session_id, self.store, cfg.tools.max_background)
        prompts = PromptAssembler(
            self.workspace,
            registry,
            user_prompts=user_prompts,
            counter=counter,
            meter=meter,
            cache_control=provider.supports_cache_control,
            deferral_threshold=a.tool_deferral_threshold,
            notice_feed=self.mcp.notices if self.mcp is not None else None,
            extra_sections=sections or (),
            status_sources=[shells],
        )
        chat_summarizer = ProviderSummarizer(provider)
        summarizer = summary_provider(
            cfg, chat_summarizer, provider_of(model), key_env, keyed, timing, p.transport
        )
        services = ToolServices(
            web=cfg.web,
            diagnostics=self.language_servers,
            page_reader=summarizer or chat_summarizer,
            store=self.store,
            tools=prompts,  # tool_search ranks and promotes through it: it owns deferral
            sandbox=self.sandbox,
            projects=policy,
            recall_scope=cfg.store.recall_scope,
            env=SessionEnv(cfg.tools.env_passthrough),
            agents=agents,
            shells=shells,
        )
        runner = ToolRunner(
            registry=registry,
            policy=policy,
            store=self.store,
            config=cfg,
            workspace=self.workspace,
            session_id=session_id,
            services=services,
            hooks=hooks,
        )
        compactor = Compactor(
            summarizer, chat_summarizer if summarizer is not chat_summarizer else None, limits.context_window
        )
        return AgentSession(
            session_id=session_id,
            title=title,
            config=cfg,
            provider=provider,
            limits=limits,
            meter=meter,
            prompts=prompts,
            runner=runner,
            compactor=compactor,
            store=self.store,
            history=history,
            workspace=self.workspace,
            hooks=hooks,
            background=shells,
            subagents=agents,
        )

    def _user_prompts(self, registry: ToolRegistry, window: int) -> UserPrompts:
        """Memories and skills; with skills the model may choose, their index and the `skill`
        tool (extensions/skills.py)."""
        catalog = self.skills
        if catalog is None or not catalog.skills:
            return UserPrompts()

        prompts = UserPrompts(
            folder_skills={s.name: s.path for s in catalog.skills.values()}, index=index_text(catalog, window)
        )
        registry.register(SkillTool(prompts))
        return prompts

    def _hook_runner(self, session_id: str) -> HookRunner | None:
        """The session's hooks, or None when no hook is configured (nothing runs, nothing costs)."""
        if not self.hooks:
            return None

        return HookRunner(self.hooks, self.workspace, session_id, TranscriptExport(self.store, session_id))


def store_settings(config: Config) -> StoreSettings:
    """How every front end opens the store: the user's search budget, and the calls recall leaves
    out, from the tools' declarations (the store cannot read them: it sits below the tools)."""
    return StoreSettings(config.tools.search_timeout, ConversationIndex(session_lookups))


async def build_services(
    config: Config,
    *,
    workspace: Path | None = None,
    db_path: Path | None = None,
    start_mcp: bool = True,
    warm_http: bool = True,
) -> AppServices:
    """Open the store and return the shared services. Store errors surface as StoreError.
    Configured MCP servers start in the background (`await services.mcp_ready()` to wait).
    `warm_http=False` leaves the HTTP client's loading to the caller (the TUI: frontends/tui/warmup.py)."""
    preload(http=warm_http)  # loads while the store opens (llm/startup.py)
    store = await open_store(db_path_for(config, db_path), store_settings(config))
    where = (workspace or Path.cwd()).resolve()
    trusted = config.provenance.folder_trusted
    hooks = load_hooks(where, trusted=trusted)
    skills = discover_skills(where, trusted)
    definitions = load_definitions(where, include_project=config.provenance.project_agents)
    sandbox = await make_sandbox(config, where)
    passthrough = tuple(config.tools.env_passthrough)
    services = AppServices(
        config=config,
        store=store,
        workspace=where,
        definitions=definitions,
        sandbox=sandbox,
        language_servers=language_servers(where, config.diagnostics, sandbox, passthrough),
        hooks=hooks,
        skills=skills,
        notices=[*hooks.notices, *skills.notices, *definitions.notices],
    )
    if start_mcp:
        services.start_mcp()
    return services
