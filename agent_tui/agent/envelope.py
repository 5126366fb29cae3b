"""A sub-agent's envelope: how it ended, as the parent's `task` result says it.

One tool result of a few hundred tokens whatever the child did: the state (completed / stopped
with a reason / error), usage, cost, duration, the child's transcript ref (short form and URI)
and a view of its answer, whose whole text is stored under its own ref.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.store.refs import build_range_uri, session_range_id

if TYPE_CHECKING:
    from agent_tui.base.messages import Message, ResultRef, TokenUsage


@dataclass(frozen=True)
class Envelope:
    """How a child ended, as the parent's tool result says it."""

    description: str
    session_id: str
    project: str
    state: str
    reason: str | None
    messages: int
    answer: str
    final: bool
    """The answer is the child's final reply (False: its last text, or nothing)."""
    answer_ref: ResultRef | None
    usage: TokenUsage
    cost: float | None
    duration: float

    @property
    def transcript_uri(self) -> str:

        return build_range_uri(self.project, self.session_id, 1, max(1, self.messages))

    @property
    def transcript_short(self) -> str:

        return session_range_id(self.session_id, 1, max(1, self.messages))

    def headline(self) -> str:
        state = self.state if self.reason is None else f"{self.state}: {self.reason}"
        cost = "" if self.cost is None else f" · ${self.cost:.4f}"
        return (
            f'sub-agent "{self.description}" {state} · {self.usage.total:,} tokens '
            f"(in {self.usage.prompt_tokens:,} / out {self.usage.output:,}){cost} · {self.duration:.1f} s"
        )

    def render(self, view: str, cut: bool) -> str:
        lines = [
            f"[{self.headline()}]",
            f"transcript: {self.transcript_short} ({self.messages} messages; read_result / "
            f"grep_result take it, or {self.transcript_uri})",
        ]
        where = f" (whole: {self.answer_ref.id})" if self.answer_ref is not None else ""
        if not self.answer:
            lines.append("answer: none — the child wrote no text; its transcript shows what it did.")
        elif self.final:
            lines.append(f"answer{where}{' (cut)' if cut else ''}:")
        else:
            lines.append(f"no final answer; its last text{where}{' (cut)' if cut else ''}:")
        if self.answer:
            lines.append(view)
        return "\n".join(lines)


def cut_answer(answer: str, limit: int, count: Callable[[str], int]) -> tuple[str, bool]:
    """The answer cut to `limit` tokens (the head: answers lead with the point), and whether it
    was cut."""
    if count(answer) <= limit:
        return answer, False
    text = answer
    while text and count(text) > limit:
        text = text[: int(len(text) * limit / max(count(text), 1) * 0.95)]
    return text.rstrip() + "\n[… cut at the answer's first ~" + f"{limit:,} tokens]", True


def last_text(history: list[Message]) -> str:
    """The newest non-empty assistant text (a child that ended without a final answer)."""
    for message in reversed(history):
        if message.role == "assistant" and (message.content or "").strip():
            return (message.content or "").strip()
    return ""
