"""One place that wires config, store, provider, tools and approver into sessions.

The CLI, headless mode, the TUI and the tests all build agents here, so a test drives exactly
what a user runs (with a temp database and the local test server).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui import paths
from agent_tui.config import Config, ConfigError

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.messages import Message
    from agent_tui.store import Store
    from agent_tui.tools.permissions import Approver
    from agent_tui.tools.sandbox import Sandbox

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
    extra_tools: list[Any] = field(default_factory=list)
    """Tools beyond the built-ins (MCP servers' tools), shared by every session."""
    mcp: Any = None
    """The MCP servers (tools/mcp.py McpManager) once `start_mcp` ran; None without servers."""
    sandbox: Sandbox | None = None
    """The command sandbox (tools/sandbox.py), probed in `build_services`; its mode is shared
    by every session, so /sandbox switches it for all tabs at once."""

    def start_mcp(self) -> Any:
        """Launch the configured MCP servers in the background (idempotent, returns at once).
        Their tools join every session as they come up and leave when a server dies."""
        if self.mcp is None and self.config.mcp.servers:
            from agent_tui.tools.mcp import McpManager

            self.mcp = McpManager.from_config(self.config, self.workspace, sandbox=self.sandbox)
            self.mcp.start()
        return self.mcp

    async def mcp_ready(self) -> None:
        """Wait until every MCP server is up or has failed (bounded by mcp.startup_timeout)."""
        if self.mcp is not None:
            await self.mcp.ready()

    async def new_session(
        self, approver: Approver | None = None, *, yes: bool = False, title: str | None = None
    ) -> AgentSession:
        """A fresh session. Raises ConfigError when no usable model is configured."""
        limits = self._limits()
        info = await self.store.sessions.create(str(self.workspace), self.config.model.name, title=title)
        await self.store.leases.acquire(info.id)
        return self._session(info.id, info.title, [], limits, approver, yes)

    async def resume_session(
        self, session_id: str, approver: Approver | None = None, *, yes: bool = False
    ) -> AgentSession:
        """A stored session, from its newest snapshot plus the transcript after it, repaired so
        that it can be sent (agent/wire.py). SessionBusy when another live process has it open."""
        from agent_tui.store import SessionNotFound

        limits = self._limits()
        try:
            info = await self.store.sessions.get(session_id)
        except SessionNotFound as exc:
            raise ConfigError(str(exc)) from None
        await self.store.leases.acquire(session_id)
        history = await self.store.sessions.load_for_resume(session_id)
        session = self._session(info.id, info.title, history, limits, approver, yes)
        if session.background is not None:
            await session.background.load_lost()  # the model hears which commands ended with it
        await session.repair()  # said to the user at the start of the next turn
        return session

    async def newest_session_id(self) -> str | None:
        info = await self.store.sessions.newest(str(self.workspace))
        return info.id if info else None

    async def close(self) -> None:
        if self.mcp is not None:
            await self.mcp.stop()
        try:
            await self.store.leases.release_all()
        except Exception:
            log.warning("could not release this process's session leases", exc_info=True)
        if self.sandbox is not None:
            self.sandbox.close()
        await self.store.close()

    def _limits(self) -> Any:
        from agent_tui.models import resolve_limits

        return resolve_limits(self.config)

    def _session(
        self,
        session_id: str,
        title: str | None,
        history: list[Message],
        limits: Any,
        approver: Approver | None,
        yes: bool,
    ) -> AgentSession:
        from agent_tui.agent.compactor import Compactor
        from agent_tui.agent.prompting import PromptAssembler
        from agent_tui.agent.session import AgentSession
        from agent_tui.agent.summarizer import ProviderSummarizer, summarizer_model
        from agent_tui.agent.tool_runner import ToolRunner
        from agent_tui.context.budget import BudgetMeter
        from agent_tui.llm.provider import Provider, provider_of
        from agent_tui.tokens import TokenCounter
        from agent_tui.tools.base import ToolServices
        from agent_tui.tools.context_tools import context_tools
        from agent_tui.tools.permissions import PermissionPolicy
        from agent_tui.tools.registry import ToolRegistry, builtin_tools

        cfg = self.config
        model = cfg.model.name
        assert model is not None
        # Keys stay with their provider: an api_base a project file chose gets no key of the user's.
        keyed = cfg.provenance.api_key_allowed
        key_env = cfg.model.api_key_env if keyed else None
        timing = provider_settings(cfg)
        provider = Provider(
            model, api_base=cfg.model.api_base, api_key_env=key_env, env_key_for_api_base=keyed, **timing
        )
        provider.reasoning = cfg.model.reasoning
        registry = ToolRegistry()
        from agent_tui.tools.background import BackgroundShells
        from agent_tui.tools.background_tools import background_tools

        for tool in [*builtin_tools(), *context_tools(), *background_tools(), *self.extra_tools]:
            registry.register(tool)
        if self.mcp is not None:
            self.mcp.attach(registry)
        counter = TokenCounter(model)
        a = cfg.agent
        meter = BudgetMeter(
            counter,
            limits.context_window,
            limits.max_output_tokens,
            warn_at=a.warn_at,
            compact_trigger=a.compact_trigger,
            hard_block=a.hard_block,
        )
        policy = PermissionPolicy(cfg.tools.allow, approver=approver, yes=yes, sandbox=self.sandbox)
        prompts = PromptAssembler(
            self.workspace,
            registry,
            counter=counter,
            meter=meter,
            cache_control=provider.supports_cache_control,
            deferral_threshold=a.tool_deferral_threshold,
            notice_feed=self.mcp.notices if self.mcp is not None else None,
        )
        # tool_search ranks and promotes through the prompt assembler, which owns deferral.
        from agent_tui.tools.env import SessionEnv

        shells = BackgroundShells(session_id, self.store, cfg.tools.max_background)
        prompts.status_sources.append(shells)
        services = ToolServices(
            store=self.store,
            tools=prompts,
            sandbox=self.sandbox,
            projects=policy,
            recall_scope=cfg.store.recall_scope,
            env=SessionEnv(cfg.tools.env_passthrough),
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
        )
        chat_summarizer = ProviderSummarizer(provider)
        summary_name = summarizer_model(cfg, model, provider_of(model))
        summarizer: ProviderSummarizer | None = chat_summarizer
        if cfg.compaction.summarization is False:
            summarizer = None
        elif summary_name != model:
            # A bare or openai/ name beside a local chat server lives on that server too.
            local = (
                cfg.model.api_base if "/" not in summary_name or summary_name.startswith("openai/") else None
            )
            summarizer = ProviderSummarizer(
                Provider(
                    summary_name,
                    api_base=local,
                    api_key_env=key_env if local else None,
                    env_key_for_api_base=keyed,
                    **timing,
                )
            )
        compactor = Compactor(
            summarizer, chat_summarizer if summarizer is not chat_summarizer else None, limits.context_window
        )
        session = AgentSession(
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
        )
        session.background = shells
        return session


def provider_settings(config: Config) -> dict[str, Any]:
    """Provider keyword arguments from `[provider]`: the transport and the time limits."""
    from agent_tui.llm.http_common import TimeLimits

    p = config.provider
    limits = TimeLimits(p.connect_timeout, p.first_byte_timeout, p.idle_timeout, p.total_timeout)
    return {"limits": limits, "transport": p.transport}


async def build_services(
    config: Config, *, workspace: Path | None = None, db_path: Path | None = None, start_mcp: bool = True
) -> AppServices:
    """Open the store and return the shared services. Store errors surface as StoreError.
    Configured MCP servers start in the background (`await services.mcp_ready()` to wait)."""
    from agent_tui.llm.startup import preload
    from agent_tui.store import open_store

    preload(config.model.name)  # loads while the store opens (llm/startup.py)
    store = await open_store(db_path_for(config, db_path))
    store.results.search_timeout = store.transcript.search_timeout = config.tools.search_timeout
    services = AppServices(config=config, store=store, workspace=(workspace or Path.cwd()).resolve())
    services.sandbox = await make_sandbox(config, services.workspace)
    if start_mcp:
        services.start_mcp()
    return services


async def make_sandbox(config: Config, workspace: Path) -> Sandbox:
    """The sandbox `[sandbox]` asks for; bwrap is probed only when a mode other than off is."""
    from agent_tui.tools.sandbox import Probe, Sandbox, probe_async

    s = config.sandbox
    found = await probe_async() if s.mode != "off" else Probe(None, "the sandbox is off")
    sandbox = Sandbox(
        s.mode, workspace=workspace, probe=found, network=s.network, auto_approve=s.auto_approve
    )
    if sandbox.notice:
        log.warning("%s", sandbox.notice)
    return sandbox
