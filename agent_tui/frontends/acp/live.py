"""One editor session: our AgentSession, its services, its running turn and its updates.

Built like the TUI's and `run`'s sessions (factory.build_services on the client's cwd, config
loaded for that folder with its trust), with the editor as the approver. The editor's requests
become operations (core/ops.py) on the session's own `SessionDriver`: a prompt is `send`,
`session/cancel` is `interrupt` (the loop's cancellation path saves the partial reply and the
running command's process group is killed, as on Esc in the TUI), the editor's answer to a
permission request is `approve`. The driver awaits this session's sink with each event before
the session goes on, so the editor is shown a tool call (and for bash has its terminal) before
the tool runs, and is asked about a call it already shows.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import schema as s
from acp.helpers import update_agent_message_text

from agent_tui.agent import events as ev
from agent_tui.base.errors_text import one_line
from agent_tui.core import ops
from agent_tui.core import protocol_events as pe
from agent_tui.core.commands import withheld_text
from agent_tui.core.driver import SessionDriver
from agent_tui.core.protocol_events import ends
from agent_tui.extensions.commands import discover, withheld_invoked
from agent_tui.frontends.acp import slash
from agent_tui.frontends.acp.editor_fs import EditorBuffers, use_editor_buffers
from agent_tui.frontends.acp.permission import editor_approver
from agent_tui.frontends.acp.terminal import EditorTerminals, use_editor_terminal
from agent_tui.frontends.acp.translate import TurnUpdates, notice
from agent_tui.policy.permission_modes import BY_NAME, DECLARED, EDITOR_IDS, ModeDeclaration, parse_mode

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from agent_tui.agent.session import AgentSession
    from agent_tui.compose.factory import AppServices
    from agent_tui.config import Config
    from agent_tui.context.budget import ContextBudget
    from agent_tui.extensions.commands import CustomCommand

log = logging.getLogger(__name__)


def editor_mode(mode: ModeDeclaration) -> s.SessionMode:
    """A declared permission mode (policy/permission_modes.py) as an editor's picker shows it."""
    return s.SessionMode(id=mode.editor_id, name=mode.title, description=mode.description)


def with_editor_mcp(config: Config, servers: list[Any] | None) -> tuple[Config, list[str]]:
    """The client's stdio MCP servers added to the config's (sandboxed like ours), and a notice
    per server we cannot start (http / sse: not advertised, so a client should not send them)."""
    if not servers:
        return config, []
    table = dict(config.mcp.servers)
    skipped = []
    for server in servers:
        if not isinstance(server, s.McpServerStdio):
            skipped.append(f"MCP server {getattr(server, 'name', '?')}: only stdio servers are supported")
            continue
        name = re.sub(r"[^A-Za-z0-9_-]", "_", server.name) or "editor"
        table[name] = {
            "command": server.command,
            "args": list(server.args),
            "env": {v.name: v.value for v in server.env},
        }
    return replace(config, mcp=replace(config.mcp, servers=table)), skipped


