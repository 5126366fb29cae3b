"""The chat's line for a finished compaction: why it ran, what it did, and what the model now sees.

`Compacted 182k → 41k tokens (tool clearing, summary; 230 → 4 messages) in 0.0 s` alarmed users:
it never said it was automatic or why, `0.0 s` read as nothing happened, and "4 messages" while
the chat still showed all 230 read as a loss. This line says who asked, and that the chat keeps
everything while the model works from the summary (the transcript stays readable by ref).
"""

from __future__ import annotations

from typing import Any

from agent_tui.base.units import seconds

HANDOFF_OFFER = "/handoff [goal] continues in a fresh session instead (summary, pins, task list, refs back)."
"""The way out offered wherever the TUI says the context is high or full: this line after an
automatic compaction, the meter's tooltip from the note on, the meter's line at the hard block."""

WHY = {
    "auto": "automatically: the context reached the compaction threshold",
    # Not "automatically": the hard block compacts also with `[compaction] auto = false`.
    "blocked": "because the context was full (98%: this happens even with auto compaction off)",
    "forced": "as you asked",
    "tool": "at the model's request (compact_context)",
    "context_length": "automatically: the provider said the request was too long",
}


def strategy_label(name: str) -> str:
    """What the user reads for a strategy (`tool clearing`), in the progress line."""
    from agent_tui.context.compaction.strategies import LABELS  # lazy: start-up, as below

    return LABELS.get(name, name)


def compaction_line(result: Any, reason: str | None) -> str:
    """One line for the chat (the core's `describe()` stays what headless mode prints)."""

    if not getattr(result, "applied", False) or not hasattr(result, "tokens_before"):
        return result.describe() if hasattr(result, "describe") else "Compacted."
    # lazy: start-up (the compaction package loads behind the first frame, frontends/tui/warmup.py)
    from agent_tui.context.compaction.result import _distinct
    from agent_tui.context.compaction.strategies import LABELS, STRATEGIES

    before, after = _distinct(result.tokens_before, result.tokens_after)
    labels = ", ".join(LABELS.get(s, s) for s in result.strategies)
    took = seconds(result.duration)
    why = WHY.get(reason or "", reason or "")
    line = f"Compacted {before} → {after} tokens{f' {why}' if why else ''} ({labels}, {took})."
    turns_left = {s.name for s in STRATEGIES if s.drops_turns} & set(result.strategies)
    if not turns_left and result.messages_after >= result.messages_before:  # only outputs were cut
        line += (
            f" The model still sees all {result.messages_after} messages, older tool outputs cut"
            " to their refs (still readable by ref)."
        )
    else:
        line += (
            f" The model now works from {result.messages_after} of {result.messages_before} messages"
            " (earlier turns summarised or trimmed, still readable by ref); the chat above keeps them all."
        )
    if not result.reached_target:
        line += " Still over the target"
        line += f": {result.reason}." if result.reason else "."
    if getattr(result, "record", None) is not None:
        line += " Click this line (or Enter on it) for its record: what it cleared and summarised, by ref."
    if reason in ("auto", "blocked"):
        line += " " + HANDOFF_OFFER
    return line
