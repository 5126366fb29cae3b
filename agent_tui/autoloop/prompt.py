"""The prompt of one iteration: goal, summary, raw window, state and instructions, in budget.

The iteration starts from an empty history, so this prompt is the loop's whole memory. Each part
is built and counted on its own and cut to its share of the allocation: the goal and the summary
keep head and tail with a ref to the whole, the raw window shows less of each output (never
fewer iterations, so none falls between the window and the summary) until it fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_tui.autoloop.allocation import Allocation, clip_tokens

if TYPE_CHECKING:
    from agent_tui.autoloop.records import IterationRecord, LoopSummary
    from agent_tui.base.messages import ResultRef
    from agent_tui.base.tokens import TokenCounter

EXCERPT_STEPS = (1000, 600, 300, 120, 0)
"""Characters of each raw iteration's output shown, tried in order until the window fits."""

INSTRUCTIONS = """\
## Instructions
Take the next step towards the goal with your tools, and check its result. Your memory is this \
prompt; whole outputs are readable with read_result(ref_id=…).
End your reply with one <progress>what you achieved</progress> per new step done (repeating \
an earlier marker is not progress; {stall} iterations without a new one stop the loop).
When the whole goal is met and checked, say <promise>COMPLETE</promise>."""


@dataclass(frozen=True)
class LoopFacts:
    """What the current-state section says."""

    number: int
    """The iteration about to run."""
    max_iterations: int
    model: str
    stall_count: int
    """Iterations since the last new progress marker."""
    stall_limit: int
    git: bool
    """Whether changed files are tracked (the workspace is a git repository)."""


@dataclass(frozen=True)
class IterationPrompt:
    """A built prompt with what each part costs."""

    text: str
    """The whole prompt, sent as the iteration's user message."""
    parts: dict[str, str]
    """heading / goal / summary / raw / instructions → the text of that part (instructions =
    current state and instructions; they share the instructions allocation with the heading)."""
    used: dict[str, int]
    """Tokens of each part (each counted on its own)."""
    tokens: int
    """Tokens of the whole text."""
    allocation: Allocation
    raw_numbers: tuple[int, ...]
    """Iterations shown raw."""
    excerpt_chars: int
    """Characters of output shown per raw iteration."""

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens": self.tokens,
            "used": self.used,
            "allocation": self.allocation.to_json(),
            "raw": list(self.raw_numbers),
            "excerpt_chars": self.excerpt_chars,
        }


def _read_hint(ref: ResultRef | None) -> str:
    return f'read_result(ref_id="{ref.id}")' if ref else "not stored"


def excerpt(text: str, chars: int) -> str:
    if len(text) <= chars:
        return text
    if chars <= 0:
        return ""
    head = chars * 2 // 5
    return f"{text[:head]}\n[…]\n{text[len(text) - (chars - head) :]}"


def render_record(record: IterationRecord, chars: int) -> str:
    """One raw iteration: the header line, markers, files, errors and an output excerpt."""
    lines = [
        f"### Iteration {record.number} · score {record.score:.2f} · "
        f"{record.duration:.1f} s · {record.tool_calls} tool call(s)"
    ]
    markers = " | ".join(record.markers)
    lines.append(f"Progress: {markers[:400]}" if markers else "Progress: none reported")
    if record.files_changed:
        names = ", ".join(record.files_changed[:12])
        more = len(record.files_changed) - 12
        lines.append(f"Files changed: {names}" + (f" (+{more} more)" if more > 0 else ""))
    if record.errors:
        lines.append(f"Failures: {len(record.errors)} ({record.repeated_errors} seen before)")
    if record.empty:
        lines.append("Output: empty (no text and no tool calls)")
        return "\n".join(lines)
    shown = excerpt(record.output, chars)
    if len(shown) >= record.output_chars:
        lines.append("Output:\n" + shown)
    elif shown:
        lines.append(
            f"Output ({record.output_chars:,} chars; head and tail shown; whole: "
            f"{_read_hint(record.ref)}):\n{shown}"
        )
    else:
        lines.append(f"Output: {record.output_chars:,} chars at {_read_hint(record.ref)}")
    return "\n".join(lines)


def goal_part(goal: str, limit: int, counter: TokenCounter, ref: ResultRef | None) -> str:
    note = f"whole goal: {_read_hint(ref)}" if ref else ""
    return clip_tokens("## Goal\n" + goal.strip(), limit, counter, note)


