"""The operations a session is driven by: a closed union, the input side of the protocol whose
output side is the closed union of events (agent/events.py, core/protocol_events.py).

Every front end maps its input to these — a typed prompt, Esc, an approval dialog's answer, an
editor's `session/cancel`, a server request's JSON body — and a `SessionDriver`
(core/driver.py) carries them out with one handler per operation. The JSON form is
`{"type": "send", "text": "…"}`; docs/protocol/operations.schema.json is generated from here.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import types
import typing
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from agent_tui.policy.permission_modes import PermissionMode

ApprovalAction = Literal["allow_once", "allow_session", "allow_always", "deny"]
RewindScope = Literal["conversation", "files", "both"]


@dataclass(frozen=True)
class Operation:
    type: ClassVar[str] = "operation"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **dataclasses.asdict(self)}


@dataclass(frozen=True)
class Picture:
    """A picture a prompt carries, inline: a client on the far side of the server shares no
    files with the session, and a pasted screenshot has none (a file the session can read is
    named in the text instead, `@shot.png`)."""

    name: str
    """What the user called it (`shot.png`)."""
    media_type: str
    """What the client says it is (image/png …); the bytes' own signature decides."""
    data: str
    """The bytes, base64."""

    @classmethod
    def of(cls, name: str, data: bytes, media_type: str = "") -> Picture:
        return cls(name, media_type, base64.b64encode(data).decode("ascii"))

    def decoded(self) -> bytes:
        """The bytes; ValueError when `data` is not base64."""
        try:
            return base64.b64decode(self.data, validate=True)
        except binascii.Error as exc:
            raise ValueError(f"picture {self.name}: its data is not base64") from exc


@dataclass(frozen=True)
class Send(Operation):
    """A prompt: a turn (a custom `/command` expands first), with the pictures it carries."""

    type: ClassVar[str] = "send"
    text: str
    images: tuple[Picture, ...] = ()


@dataclass(frozen=True)
class Compact(Operation):
    """Condense the conversation now (`/compact [instructions]`)."""

    type: ClassVar[str] = "compact"
    instructions: str | None = None


@dataclass(frozen=True)
class SetModel(Operation):
    """Go on with the same conversation on another model."""

    type: ClassVar[str] = "set_model"
    name: str


@dataclass(frozen=True)
class SetMode(Operation):
    """The permission mode (Shift+Tab's cycle): default, accept_edits or plan."""

    type: ClassVar[str] = "set_mode"
    mode: PermissionMode


@dataclass(frozen=True)
class SetEffort(Operation):
    """How hard a reasoning model thinks: minimal, low, medium, high or off."""

    type: ClassVar[str] = "set_effort"
    level: str


@dataclass(frozen=True)
class Undo(Operation):
    """Put back the files the last `turns` turns changed."""

    type: ClassVar[str] = "undo"
    turns: int = 1
    force: bool = False


@dataclass(frozen=True)
class Rewind(Operation):
    """Back to just before the user message numbered `seq` in the transcript."""

    type: ClassVar[str] = "rewind"
    seq: int
    scope: RewindScope = "both"


@dataclass(frozen=True)
class Fork(Operation):
    """A copy of the session (before message `before`, or all of it) as a new session."""

    type: ClassVar[str] = "fork"
    before: int | None = None
    title: str | None = None


@dataclass(frozen=True)
class Rename(Operation):
    type: ClassVar[str] = "rename"
    title: str


@dataclass(frozen=True)
class Remember(Operation):
    """A note every session will see (the memories file)."""

    type: ClassVar[str] = "remember"
    text: str


@dataclass(frozen=True)
class ActivateSkill(Operation):
    """Load a skill into this session by hand (`/skill NAME`), kept through compaction and resume;
    an empty name lists the skills instead. Answered with a `command_reply` event."""

    type: ClassVar[str] = "activate_skill"
    name: str = ""


@dataclass(frozen=True)
class RunCommand(Operation):
    """A registry slash command a headless front end offers (`/cost`, `/diff`): its reply comes
    back as a `command_reply` event."""

    type: ClassVar[str] = "command"
    text: str


@dataclass(frozen=True)
class Review(Operation):
    """A sub-agent reviews the diff (the working tree's, or against `base`): its task call comes
    as a turn's tool call does, the findings join the conversation, then `work_finished`."""

    type: ClassVar[str] = "review"
    base: str | None = None


