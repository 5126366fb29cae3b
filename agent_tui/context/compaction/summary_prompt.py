"""Talking to the summariser: the instructions, a history it can accept, chunks, the reply.

The summariser is any async callable `(messages, instructions, max_tokens) -> str` with a
`model` attribute; the loop passes one that calls the compaction (or chat) model without tools.
This module never raises anything but `SummaryFailed` for a summariser problem, so the chain
can fall back to another model and then to truncation.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from agent_tui.base.errors_text import one_line
from agent_tui.base.messages import Message

from .calls import describe_call
from .shape import clip_text, units

if TYPE_CHECKING:
    from agent_tui.base.tokens import TokenCounter
    from agent_tui.config import CompactionSettings

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
You are compacting the history of a working session between a user and a coding agent, so the \
agent can continue in a smaller context. It will see only what you write plus the newest \
messages. Reply with exactly two blocks and nothing else:

<retain>
Everything that must survive verbatim, one item per line: result refs (ref=…) worth reading \
again, decisions the user made and their exact words for key requirements, file paths, \
function/class/variable names, commands, error messages, URLs, numbers.
</retain>
<summary>
A dense summary: what the user asked; what was done and found; the current state of the work; \
what is pending or next; what failed and why (so it is not retried blindly).
</summary>
Do not call tools."""

PART_NOTE = "\n\nThis is part {i} of {n} of the history, oldest first; summarise only this part."

MERGE_INSTRUCTIONS = """\
The messages are summaries of consecutive parts of one working session, oldest first. Merge \
them into one, keeping every decision, path, identifier and ref they mention, and reply with \
exactly two blocks and nothing else: <retain>…</retain> (items to keep verbatim, one per line) \
and <summary>…</summary> (what the user asked, what was done, the current state, pending work, \
what failed and why). Do not call tools."""

RENDER_ALLOWANCE = 12
"""Tokens per message on top of its count when fitting the summariser's window: a summariser may
render the history as a transcript, with a label and ids on each message."""

_RETAIN = re.compile(r"<retain>(.*?)(?:</retain>|(?=<summary>)|\Z)", re.S | re.I)
_SUMMARY = re.compile(r"<summary>(.*?)(?:</summary>|(?=<retain>)|\Z)", re.S | re.I)
_TAG = re.compile(r"</?(?:retain|summary)>", re.I)


class SummaryFailed(Exception):
    """The summariser raised, returned nothing usable, or the history cannot fit its window."""


class Summarizer(Protocol):
    """What compaction calls to summarise: the loop wraps the compaction or chat model."""

    model: str

    async def __call__(self, messages: list[Message], instructions: str, max_tokens: int) -> str: ...


def model_name(summarizer: object) -> str:
    """`summarizer.model`, or the callable's name for a plain function."""
    name = getattr(summarizer, "model", None)
    return str(name) if name else getattr(summarizer, "__name__", type(summarizer).__name__)


def build_instructions(settings: CompactionSettings, extra: str | None = None) -> str:
    """The base instructions plus the configured directives and the user's `/compact` words."""
    parts = [INSTRUCTIONS]
    if settings.summary_directives.strip():
        parts.append(f"For the summary: {settings.summary_directives.strip()}")
    if settings.retain_directives.strip():
        parts.append(f"Also keep verbatim in <retain>: {settings.retain_directives.strip()}")
    if extra and extra.strip():
        parts.append(f"The user asks for this compaction: {extra.strip()}")
    return "\n\n".join(parts)


def parse_reply(text: str) -> tuple[str, str]:
    """(retain, summary). Untagged text is the summary as it is; an empty reply fails."""
    retain = "\n".join(m.group(1).strip() for m in _RETAIN.finditer(text)).strip()
    tagged = [m.group(1).strip() for m in _SUMMARY.finditer(text)]
    if tagged:
        summary = "\n\n".join(t for t in tagged if t)
    else:
        summary = _TAG.sub("", _RETAIN.sub("", text)).strip()
    if not summary and not retain:
        raise SummaryFailed("the summariser returned an empty reply")
    return retain, summary or "(The summariser returned only the retained items above.)"


def prepare(messages: list[Message]) -> list[Message]:
    """A history a strict provider accepts: no system messages, no call without all its results
    (the trailing in-flight call is reduced to its text), no orphan result, user first."""
    out: list[Message] = []
    for unit in units(messages):
        first = messages[unit.start]
        if first.role == "system":
            continue
        if first.role == "assistant" and first.tool_calls and not unit.complete:
            calls = "; ".join(describe_call(c).label for c in first.tool_calls)
            text = f"{first.content}\n" if first.content else ""
            out.append(Message(role="assistant", content=f"{text}[called: {calls}]"))
            for m in messages[unit.start + 1 : unit.end]:
                out.append(Message(role="user", content=f"[result of {m.name}]: {m.content}"))
        elif first.role == "tool":
            out.append(Message(role="user", content=f"[result of {first.name}]: {first.content}"))
        else:
            out.extend(messages[unit.start : unit.end])
    return out