def summary_part(summary: LoopSummary | None, number: int, limit: int, counter: TokenCounter) -> str:
    if summary is None:
        if number == 1:
            return clip_tokens("## Summary\nNone yet: this is the first iteration.", limit, counter)
        return clip_tokens(
            "## Summary\nNone yet: every earlier iteration is shown raw below.", limit, counter
        )
    empty = (
        f"; empty output in iteration(s) {', '.join(map(str, summary.empty_iterations))}"
        if summary.empty_iterations
        else ""
    )
    label = (
        f"## Summary of iterations {summary.first}–{summary.last} "
        f"(by the summariser after iteration {summary.made_at}{empty})\n"
    )
    room = limit - counter.count_text(label)
    if room <= 0:
        return clip_tokens(label.rstrip(), limit, counter)
    body = clip_tokens(
        summary.text, room, counter, f"whole summary: {_read_hint(summary.ref)}" if summary.ref else ""
    )
    return label + body


def raw_part(records: Sequence[IterationRecord], limit: int, counter: TokenCounter) -> tuple[str, int]:
    """The raw window in `limit` tokens, and the excerpt size that made it fit."""
    if not records:
        return clip_tokens("## Recent iterations\nNone yet.", limit, counter), 0
    first, last = records[0].number, records[-1].number
    heading = (
        f"## Recent iterations, raw ({first}–{last})"
        if first != last
        else f"## Recent iteration, raw ({first})"
    )
    for chars in EXCERPT_STEPS:
        text = "\n\n".join([heading, *(render_record(r, chars) for r in records)])
        if counter.count_text(text) <= limit:
            return text, chars
    # Even bare headers do not fit (many iterations wait for a failing summariser): the oldest
    # become one line with their refs, newest kept whole, until it fits.
    for cut in range(1, len(records) + 1):
        older, newer = records[:cut], records[cut:]
        refs = ", ".join(r.ref.id for r in older if r.ref)
        line = (
            f"Iterations {older[0].number}–{older[-1].number}: not summarised yet; "
            f"outputs at refs {refs or 'none'}"
        )
        text = "\n\n".join([heading, line, *(render_record(r, 0) for r in newer)])
        if counter.count_text(text) <= limit:
            return text, 0
    return clip_tokens(text, limit, counter), 0


def instructions_part(
    facts: LoopFacts, allocation: Allocation, limit: int, counter: TokenCounter
) -> tuple[str, str]:
    """The heading line (first in the prompt) and the state with the instructions (last);
    together, each counted on its own, within `limit`."""
    head = f"# Autonomous loop · iteration {facts.number} of at most {facts.max_iterations}"
    state = [
        "## Current state",
        f"Iterations run: {facts.number - 1} · model {facts.model}",
        f"Iterations since the last new progress marker: {facts.stall_count} "
        f"(the loop stops at {facts.stall_limit})",
        "Changed files are tracked with git."
        if facts.git
        else "The workspace is not a git repository: changed files are not tracked.",
        f"Prompt allocation: {allocation.describe()}.",
    ]
    rules = INSTRUCTIONS.format(stall=facts.stall_limit)
    head_tokens = counter.count_text(head)
    for lines in (state, state[:3], state[:2]):
        rest = "\n".join(lines) + "\n\n" + rules
        if head_tokens + counter.count_text(rest) <= limit:
            return head, rest
    if head_tokens >= limit:
        return "", clip_tokens(rules, limit, counter)
    return head, clip_tokens(rules, limit - head_tokens, counter)


def build_prompt(
    *,
    goal: str,
    goal_ref: ResultRef | None,
    summary: LoopSummary | None,
    raw: Sequence[IterationRecord],
    facts: LoopFacts,
    allocation: Allocation,
    counter: TokenCounter,
) -> IterationPrompt:
    """The iteration prompt, every part within its share of `allocation`."""
    raw_text, chars = raw_part(raw, allocation.raw, counter)
    head, rest = instructions_part(facts, allocation, allocation.instructions, counter)
    parts = {
        "goal": goal_part(goal, allocation.goal, counter, goal_ref),
        "summary": summary_part(summary, facts.number, allocation.summary, counter),
        "raw": raw_text,
    }
    used = {name: counter.count_text(value) for name, value in parts.items()}
    used["instructions"] = counter.count_text(head) + counter.count_text(rest)
    parts["instructions"] = rest
    parts["heading"] = head
    text = "\n\n".join(p for p in (head, parts["goal"], parts["summary"], raw_text, rest) if p)
    return IterationPrompt(
        text, parts, used, counter.count_text(text), allocation, tuple(r.number for r in raw), chars
    )
