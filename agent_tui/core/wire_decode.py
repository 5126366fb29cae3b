"""JSON back into the protocol's dataclasses, for a front end on the far side of the server: an
attached TUI renders `ToolCallFinished`, `BudgetMeasured`, a compaction's result or a listed blob
with the same code that renders them in-process, so it needs the objects, not dicts.

Decoding is read off the declarations themselves (each field's type hint), the way the JSON
Schema is (core/protocol_schema.py): an event or a nested type that gains a field needs nothing
here. Keys a `to_json` adds that are no fields (a budget's derived `used`) are ignored; the few
fields `to_json` renames are in `RENAMED`.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, Literal, TypeVar

from agent_tui.agent.events import AgentEvent
from agent_tui.core.protocol_events import PROTOCOL_EVENT_TYPES
from agent_tui.core.protocol_schema import _names, _type_checking_names

T = TypeVar("T")

RENAMED: dict[tuple[str, str], str] = {
    ("TodoItem", "active_form"): "activeForm",  # Claude Code's TodoWrite shape
    ("CompactResult", "unused"): "instructions_unused",
}
"""(class, field) → the key its `to_json` writes it under, where the two differ."""


class WireError(ValueError):
    """JSON that does not decode to the type asked for; the message names where."""


@functools.cache
def hints(cls: type) -> dict[str, Any]:
    """`cls`'s field types, with the names its module imports only for type checking."""
    import sys

    own = _type_checking_names(sys.modules[cls.__module__])
    return typing.get_type_hints(cls, localns={**_names(), **own})


def decode(cls: type[T], data: Any) -> T:
    """An instance of the dataclass `cls` from its JSON form."""
    return typing.cast(T, _value(cls, data, cls.__name__))


def _value(hint: Any, data: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if origin is Literal or hint in (str, int, float, bool, Any) or hint is typing.Any:
        return float(data) if hint is float and isinstance(data, int) else data
    if hint is type(None):
        return None
    if origin in (typing.Union, types.UnionType):
        arms = typing.get_args(hint)
        if data is None and type(None) in arms:
            return None
        return _value(next(a for a in arms if a is not type(None)), data, where)
    if origin is tuple or origin is list:
        args = [a for a in typing.get_args(hint) if a is not Ellipsis]
        if not isinstance(data, list):
            raise WireError(f"{where}: expected a list, got {type(data).__name__}")
        if origin is tuple and len(args) > 1 and len(typing.get_args(hint)) == len(args):
            items = [_value(a, d, where) for a, d in zip(args, data, strict=False)]
        else:
            items = [_value(args[0] if args else Any, d, where) for d in data]
        return tuple(items) if origin is tuple else items
    if origin is dict or hint is dict:
        return data
    if isinstance(hint, type) and issubclass(hint, AgentEvent) and hint is AgentEvent:
        return event_from_json(data)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass(hint, data, where)
    return data


def _dataclass(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise WireError(f"{where}: expected an object for {cls.__name__}")
    declared = hints(cls)
    values: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        key = RENAMED.get((cls.__name__, field.name), field.name)
        if key in data:
            values[field.name] = _value(declared[field.name], data[key], f"{where}.{field.name}")
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise WireError(f"{where}: `{key}` is missing")
    return cls(**values)


BY_TYPE: dict[str, type[AgentEvent]] = {cls.type: cls for cls in PROTOCOL_EVENT_TYPES}


def event_from_json(data: Any) -> AgentEvent:
    """The event `data` (one `to_json()`, as the server streams it) describes."""
    if not isinstance(data, dict) or data.get("type") not in BY_TYPE:
        kind = data.get("type") if isinstance(data, dict) else None
        raise WireError(f"not a protocol event: type {kind!r}")
    cls = BY_TYPE[data["type"]]
    return typing.cast(AgentEvent, _dataclass(cls, data, cls.type))
