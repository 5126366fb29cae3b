"""Every protocol event survives the wire: `to_json()` and back (core/wire_decode.py) gives the
same object, nested types and all — what an attached TUI renders is what the server's session
emitted. Samples are built from the declarations, so an event or field added later is covered."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from typing import Any, Literal

import pytest

from agent_tui.agent import events as ev
from agent_tui.core.context_report import ContextReport
from agent_tui.core.protocol_events import PROTOCOL_EVENT_TYPES
from agent_tui.core.wire_decode import WireError, decode, event_from_json, hints
from agent_tui.store.models import BlobInfo, RecallHit, ResolvedRef


def sample(hint: Any, n: int = 0) -> Any:
    """A value of `hint` with no field at its default (a dropped field would show)."""
    origin = typing.get_origin(hint)
    if origin is Literal:
        return typing.get_args(hint)[-1]
    if origin in (typing.Union, types.UnionType):
        return sample(next(a for a in typing.get_args(hint) if a is not type(None)), n)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return (sample(args[0], n + 1),)
        return tuple(sample(a, n + i) for i, a in enumerate(args))
    if origin is list:
        return [sample(typing.get_args(hint)[0], n + 1)]
    if origin is dict or hint is dict:
        return {"k": [1, "v"]}
    if hint is ev.AgentEvent:
        return ev.TextDelta("inner")
    if hint is str:
        return f"s{n}"
    if hint is bool:
        return True
    if hint is int:
        return 7 + n
    if hint is float:
        return 0.625 + n
    if dataclasses.is_dataclass(hint):
        declared = hints(hint)
        return hint(
            **{
                f.name: sample(declared[f.name], n + i)
                for i, f in enumerate(dataclasses.fields(hint))
                if f.init
            }
        )
    raise AssertionError(f"no sample for {hint!r}")


@pytest.mark.parametrize("cls", PROTOCOL_EVENT_TYPES, ids=lambda c: c.type)
def test_every_event_round_trips(cls):
    event = sample(cls)
    wire = json.loads(json.dumps(event.to_json(), default=str))
    assert event_from_json(wire) == event


@pytest.mark.parametrize("cls", [ContextReport, BlobInfo, RecallHit, ResolvedRef])
def test_what_an_attached_tui_reads_round_trips(cls):
    from agent_tui.agent.events import _jsonable

    value = sample(cls)
    assert decode(cls, json.loads(json.dumps(_jsonable(value)))) == value


def test_json_that_is_no_event_is_refused_with_its_type():
    with pytest.raises(WireError, match="nonsense"):
        event_from_json({"type": "nonsense"})
    with pytest.raises(WireError, match="text"):
        event_from_json({"type": "text_delta"})