@dataclass(frozen=True)
class Shell(Operation):
    """`!command`: the user's own command, run unasked; the next turn's model sees it."""

    type: ClassVar[str] = "shell"
    command: str


@dataclass(frozen=True)
class Prepare(Operation):
    """The user is writing a message: get the first request's way ready meanwhile (the HTTP
    client, whether the server can count a request). Sent on every key is fine: the work is
    done once. No event: nothing the user sees changes."""

    type: ClassVar[str] = "prepare"


@dataclass(frozen=True)
class Interrupt(Operation):
    """Stop the running turn or compaction (its commands with it)."""

    type: ClassVar[str] = "interrupt"


@dataclass(frozen=True)
class Approve(Operation):
    """The answer to an `approval_requested` event."""

    type: ClassVar[str] = "approve"
    request_id: str
    action: ApprovalAction
    prefix: str | None = None
    """For allow_session / allow_always on bash: the command prefix to allow."""
    reason: str | None = None
    """For deny: what the model is told besides "the user said no" (an editor that went away)."""


Op = (
    Send
    | Compact
    | SetModel
    | SetMode
    | SetEffort
    | Undo
    | Rewind
    | Fork
    | Rename
    | Remember
    | ActivateSkill
    | RunCommand
    | Review
    | Shell
    | Prepare
    | Interrupt
    | Approve
)
"""Every operation: the closed set a driver must handle (tests/test_protocol.py checks it does)."""

OP_TYPES: tuple[type[Operation], ...] = typing.get_args(Op)
BY_TYPE: dict[str, type[Operation]] = {cls.type: cls for cls in OP_TYPES}


class BadOperation(ValueError):
    """JSON that is not an operation; the message says what is wrong in one line."""


def op_from_json(data: object) -> Op:
    """The operation `data` describes, checked field by field; BadOperation says what is wrong."""
    if not isinstance(data, dict):
        raise BadOperation("an operation is a JSON object with a `type`")
    kind = data.get("type")
    cls = BY_TYPE.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise BadOperation(f"unknown operation type {kind!r}: one of {', '.join(sorted(BY_TYPE))}")
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        if field.name not in data:
            if field.default is dataclasses.MISSING:
                raise BadOperation(f"{kind}: `{field.name}` is required")
            continue
        value = data[field.name]
        if typing.get_origin(hints[field.name]) is tuple:  # a send's pictures
            value = _items(cls.type, field.name, value, typing.get_args(hints[field.name])[0])
        elif not _fits(value, hints[field.name]):
            raise BadOperation(
                f"{kind}: `{field.name}` must be {_describe(hints[field.name])}, not {value!r:.60}"
            )
        values[field.name] = value
    extra = set(data) - {"type"} - {f.name for f in dataclasses.fields(cls)}
    if extra:
        raise BadOperation(f"{kind}: unknown field(s) {', '.join(sorted(extra))}")
    return typing.cast(Op, cls(**values))


def _items(kind: str, name: str, value: object, item: type) -> tuple[Any, ...]:
    """A list of JSON objects as a tuple of the dataclass `item`, each field checked."""
    if not isinstance(value, list):
        raise BadOperation(f"{kind}: `{name}` must be a list, not {value!r:.60}")
    fields = {f.name: f for f in dataclasses.fields(item)}
    hints = typing.get_type_hints(item)
    items = []
    for n, entry in enumerate(value):
        if not isinstance(entry, dict) or set(entry) != set(fields):
            raise BadOperation(f"{kind}: `{name}[{n}]` must be an object with {', '.join(fields)}")
        for key, got in entry.items():
            if not _fits(got, hints[key]):
                raise BadOperation(f"{kind}: `{name}[{n}].{key}` must be {_describe(hints[key])}")
        items.append(item(**entry))
    return tuple(items)


def _fits(value: object, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin is Literal:
        return value in typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, arm) for arm in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _describe(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin is Literal:
        return "one of " + ", ".join(map(repr, typing.get_args(hint)))
    if typing.get_args(hint):
        return " or ".join(_describe(arm) for arm in typing.get_args(hint))
    return {str: "a string", int: "an integer", bool: "true or false", type(None): "null"}.get(
        hint, str(hint)
    )
