"""What one config key declares besides its type and default: its range or choices and its help.

Each section field carries a `Spec` in its dataclass metadata (`field(default=…, metadata=spec(…))`),
so a key is declared once: the validation pass (config/checks.py), `config.example.toml` and the
README's key table (agent_tui/docs_gen.py) all read the same declaration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Range:
    """Allowed values of one numeric key."""

    low: float
    high: float | None = None
    """None: no upper bound."""
    low_open: bool = False
    """The low end itself is excluded (`> 0` rather than `≥ 0`)."""
    high_open: bool = False
    """The high end itself is excluded (`< 1` rather than `≤ 1`)."""
    unit: str = ""
    off: float | None = None
    """A value outside the range that is allowed all the same and means "off" (0 thinking tokens)."""

    def admits(self, value: float) -> bool:
        if not math.isfinite(value):
            return False
        if self.off is not None and value == self.off:
            return True
        above = value > self.low if self.low_open else value >= self.low
        if self.high is None:
            return above
        below = value < self.high if self.high_open else value <= self.high
        return above and below

    def describe(self) -> str:
        low = f"{self.low:g}"
        unit = f" {self.unit}" if self.unit else ""
        off = f"{self.off:g} (off) or " if self.off is not None else ""
        if self.high is None:
            return f"{off}{'greater than' if self.low_open else 'at least'} {low}{unit}"
        excluded = [end for end, open_ in ((low, self.low_open), (f"{self.high:g}", self.high_open)) if open_]
        return f"{off}between {low} and {self.high:g}{unit}" + (
            f" (not {' or '.join(excluded)})" if excluded else ""
        )


FRACTION = Range(0, 1, low_open=True)
SECONDS = Range(0, 86_400, low_open=True, unit="seconds")
COUNT = Range(1, 1_000_000)


@dataclass(frozen=True)
class Spec:
    """The declaration of one key beyond its Python type and default."""

    help: str
    """One line: the README's key table and the first line of the example file's comment."""
    doc: str = ""
    """More prose for the example file's comment (wrapped there)."""
    range: Range | None = None
    """Every int and float key has one (tests/test_config_checks.py holds it)."""
    choices: tuple[str, ...] = ()
    """The values a string key may take; empty = any string."""
    example: Any = None
    """What the example file shows, commented out, for a key whose default is unset."""
    commented: bool = False
    """The example file shows the key commented out even though it has a default."""


def spec(
    help: str,
    doc: str = "",
    *,
    range: Range | None = None,
    choices: tuple[str, ...] = (),
    example: Any = None,
    commented: bool = False,
) -> dict[str, Spec]:
    """The metadata of a declared field: `field(default=…, metadata=spec("…", range=…))`."""
    return {"spec": Spec(help, doc, range, choices, example, commented)}


def spec_of(metadata: Any) -> Spec | None:
    found = metadata.get("spec")
    return found if isinstance(found, Spec) else None
