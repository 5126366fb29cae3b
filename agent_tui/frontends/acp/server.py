"""The ACP agent: the protocol's methods answered with our sessions.

`serve` runs it over the claimed stdio until the client closes stdin; then every running turn is
cancelled (its commands' process groups killed) and the sessions' services closed, within a bound.
Errors a client can cause (unknown session, bad config for its folder, a session open elsewhere)
come back as JSON-RPC errors with one clear line; nothing a client sends ends the process.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from acp import PROTOCOL_VERSION, RequestError
from acp import schema as s

from agent_tui import __version__
from agent_tui.compose.factory import build_services, db_path_for, store_settings
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import ConfigError, load_config
from agent_tui.frontends.acp.images import editor_images
from agent_tui.frontends.acp.live import LiveSession, prompt_text, with_editor_mcp
from agent_tui.frontends.acp.replay import replay
from agent_tui.frontends.acp.stdio import LineTransport, open_streams
from agent_tui.frontends.acp.translate import notice
from agent_tui.store import StoreError, open_store

if TYPE_CHECKING:
    from acp import Agent

    from agent_tui.frontends.acp.stdio import ProtocolFds

log = logging.getLogger(__name__)

LIST_LIMIT = 200
"""Sessions `session/list` returns (newest first; no paging)."""
SHUTDOWN_GRACE = 1.2
"""Seconds the running turns get to end (commands killed, partial replies saved) on EOF."""


class AgentTuiAgent:
    """Implements the SDK's Agent protocol; one instance per connection."""

    def __init__(self, overrides: dict[str, dict[str, Any]], db: Path | None = None) -> None:
        self.overrides = overrides
        self.db = db
        self.client: Any = None
        self.client_capabilities: s.ClientCapabilities | None = None
        self.sessions: dict[str, LiveSession] = {}

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: s.ClientCapabilities | None = None,
        client_info: s.Implementation | None = None,
        **kwargs: Any,
    ) -> s.InitializeResponse:
        # We speak version 1; a client asking for another gets ours and decides.
        self.client_capabilities = client_capabilities
        log.info("ACP client %s asked for protocol %s", client_info, protocol_version)
        return s.InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=s.AgentCapabilities(
                load_session=True,
                prompt_capabilities=s.PromptCapabilities(image=True, audio=False, embedded_context=True),
                mcp_capabilities=s.McpCapabilities(http=False, sse=False),
                session_capabilities=s.SessionCapabilities(list=s.SessionListCapabilities()),
            ),
            auth_methods=[],
            agent_info=s.Implementation(name="agent-tui", title="agent-tui", version=__version__),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> s.AuthenticateResponse:
        return s.AuthenticateResponse()

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> s.NewSessionResponse:
        live = await self._open(cwd, mcp_servers, None)
        return s.NewSessionResponse(session_id=live.session_id, modes=live.modes())

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> s.LoadSessionResponse:
        if session_id in self.sessions:
            raise RequestError.invalid_params({"details": f"session {session_id} is already open here"})
        live = await self._open(cwd, mcp_servers, session_id)
        return s.LoadSessionResponse(modes=live.modes())

    async def _open(self, cwd: str, mcp_servers: list[Any] | None, resume: str | None) -> LiveSession:

        folder = Path(cwd).expanduser()
        if not folder.is_absolute() or not folder.is_dir():
            raise RequestError.invalid_params({"details": f"cwd must be an existing absolute folder: {cwd}"})
        try:
            # Trust as the folder's own: an untrusted folder's project settings are ignored,
            # as in headless mode, and the notices say so in the chat.
            loaded = load_config(rule_words=SHIPPED_WORDS, overrides=self.overrides, cwd=folder)
        except ConfigError as exc:
            raise RequestError.invalid_params({"details": str(exc)}) from None
        config, skipped = with_editor_mcp(loaded.config, mcp_servers)
        try:
            services = await build_services(config, workspace=folder, db_path=self.db)
        except StoreError as exc:
            raise RequestError.internal_error({"details": str(exc)}) from None
        live = LiveSession(services, self.client, self.client_capabilities)
        live.pending_notices = [*loaded.notices, *skipped, *services.notices]
        if services.sandbox is not None and services.sandbox.notice:
            live.pending_notices.append(services.sandbox.notice)
        try:
            if resume is None:
                session = await services.new_session(live.approver())
                history = None
            else:
                session = await services.resume_session(resume, live.approver())
                history = await services.store.sessions.transcript(resume)
        except (ConfigError, StoreError) as exc:  # no model, unknown session, open elsewhere
            await services.close()
            raise RequestError.invalid_params({"details": str(exc)}) from None
        live.attach(session)
        await live.start_in_configured_mode()
        self.sessions[session.session_id] = live
        if history is not None:
            # The replay is part of the load: the client gets it before the response.
            for update in replay(history):
                await live.send(update)
        # After the response (the client must know the session first): commands, notices, meter.
        asyncio.get_running_loop().create_task(self._greet(live))
        return live

    async def _greet(self, live: LiveSession) -> None:
        await live.greet()
        await live.send_usage()

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> s.ListSessionsResponse:
        """The stored sessions (the TUI's, `run`'s and editors'), newest first; of `cwd` when given."""
        from datetime import datetime

        folder = Path(cwd).expanduser().resolve() if cwd else None
        try:
            config = load_config(rule_words=SHIPPED_WORDS, overrides=self.overrides, cwd=folder).config
            store = await open_store(db_path_for(config, self.db), store_settings(config))
        except (ConfigError, StoreError) as exc:
            raise RequestError.internal_error({"details": str(exc)}) from None
        try:
            found = await store.sessions.list(str(folder) if folder else None, limit=LIST_LIMIT)
        finally:
            await store.close()
        return s.ListSessionsResponse(
            sessions=[
                s.SessionInfo(
                    session_id=info.id,
                    cwd=info.project,
                    title=info.title,
                    updated_at=datetime.fromtimestamp(info.updated, UTC).isoformat(),
                )
                for info in found
            ]
        )

    def _live(self, session_id: str) -> LiveSession:
        live = self.sessions.get(session_id)
        if live is None:
            raise RequestError.invalid_params({"details": f"unknown session {session_id}"})
        return live

    async def set_session_mode(
        self, mode_id: str, session_id: str, **kwargs: Any
    ) -> s.SetSessionModeResponse:
        live = self._live(session_id)
        if not await live.set_mode(mode_id):
            known = ", ".join(m.editor_id for m in live.offered_modes())
            raise RequestError.invalid_params({"details": f"unknown mode {mode_id} (one of {known})"})
        return s.SetSessionModeResponse()

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> s.PromptResponse:
        live = self._live(session_id)
        if live.busy:
            raise RequestError.invalid_request({"details": "a prompt is already running in this session"})
        text, skipped = prompt_text(prompt, live.workspace)
        images, bad = editor_images(prompt)  # frontends/acp/images.py: the same attachments as `@shot.png`
        for line in skipped + bad:
            await live.send(_notice(line))
        if not text.strip() and not images:
            return s.PromptResponse(stop_reason="end_turn")
        task = live.start(text, tuple(images))
        try:
            stop = await task
        except asyncio.CancelledError:
            me = asyncio.current_task()
            if me is not None and me.cancelling():  # the connection is closing, not a cancel
                task.cancel()
                await asyncio.wait([task], timeout=SHUTDOWN_GRACE)
                raise
            return s.PromptResponse(stop_reason="cancelled")
        return s.PromptResponse(stop_reason=stop)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        live = self.sessions.get(session_id)
        if live is not None:
            await live.cancel()

    async def shutdown(self) -> None:
        """Every session's turn ended and its services closed, together, within the grace."""
        lives = list(self.sessions.values())
        self.sessions.clear()
        if lives:
            await asyncio.gather(*(live.close(SHUTDOWN_GRACE) for live in lives), return_exceptions=True)


def _notice(line: str) -> Any:

    return notice(line)


async def serve(fds: ProtocolFds, overrides: dict[str, dict[str, Any]], db: Path | None) -> int:
    """Speak ACP on the claimed descriptors until the client closes stdin."""
    from acp.agent.connection import AgentSideConnection

    reader, writer = await open_streams(fds)
    agent = AgentTuiAgent(overrides, db)
    transport = LineTransport(reader, writer)
    # AgentTuiAgent implements the SDK's Agent protocol by its methods (no subclassing).
    conn = AgentSideConnection(cast("Agent", agent), transport, listening=False)
    try:
        await conn.listen()
        log.info("the client closed stdin: ending %d session(s)", len(agent.sessions))
    finally:
        try:
            await asyncio.wait_for(asyncio.shield(_close(conn, agent)), timeout=SHUTDOWN_GRACE + 0.5)
        except TimeoutError:
            log.warning("shutdown took too long; exiting anyway")
    return 0


async def _close(conn: Any, agent: AgentTuiAgent) -> None:
    # Cancel the turns first, so their last updates and the cancelled answers can still go out.
    await agent.shutdown()
    log.info("sessions closed")
    await conn.close()