class LiveSession:
    """A session the editor holds open in this process."""

    def __init__(
        self, services: AppServices, client: Any, capabilities: s.ClientCapabilities | None = None
    ) -> None:

        self.driver = SessionDriver(services, sink=self._deliver)
        """Where the editor's requests go as operations; its approver asks through events."""
        self.client = client
        self.capabilities = capabilities
        self.session: AgentSession | None = None
        self.updates: TurnUpdates | None = None
        self.task: asyncio.Task[s.StopReason] | None = None
        self.pending_notices: list[str] = []
        self.acp_id: str | None = None
        """The id the editor knows this session by: the first stored session's; a /clear moves
        the conversation to a new stored session behind the same editor session."""
        self.terminals = EditorTerminals(
            client,
            lambda: self.session_id,
            lambda call_id: self.updates is not None and call_id in self.updates.shown_calls,
        )

    @property
    def session_id(self) -> str:
        """The editor's id for this session (what every update and request names)."""
        if self.acp_id is not None:
            return self.acp_id
        assert self.session is not None
        return self.session.session_id

    @property
    def workspace(self) -> Path:
        return self.services.workspace

    def attach(self, session: AgentSession) -> None:
        """Take `session` as this editor session's, with the editor's buffers and terminal used
        where the client offers them."""
        self.session = self.driver.session = session
        if self.acp_id is None:
            self.acp_id = session.session_id
        self.updates = TurnUpdates(session, self.terminals.by_call)
        caps = self.capabilities
        fs = caps.fs if caps is not None else None
        if fs is not None and fs.read_text_file:
            use_editor_buffers(
                session.runner.registry,
                EditorBuffers(self.client, lambda: self.session_id),
                write_through=bool(fs.write_text_file),
            )
        if caps is not None and caps.terminal:
            use_editor_terminal(session.runner.registry, self.terminals)

    @property
    def services(self) -> AppServices:
        return self.driver.services

    @services.setter
    def services(self, services: AppServices) -> None:
        self.driver.services = services

    def approver(self) -> Any:
        """What this session's calls ask: the driver, whose `approval_requested` event the sink
        answers with the editor's choice."""
        return self.driver.ask

    async def _deliver(self, event_id: int, event: ev.AgentEvent) -> None:
        """Each event as the editor's updates, sent before the session goes on."""
        if isinstance(event, pe.ApprovalRequested):
            ask_editor = editor_approver(
                self.client,
                lambda: self.session_id,
                self.workspace,
                lambda: self.updates.current_call if self.updates else None,
            )
            decision = await ask_editor(event.question())  # about the call the editor was last told of
            answer = ops.Approve(event.request_id, decision.action, decision.prefix, decision.reason)
            await self.driver.submit(answer)
        elif isinstance(event, pe.SessionReplaced):  # set_model: the same conversation, rebuilt
            assert self.driver.session is not None
            self.attach(self.driver.session)
        elif isinstance(event, ev.TurnEvent) and self.updates is not None:
            for update in self.updates.updates(event):
                await self.send(update)

    # -- modes -------------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        """The editor's id for the session's permission mode, whichever mode it was stored in."""
        return BY_NAME[self.require().mode].editor_id

    def offered_modes(self) -> list[ModeDeclaration]:
        """Every declared mode this session can take (`auto` only where the sandbox runs)."""
        return [m for m in DECLARED if self.services.sandbox is not None or not m.needs_sandbox]

    def modes(self) -> s.SessionModeState:
        return s.SessionModeState(
            current_mode_id=self.mode, available_modes=[editor_mode(m) for m in self.offered_modes()]
        )

    async def set_mode(self, mode_id: str) -> bool:
        """The `set_mode` operation on this session alone: it is stored and resumed with it.
        `mode_id` is an editor id or a `--permission-mode` spelling (`acceptEdits`)."""
        name = EDITOR_IDS.get(mode_id) or parse_mode(mode_id)
        if name is None or BY_NAME[name] not in self.offered_modes():
            return False
        await self.driver.submit(ops.SetMode(name))
        return self.require().mode == name

    async def start_in_configured_mode(self) -> None:
        """`[sandbox] auto_approve` opens an editor session in default mode as `auto`; from
        then on the session's mode alone decides, so the editor's `ask` asks. The switch is
        turned off on these services only: they are this session's own (built when it opened)."""
        sandbox = self.services.sandbox
        if sandbox is not None and sandbox.auto_approve:
            sandbox.auto_approve = False
            if self.session is not None and self.session.mode == "default":
                await self.driver.submit(ops.SetMode("auto_sandboxed"))

    # -- talking to the editor -------------------------------------------------------------

    async def send(self, update: Any) -> None:
        try:
            await self.client.session_update(session_id=self.session_id, update=update)
        except ConnectionError:
            log.info("update not sent: the editor is gone")

    async def greet(self) -> None:
        """After session/new or load: the commands, and the notices (trust, MCP) as a message."""
        await self.send(slash.available_commands(self.custom_commands()))
        for line in self.pending_notices:
            await self.send(notice(line))
        self.pending_notices.clear()

    def custom_commands(self) -> list[CustomCommand]:
        """The user's and (in a trusted folder) the project's Markdown commands."""

        session = self.require()
        return list(discover(session.workspace, session.config.provenance.folder_trusted).commands.values())

    def withheld_command(self, text: str) -> tuple[str, str] | None:
        """The untrusted folder's own command `text` invokes (name, file), as every front end
        names it rather than running a built-in in its place or sending it to the model."""

        session = self.require()
        return withheld_invoked(text, session.workspace, session.config.provenance.folder_trusted)

    async def send_usage(self, budget: ContextBudget | None = None, *, force: bool = True) -> None:
        assert self.updates is not None
        for update in self.updates.usage(budget, force=force):
            await self.send(update)

    async def run(self, operation: ops.Op) -> pe.WorkFinished | None:
        """Submit `operation` and wait for its end (its updates went out through the sink); the
        work's end, or None when it was answered without work. A cancelled wait interrupts it."""
        try:
            async for event in self.driver.drive(operation):
                if not ends(operation, event):
                    continue
                if isinstance(event, pe.WorkFinished):
                    if event.state == "failed":
                        raise RuntimeError(event.message or f"{operation.type} failed")
                    return event
                if isinstance(event, pe.OperationRefused):
                    raise RuntimeError(event.message)
                return None
        except asyncio.CancelledError:  # the connection is closing: the work ends with it
            await self.driver.submit(ops.Interrupt())
            raise
        return None

    async def answer(self, operation: ops.Op) -> pe.CommandReplied:
        """Submit a command's operation; its reply (a refusal raises, as for `run`)."""
        async for event in self.driver.drive(operation):
            if isinstance(event, pe.CommandReplied):
                return event
            if isinstance(event, pe.OperationRefused) and ends(operation, event):
                raise RuntimeError(event.message)
        raise RuntimeError(f"{operation.type}: no reply")

    def use_config(self, config: Config) -> None:
        self.services = replace(self.services, config=config)

    def require(self) -> AgentSession:
        assert self.session is not None
        return self.session

    async def replace(self, opening: Awaitable[AgentSession]) -> AgentSession:
        """Put another stored session (/clear) or the same one rebuilt (/model) behind this
        editor session; the old one is closed, its background commands kept when it is the same."""
        old = self.require()
        session = await opening
        same = session.session_id == old.session_id
        if same:
            session.keep_background_of(old)
        await old.close()
        if same and self.services.store is not None:
            await self.services.store.leases.acquire(session.session_id)  # the old one gave it back
        self.attach(session)
        return session

    # -- turns -------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()

    def start(self, text: str, images: tuple[ops.Picture, ...] = ()) -> asyncio.Task[s.StopReason]:
        """The prompt's turn (or command); `images`: the pictures a turn's message carries."""
        self.task = asyncio.create_task(self._run(text, images), name=f"acp-turn-{self.session_id}")
        return self.task

    async def cancel(self) -> None:
        """`session/cancel`: the running work is interrupted (a command without work is cancelled)."""
        if self.driver.busy:
            await self.driver.submit(ops.Interrupt())
        elif self.busy:
            assert self.task is not None
            self.task.cancel()

    async def _run(self, text: str, images: tuple[ops.Picture, ...]) -> s.StopReason:
        assert self.updates is not None
        slashed = text.lstrip().startswith("/")
        custom = [c.name for c in self.custom_commands()] if slashed else []
        held = self.withheld_command(text) if slashed else None
        command = slash.parse(text, custom, [held[0].lower()] if held else [])
        self.updates.stop_reason = "end_turn"
        if command is None and held is not None:  # the folder's own, off until trusted: named
            said = withheld_text(*held, trust_with="`agent-tui trust add`")
            await self.send(update_agent_message_text(said + "\n"))
            return "end_turn"
        if command is not None:
            found, argument = command
            try:
                reply = await slash.answer(self, found, argument)
            except Exception as exc:  # a failed command is one line in the chat, never a crash
                log.exception("/%s failed", found.name)
                reply = f"/{found.name} failed: {one_line(exc, 200)}"
            if reply:
                await self.send(update_agent_message_text(reply.rstrip() + "\n"))
            return "end_turn"
        # The first request offers the MCP servers' tools (the editor's and the config's):
        # wait for them once, bounded by [mcp] startup_timeout, as headless mode does.
        await self.services.mcp_ready()
        end = await self.run(ops.Send(text, images))  # a custom /command expands first
        if end is not None and end.state == "interrupted":
            return "cancelled"
        return self.updates.stop_reason

    async def close(self, grace: float = 1.0) -> None:
        """End the running turn (its commands with it), then the session's services."""
        if self.task is not None and not self.task.done():
            self.task.cancel()  # a running operation is interrupted by its wait (`run`)
            await asyncio.wait([self.task], timeout=grace)
        if self.driver.busy:
            await asyncio.wait([asyncio.create_task(self.driver.submit(ops.Interrupt()))], timeout=grace)
        try:
            await self.services.close()
        except Exception:
            log.exception("closing an editor session's services failed")