def cost(messages: list[Message], counter: TokenCounter) -> int:
    """What the messages take in the summariser's window, rendering included."""
    return counter.count_messages(messages) + RENDER_ALLOWANCE * len(messages)


def split_chunks(messages: list[Message], counter: TokenCounter, room: int) -> list[list[Message]]:
    """Consecutive chunks of whole units, each within `room` tokens and starting with a user
    message; a unit too large alone has its long texts clipped (head and tail) to fit."""
    chunks: list[list[Message]] = []
    current: list[Message] = []
    used = 0
    for unit in units(messages):
        group = messages[unit.start : unit.end]
        size = cost(group, counter)
        if size > room:
            share = max(room * 3 // max(len(group), 1), 200)  # ≈ 3 chars per token, cautious
            group = [m.with_content(clip_text(m.content, share)) if m.content else m for m in group]
            size = cost(group, counter)
        if current and used + size > room:
            chunks.append(current)
            current, used = [], 0
        current.extend(group)
        used += size
    if current:
        chunks.append(current)
    lead = Message(role="user", content="[continued from the previous part of the history]")
    return [c if c[0].role == "user" else [lead, *c] for c in chunks]


async def call_summarizer(
    summarizer: Summarizer, messages: list[Message], instructions: str, max_tokens: int
) -> tuple[str, str]:
    """One call, parsed. Anything but cancellation becomes `SummaryFailed` (one line)."""
    try:
        reply = await summarizer(messages, instructions, max_tokens)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        detail = one_line(exc, 200)
        raise SummaryFailed(f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__) from exc
    if not isinstance(reply, str):
        raise SummaryFailed(f"the summariser returned {type(reply).__name__}, not text")
    return parse_reply(reply)


def _merge_lines(blocks: list[str]) -> str:
    seen: dict[str, None] = {}
    for block in blocks:
        for line in block.splitlines():
            if line.strip():
                seen.setdefault(line.rstrip(), None)
    return "\n".join(seen)


async def summarise_history(
    summarizer: Summarizer,
    messages: list[Message],
    *,
    instructions: str,
    max_tokens: int,
    window: int | None,
    counter: TokenCounter,
    progress: Callable[[str], None],
    depth: int = 0,
) -> tuple[str, str]:
    """Summarise in one call when it fits the summariser's window, else part by part and then
    merge the parts' summaries (recursively, each level about a third the size of the last)."""
    prepared = prepare(messages) if depth == 0 else messages
    if prepared and prepared[0].role != "user":
        prepared = [Message(role="user", content="[the history to compact follows]"), *prepared]
    overhead = counter.count_text(instructions) + max_tokens + 256
    if window is None or cost(prepared, counter) + overhead <= window:
        return await call_summarizer(summarizer, prepared, instructions, max_tokens)
    if depth >= 5:
        raise SummaryFailed("the history does not fit the summariser's window even in parts")
    room = max(window - overhead, window // 4, 256)
    part_tokens = max(min(max_tokens, room // 3), 64)
    chunks = split_chunks(prepared, counter, room)
    retains: list[str] = []
    summaries: list[str] = []
    for i, chunk in enumerate(chunks, 1):
        progress(f"summary (part {i} of {len(chunks)})")
        note = PART_NOTE.format(i=i, n=len(chunks))
        retain, summary = await call_summarizer(summarizer, chunk, instructions + note, part_tokens)
        retains.append(retain)
        summaries.append(summary)
    progress("summary (merging parts)")
    extra = instructions.removeprefix(INSTRUCTIONS) if instructions.startswith(INSTRUCTIONS) else ""
    merge_instructions = instructions if depth else MERGE_INSTRUCTIONS + extra
    parts = [
        Message(role="user", content=f"Summary of part {i} of {len(summaries)}:\n{s}")
        for i, s in enumerate(summaries, 1)
    ]
    merged_retain, merged = await summarise_history(
        summarizer,
        parts,
        instructions=merge_instructions,
        max_tokens=max_tokens,
        window=window,
        counter=counter,
        progress=progress,
        depth=depth + 1,
    )
    return _merge_lines([*retains, merged_retain]), merged
