"""The JSON Schema of the protocol's two closed unions — the operations a client sends
(core/ops.py) and the events it receives (core/protocol_events.py) — generated from their
declarations into docs/protocol/ (docs_gen.py; tests/test_docs_generated.py checks the copies)
and served by `agent-tui serve` at /v1/schema/{operations,events}.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from typing import Any, Literal

from agent_tui.agent import events
from agent_tui.agent.events import AgentEvent
from agent_tui.core import ops, protocol_events
from agent_tui.core.ops import OP_TYPES, Operation
from agent_tui.core.protocol_events import PROTOCOL_EVENT_TYPES


def _type_checking_names(*modules: types.ModuleType) -> dict[str, Any]:
    """The names `modules` import only under `if TYPE_CHECKING:`, imported now: what their
    dataclasses' string annotations name. Read from the modules themselves, so an event that
    gains a field of a new type needs no table here."""
    import ast
    import importlib
    import inspect

    found: dict[str, Any] = {}
    for module in modules:
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
                for stmt in node.body:
                    if isinstance(stmt, ast.ImportFrom) and stmt.module:
                        relative = "." * stmt.level + stmt.module  # `from .record import …` too
                        source = importlib.import_module(relative, module.__package__)
                        for alias in stmt.names:
                            found[alias.asname or alias.name] = getattr(source, alias.name)
    return found


@functools.cache
def _names() -> dict[str, Any]:

    return _type_checking_names(events, protocol_events, ops)


DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _doc(cls: type) -> str:
    return " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())


def _schema(hint: Any, defs: dict[str, Any]) -> dict[str, Any]:
    origin = typing.get_origin(hint)
    if origin is Literal:
        return {"enum": list(typing.get_args(hint))}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_schema(arm, defs) for arm in typing.get_args(hint)]}
    if origin in (list, tuple):
        args = [a for a in typing.get_args(hint) if a is not Ellipsis]
        return {"type": "array", "items": _schema(args[0], defs) if args else {}}
    if origin is dict or hint is dict:
        return {"type": "object"}
    simple = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}
    if hint in simple:
        return {"type": simple[hint]}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        name = hint.__name__
        if name not in defs:
            defs[name] = {}  # placed first: a type that names itself ends here
            if hasattr(hint, "to_json"):  # its own JSON shape: named and described, not spelled out
                defs[name] = {"type": "object", "description": _doc(hint)}
            else:
                defs[name] = _object(hint, defs, tag=None)
        return {"$ref": f"#/$defs/{name}"}
    return {}


def _object(cls: type, defs: dict[str, Any], tag: str | None) -> dict[str, Any]:
    hints = typing.get_type_hints(cls, localns=_names())
    properties: dict[str, Any] = {}
    required: list[str] = []
    if tag is not None:
        properties["type"] = {"const": tag}
        required.append("type")
    for field in dataclasses.fields(cls):
        properties[field.name] = _schema(hints[field.name], defs)
        if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            required.append(field.name)
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if _doc(cls):
        schema["description"] = _doc(cls)
    return schema


def union_schema(
    title: str, members: tuple[type[Operation], ...] | tuple[type[AgentEvent], ...]
) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    arms = []
    for cls in members:
        body = _object(cls, defs, tag=cls.type)
        if issubclass(cls, Operation):
            body["additionalProperties"] = False  # the server refuses unknown fields
        defs[cls.__name__] = body
        arms.append({"$ref": f"#/$defs/{cls.__name__}"})
    return {"$schema": DRAFT, "title": title, "oneOf": arms, "$defs": dict(sorted(defs.items()))}


def operations_schema() -> dict[str, Any]:
    return union_schema("agent-tui operation", OP_TYPES)


def events_schema() -> dict[str, Any]:
    return union_schema("agent-tui event", PROTOCOL_EVENT_TYPES)


def as_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