def prompt_text(blocks: list[Any], workspace: Path) -> tuple[str, list[str]]:
    """The prompt's blocks as one message, and a notice per block we cannot take.

    A linked workspace file becomes an `@path` attachment (whole when small, a view with a ref
    when large); an embedded resource (an unsaved buffer, a selection) is quoted with its uri."""
    parts: list[str] = []
    skipped: list[str] = []
    for block in blocks:
        if isinstance(block, s.TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, s.ResourceContentBlock):
            parts.append(_mention(block.uri, workspace))
        elif isinstance(block, s.ImageContentBlock):
            continue  # frontends/acp/images.py takes these
        elif isinstance(block, s.EmbeddedResourceContentBlock):
            resource = block.resource
            text = getattr(resource, "text", None)
            if text is None:
                skipped.append(f"{resource.uri}: binary resources are not supported")
                continue
            parts.append(f"\n{resource.uri}:\n```\n{text}\n```\n")
        else:
            skipped.append(f"{getattr(block, 'type', '?')} content is not supported")
    return " ".join(p for p in parts if p), skipped


def _mention(uri: str, workspace: Path) -> str:
    from urllib.parse import unquote, urlparse

    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    path = Path(unquote(parsed.path))
    try:
        relative = path.resolve().relative_to(workspace.resolve())
    except (ValueError, OSError):
        return str(path)
    return f"@{relative.as_posix()}"
