"""A session's transcript as a source for the blob viewer: the conversation, message by message.

The blob browser's conversation view opens a transcript the way it opens an output, at the
message a recall hit names. The lines are those `read_result` shows of a range (`#12 user`, then
the text; tool calls with their arguments; results with their ref), rendered once when opened.
Reading it writes nothing: browsing is not a model read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.store.conversation import TranscriptStore


@dataclass
class TranscriptSource:
    """A rendered transcript; `starts` maps message numbers to their first line."""

    session_id: str
    rendered: list[str]
    starts: dict[int, int] = field(default_factory=dict)

    @classmethod
    async def load(cls, transcript: TranscriptStore, session_id: str) -> TranscriptSource:
        lines, starts = await transcript.render(session_id)
        return cls(session_id, lines, starts)

    @property
    def ref_id(self) -> str:
        return f"m_1-{max(self.starts, default=1)}"

    @property
    def line_count(self) -> int:
        return len(self.rendered)

    def line_of(self, seq: int | None) -> int | None:
        return None if seq is None else self.starts.get(seq)

    async def lines(self, start: int, count: int) -> list[str]:
        return self.rendered[start - 1 : start - 1 + count]

    async def grep(self, pattern: str) -> tuple[list[int], bool]:
        regex = re.compile(pattern)
        numbers = [i for i, line in enumerate(self.rendered, start=1) if regex.search(line)]
        return numbers[:10_000], len(numbers) > 10_000
