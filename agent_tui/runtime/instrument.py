"""Timing points for benchmarks: the one place product code reports when something happened.

Benchmarks need to know when the first frame was drawn, when an opened session's chat showed, how
long a key took to handle and draw. Rather than each benchmark growing its own attribute or
environment variable in the app, product code calls `mark(name)` (a moment) or `record(name,
seconds)` (a duration it measured itself), and this module keeps them only while a benchmark asked:

- in the same process: `with instrument.recording() as rec:` … `rec.last("chat_shown")`;
- in a child process: set `AGENT_TUI_INSTRUMENT=<file>` in its environment; every mark and
  record is appended to that file as one JSON line (`{"name", "at", "seconds"}`, `at` being
  `time.time()` so it compares across processes); `read_file(path)` parses it back.

Off (the default, and always for users), `mark` and `record` return after one check, and
`enabled()` lets a caller skip whatever work it would do only to measure.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ENV = "AGENT_TUI_INSTRUMENT"
"""Environment variable naming a file a child process appends its marks to (JSON lines)."""


@dataclass(frozen=True)
class Event:
    """One mark or record."""

    name: str
    """What happened, e.g. `first_frame`, `chat_shown`, `key`."""
    at: float
    """`time.perf_counter()` in process (`time.time()` once read back from a file)."""
    seconds: float | None = None
    """The duration for a `record`; None for a `mark`."""
    modules: tuple[str, ...] = ()
    """For `mark_modules`: the top-level modules loaded at that moment."""


@dataclass
class Recorder:
    """What was marked while recording, in order."""

    events: list[Event] = field(default_factory=list)

    def add(self, event: Event) -> None:
        self.events.append(event)

    def times(self, name: str) -> list[float]:
        """When each `mark(name)` happened (perf_counter)."""
        return [e.at for e in self.events if e.name == name]

    def last(self, name: str) -> float | None:
        """The latest `mark(name)`, or None if it never happened."""
        found = self.times(name)
        return found[-1] if found else None

    def durations(self, name: str) -> list[float]:
        """Every `record(name, seconds)`, in order."""
        return [e.seconds for e in self.events if e.name == name and e.seconds is not None]

    def clear(self) -> None:
        self.events.clear()


_recorder: Recorder | None = None
_file: str | None = os.environ.get(ENV) or None


def enabled() -> bool:
    """True while a benchmark records (in process or through `AGENT_TUI_INSTRUMENT`)."""
    return _recorder is not None or _file is not None


def mark(name: str) -> None:
    """Note that `name` happened now; a no-op unless recording."""
    if _recorder is None and _file is None:
        return
    _emit(name, None)


def record(name: str, seconds: float) -> None:
    """Note a duration the caller measured; a no-op unless recording."""
    if _recorder is None and _file is None:
        return
    _emit(name, seconds)


def mark_modules(name: str) -> None:
    """Note which top-level modules are loaded now (a test pins what the first request may
    wait for); a no-op unless recording."""
    if _recorder is None and _file is None:
        return
    import sys

    # A None entry is an import blocked on purpose (llm/__init__.py), not a loaded module.
    loaded = [m for m, module in list(sys.modules.items()) if module is not None]
    _emit(name, None, tuple(sorted({m.partition(".")[0] for m in loaded})))


def _emit(name: str, seconds: float | None, modules: tuple[str, ...] = ()) -> None:
    if _recorder is not None:
        _recorder.add(Event(name, time.perf_counter(), seconds, modules))
    if _file is not None:
        line = json.dumps({"name": name, "at": time.time(), "seconds": seconds, "modules": modules})
        with open(_file, "a", encoding="utf-8") as out:
            out.write(line + "\n")


@contextmanager
def recording() -> Iterator[Recorder]:
    """Record marks made in this process until the block ends."""
    global _recorder
    previous, _recorder = _recorder, Recorder()
    try:
        yield _recorder
    finally:
        _recorder = previous


def read_file(path: Path) -> list[Event]:
    """The marks a child process wrote to `path` (empty if it wrote none)."""
    if not path.exists():
        return []
    events = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            modules = tuple(item.get("modules") or ())
            events.append(Event(item["name"], float(item["at"]), item.get("seconds"), modules))
    return events
