"""The events a `SessionDriver` adds to a turn's (agent/events.py): approvals asked and
answered, command replies, refused operations, a session replaced or forked, work finished.
With the turn's events they are the output side of the protocol (`ProtocolEvent`), the closed
union docs/protocol/events.schema.json is generated from.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from agent_tui.agent.events import AgentEvent, TurnEvent
from agent_tui.core.replies import Reply
from agent_tui.tools.approval_request import ApprovalRequest

if TYPE_CHECKING:
    from agent_tui.core.ops import Operation

if typing.TYPE_CHECKING:
    from agent_tui.tools.approval_request import ApprovalRequest

if TYPE_CHECKING:
    from agent_tui.core.ops import Operation


@dataclass(frozen=True)
class ApprovalRequested(AgentEvent):
    """A call waits for a client's `approve` operation; denied after `timeout` seconds."""

    type: ClassVar[str] = "approval_requested"
    request_id: str
    tool: str
    arguments: dict[str, Any]
    preview: str
    suggested_prefix: str | None
    sandbox: str | None
    once_only: bool
    protected: bool
    timeout: float
    agent: str | None = None
    """The sub-agent that asks (what its parent's task call said it is for); None: the session."""

    def question(self) -> ApprovalRequest:
        """What the approver is asked, as a front end that answers in process shows it."""

        return ApprovalRequest(
            self.tool,
            self.arguments,
            self.preview,
            self.suggested_prefix,
            self.sandbox,
            self.once_only,
            self.protected,
        )


@dataclass(frozen=True)
class ApprovalResolved(AgentEvent):
    type: ClassVar[str] = "approval_resolved"
    request_id: str
    action: Literal["allow_once", "allow_session", "allow_always", "deny"]
    by: Literal["client", "timeout", "interrupt"]


@dataclass(frozen=True)
class CommandReplied(AgentEvent):
    """What a command operation (or set_effort, set_mode, undo, rename, remember, activate_skill, rewind) answered."""

    type: ClassVar[str] = "command_reply"
    title: str
    text: str
    """The whole reply as plain text (`Reply.plain`): what a client that renders no structure prints."""
    level: Literal["info", "warning", "error"]
    prose: str = ""
    """The parts, for a client that renders them its own way (the TUI's block, an editor's
    Markdown): the prose before anything else, label/value rows, a preformatted block (and its
    language), the prose after it."""
    rows: tuple[tuple[str, str], ...] = ()
    block: str = ""
    block_lang: str = ""
    tail: str = ""
    renamed: str | None = None
    """The session's new title (after `rename`), for a client that shows it."""

    @classmethod
    def of(cls, reply: Reply) -> CommandReplied:
        return cls(
            reply.title,
            reply.plain(),
            reply.level,
            reply.text,
            reply.rows,
            reply.block,
            reply.block_lang,
            reply.tail,
            reply.renamed,
        )

    def reply(self) -> Reply:
        """The effect's `Reply` again, to render with the same code as in process."""
        return Reply(
            self.title,
            self.prose,
            self.rows,
            self.block,
            self.block_lang,
            self.tail,
            self.level,
            self.renamed,
        )


@dataclass(frozen=True)
class OperationRefused(AgentEvent):
    """An operation that could not run now, and why (busy, an unknown request id, …)."""

    type: ClassVar[str] = "operation_refused"
    operation: str
    message: str


@dataclass(frozen=True)
class SessionReplaced(AgentEvent):
    """The conversation goes on in this session (a model switch rebuilds it)."""

    type: ClassVar[str] = "session_replaced"
    session_id: str
    model: str


@dataclass(frozen=True)
class SessionForked(AgentEvent):
    type: ClassVar[str] = "session_forked"
    session_id: str
    title: str | None


@dataclass(frozen=True)
class WorkFinished(AgentEvent):
    """A send, compact or shell operation is over: done, failed or interrupted."""

    type: ClassVar[str] = "work_finished"
    operation: str
    state: Literal["done", "failed", "interrupted"]
    message: str | None = None


ProtocolEvent = (
    TurnEvent
    | ApprovalRequested
    | ApprovalResolved
    | CommandReplied
    | OperationRefused
    | SessionReplaced
    | SessionForked
    | WorkFinished
)
"""Everything a client of a session sees: the turn's events and the driver's."""

PROTOCOL_EVENT_TYPES: tuple[type[AgentEvent], ...] = typing.get_args(ProtocolEvent)

FINAL_EVENTS = (WorkFinished, OperationRefused, CommandReplied, SessionReplaced, SessionForked)
"""The events that end an operation: its work (a send, compact, review or shell) finished, it was
refused or answered, (a model switch) the conversation went on in a rebuilt session, or (a fork)
the copy was stored."""


def ends(op: Operation, event: AgentEvent) -> bool:
    """Whether `event` ends `op`: one of FINAL_EVENTS, and not the end (or refusal) of another
    operation — a turn that finishes while a command submitted meanwhile is answered."""
    if isinstance(event, WorkFinished | OperationRefused) and event.operation != op.type:
        return False
    return isinstance(event, FINAL_EVENTS)
