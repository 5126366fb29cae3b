"""One background command as the registry keeps it, and how its end is said.

Apart from the registry (tools/background.py) so that what reads a shell — the status note
(background_note.py), /tasks — does not depend on what starts and reads commands.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent_tui.store.background_log import ENDED_WITH_SESSION
from agent_tui.tools.head_tail import HeadTail
from agent_tui.tools.process_group import format_seconds

if TYPE_CHECKING:
    from agent_tui.store.growing import GrowingBlob

RUNNING, EXITED, KILLED, CAPPED = "running", "exited", "killed", "output cap"
UNREAD_BYTES = 16 * 1024
"""What bash_output shows of the new output at most (head and tail); the ref holds all of it."""


@dataclass(eq=False)
class Shell:
    """One background command and what the model has seen of it."""

    id: str
    command: str
    pgid: int
    started: float
    """time.monotonic() at start."""
    blob: GrowingBlob | None
    """Its output as stored (None when the store is down: then only `unread` is kept)."""
    state: str = RUNNING
    exit_code: int | None = None
    ended: float | None = None
    status: str = ""
    """Sandbox notes about how it ended."""
    unread: HeadTail = field(default_factory=lambda: HeadTail(UNREAD_BYTES))
    lines_read: int = 0
    """Lines of its output shown by bash_output so far."""
    received: int = 0
    """Bytes of output so far."""
    told_end: bool = False
    """The model has heard that it ended (status note or bash_output)."""
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    done: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def ref_id(self) -> str | None:
        return self.blob.id if self.blob is not None else None

    @property
    def running(self) -> bool:
        return self.state == RUNNING

    def elapsed(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    def take(self, chunk: bytes) -> None:
        self.received += len(chunk)
        self.unread.add(chunk)
        if self.blob is not None:
            self.blob.append(chunk)
        self.arrived.set()

    def describe_end(self) -> str:
        took = format_seconds(self.elapsed())
        if self.state == KILLED:
            return f"killed after {took}"
        if self.state == CAPPED:
            return f"killed after {took}: its output passed max_output_bytes"
        if self.state == ENDED_WITH_SESSION:
            return "ended with the session"
        return f"exited with code {self.exit_code} after {took}"
