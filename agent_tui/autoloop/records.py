"""What one iteration of the autonomous loop leaves behind, as a value.

The loop's memory is built from these records (the raw window shows the newest, the summariser
folds the older ones), the JSON events report them, and the whole output of each lives in the blob
store under `ref`, so a record itself stays small however long the iteration's output was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_tui.base.messages import ResultRef

PROMPT_KEEP = 500
"""Characters of the iteration's prompt kept in the record (the transcript has the whole)."""
OUTPUT_KEEP = 5000
"""Characters of the iteration's output kept in the record (the blob store has the whole)."""


def keep(text: str, limit: int) -> str:
    """Head and tail of `text` in at most `limit` characters, the cut marked in between (the
    end of an iteration's output holds its conclusion and its errors)."""
    if len(text) <= limit:
        return text
    marker = f"\n[… {len(text) - limit:,}+ chars cut; the whole is in the blob store …]\n"
    room = max(0, limit - len(marker))
    head = room * 3 // 5
    return text[:head] + marker + text[len(text) - (room - head) :] if room else text[:limit]


@dataclass(frozen=True)
class IterationRecord:
    """One iteration: one agent turn on the iteration's prompt, tools included."""

    number: int
    """1-based position in the loop."""
    started_at: float
    """Wall-clock time (epoch seconds) the iteration began."""
    model: str
    """The model that ran it."""
    prompt: str
    """The iteration's prompt, cut to PROMPT_KEEP characters."""
    prompt_tokens: int
    """Tokens of the whole iteration prompt (the loop's count, before the system prompt)."""
    output: str
    """Assistant text and one line per tool call, cut to OUTPUT_KEEP characters."""
    output_chars: int
    """Length of the whole output."""
    ref: ResultRef | None
    """Where the whole output lives in the blob store (None when the output was empty)."""
    markers: tuple[str, ...]
    """Every <progress>…</progress> the iteration reported, in order."""
    new_markers: tuple[str, ...]
    """The markers no earlier iteration had reported (only these count as progress)."""
    files_changed: tuple[str, ...]
    """Paths the iteration changed (git workspaces only; empty elsewhere)."""
    errors: tuple[str, ...]
    """Signatures of the failures seen (failed tool calls, provider errors)."""
    repeated_errors: int
    """How many of `errors` an earlier iteration had already hit."""
    score: float
    """Progress score 0–1 (see `autoloop.progress.score`)."""
    tool_calls: int
    """Tool calls the model made during the iteration."""
    duration: float
    """Seconds the iteration took."""
    stop_reason: str
    """The turn's stop reason: done / max_steps / error."""
    complete: bool
    """The model said <promise>COMPLETE</promise>."""

    @property
    def empty(self) -> bool:
        """The model said nothing and ran nothing."""
        return self.output_chars == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "started_at": self.started_at,
            "model": self.model,
            "prompt": self.prompt,
            "prompt_tokens": self.prompt_tokens,
            "output": self.output,
            "output_chars": self.output_chars,
            "ref": self.ref.to_json() if self.ref else None,
            "markers": list(self.markers),
            "new_markers": list(self.new_markers),
            "files_changed": list(self.files_changed),
            "errors": list(self.errors),
            "repeated_errors": self.repeated_errors,
            "score": self.score,
            "tool_calls": self.tool_calls,
            "duration": round(self.duration, 3),
            "stop_reason": self.stop_reason,
            "complete": self.complete,
            "empty": self.empty,
        }


@dataclass(frozen=True)
class LoopSummary:
    """The running summary: the summariser's text for iterations first..last."""

    text: str
    """Exactly what the summariser returned (stripped)."""
    first: int
    """First iteration it covers (always 1)."""
    last: int
    """Last iteration it covers (the newest one outside the raw window)."""
    made_at: int
    """Iteration after which it was written."""
    mode: str
    """fold (previous summary + newly old iterations) or regenerate (from every record)."""
    tokens: int
    """Its size in tokens."""
    ref: ResultRef | None = None
    """The whole summary in the blob store (the prompt may show it cut)."""
    empty_iterations: tuple[int, ...] = ()
    """Covered iterations whose output was empty (named in the summary's label)."""
