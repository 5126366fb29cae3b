"""TOML values into the declared types: each key checked against its section's type hints.

An unknown section or key, or a value of the wrong type, is a `ConfigError` whose one line names
the file, the key and what was expected. Ranges and choices are the validation pass's
(config/checks.py), run once on the merged result.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any

from agent_tui.base.toml_files import ConfigError
from agent_tui.config.schema import Config

# Each section's field is built by its class, so the factory *is* the section type.
SECTION_TYPES: dict[str, type] = {
    f.name: f.default_factory  # type: ignore[misc]  # every Config field has a section factory
    for f in dataclasses.fields(Config)
    if f.metadata.get("section", True)
}
HINTS = {name: typing.get_type_hints(cls) for name, cls in SECTION_TYPES.items()}
"""Section → key → its Python type."""


def describe_type(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        parts = [describe_type(a) for a in typing.get_args(tp) if a is not type(None)]
        return " or ".join(parts)
    if origin is list:
        (item,) = typing.get_args(tp) or (str,)
        return "a list of tables" if typing.get_origin(item) is dict else "a list of strings"
    if origin is dict:
        return "a table"
    return {int: "an integer", float: "a number", bool: "true or false", str: "a string"}.get(tp, str(tp))


def coerce(value: Any, tp: Any) -> Any:
    """Return `value` as `tp`, or raise TypeError. Ints are accepted where floats are expected."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if value is None:
            return None
        for arg in args:
            try:
                return coerce(value, arg)
            except TypeError:
                continue
        raise TypeError
    if origin is list:
        (item,) = typing.get_args(tp) or (str,)
        kind = dict if typing.get_origin(item) is dict else str
        if not isinstance(value, list) or not all(isinstance(v, kind) for v in value):
            raise TypeError
        return list(value)
    if origin is dict:
        if not isinstance(value, dict):
            raise TypeError
        return dict(value)
    if tp is bool:
        if not isinstance(value, bool):
            raise TypeError
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise TypeError
        return value
    raise TypeError


def apply(
    merged: dict[str, dict[str, Any]],
    sources: dict[str, str],
    data: Mapping[str, Any],
    origin: str,
) -> None:
    """Check every key of `data` (one layer, read from `origin`) and set it in `merged`."""
    for section, table in data.items():
        if section not in HINTS:
            known = ", ".join(f"[{s}]" for s in HINTS)
            raise ConfigError(f"{origin}: unknown section [{section}] (known: {known})")
        if not isinstance(table, Mapping):
            raise ConfigError(f"{origin}: [{section}] must be a table")
        hints = HINTS[section]
        for key, value in table.items():
            if key not in hints:
                known = ", ".join(hints)
                raise ConfigError(f"{origin}: unknown key {section}.{key} (known: {known})")
            try:
                merged.setdefault(section, {})[key] = coerce(value, hints[key])
            except TypeError:
                raise ConfigError(
                    f"{origin}: {section}.{key} must be {describe_type(hints[key])}, got {value!r}"
                ) from None
            sources[f"{section}.{key}"] = origin


def build(merged: Mapping[str, Mapping[str, Any]], **extra: Any) -> Config:
    """The typed config of merged section tables (absent keys keep their defaults)."""
    return Config(**{n: cls(**merged.get(n, {})) for n, cls in SECTION_TYPES.items()}, **extra)


def flatten(config: Config) -> dict[str, Any]:
    """`section.key -> value` for display."""
    out: dict[str, Any] = {}
    for section in dataclasses.fields(config):
        if not section.metadata.get("section", True):
            continue
        values = getattr(config, section.name)
        for f in dataclasses.fields(values):
            out[f"{section.name}.{f.name}"] = getattr(values, f.name)
    return out
