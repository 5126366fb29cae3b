"""Pruning: drop what is stale, condense what is old, never delete a result.

Three passes, oldest first, each stopping as soon as the conversation fits:
1. stale results — a file view superseded by a later edit or read of the same file, an error
   from before the current turn — become one-line placeholders (anywhere but the in-flight step);
2. old results outside the protected window become one line naming what ran and its ref
   (`Ran: pytest -q → exit 1 [ref=r_…]`, `Viewed src/app.py (312 lines) [ref=r_…]`);
3. long arguments of old tool calls (a whole file passed to `write_file`) are cut to a head —
   the file on disk holds the rest.
A result is never removed: a call without its result breaks the provider's tool pairing.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agent_tui.base.messages import Message, ToolCall, new_id

from .calls import condensed_line, describe_call, is_error_result
from .clearing import is_trimmed, protected_from
from .rewrite import Rewrite
from .shape import call_index, inflight_start, newest_user_index

if TYPE_CHECKING:
    from agent_tui.base.tokens import TokenCounter

    from .result import CompactionPlan, StrategyOutcome

log = logging.getLogger(__name__)

ARGUMENTS_MIN_CHARS = 800
"""Tool-call arguments shorter than this are left alone."""
ARGUMENT_HEAD_CHARS = 120
"""How much of a long string argument stays."""


def superseded_calls(messages: list[Message]) -> dict[str, str]:
    """Call id → why its file view is stale: the same file was edited, or read again whole (or
    the same lines), by a later call."""
    events: list[tuple[str, Any]] = []
    for m in messages:
        for call in m.tool_calls:
            events.append((call.id, describe_call(call)))
    edited: set[str] = set()
    read_later: dict[str, set[tuple[tuple[str, str], ...]]] = {}
    stale: dict[str, str] = {}
    for call_id, info in reversed(events):
        if not info.path:
            continue
        if info.kind == "edit":
            edited.add(info.path)
        elif info.kind == "read":
            later = read_later.setdefault(info.path, set())
            if info.path in edited:
                stale[call_id] = "the file was edited later"
            elif () in later or info.ranged in later:
                stale[call_id] = "the file was read again later"
            later.add(info.ranged)
    return stale


def _elided(call: ToolCall) -> ToolCall | None:
    """The call with long string arguments cut to a head, or None when nothing is long."""
    if len(call.arguments) < ARGUMENTS_MIN_CHARS:
        return None
    try:
        args = call.parsed_arguments()
    except ValueError:
        return None
    changed = False
    for key, value in args.items():
        if isinstance(value, str) and len(value) > ARGUMENT_HEAD_CHARS * 2:
            cut = len(value) - ARGUMENT_HEAD_CHARS
            head = value[:ARGUMENT_HEAD_CHARS]
            args[key] = f"{head}… [{cut} more characters not kept in context]"
            changed = True
    if not changed:
        return None
    return replace(call, arguments=json.dumps(args, ensure_ascii=False))


def prune(messages: list[Message], plan: CompactionPlan, counter: TokenCounter) -> StrategyOutcome:
    """Run the three passes until the conversation fits `plan.conversation_budget`."""
    r = Rewrite(messages, counter, plan.conversation_budget)
    if r.fits:
        return r.outcome()
    calls = {cid: call for cid, (_, call) in call_index(messages).items()}
    inflight = inflight_start(messages)
    last_safe = inflight if inflight is not None else len(messages)
    current_turn = newest_user_index(messages)
    stale = superseded_calls(messages)

    for i in range(last_safe):
        if r.fits:
            break
        m = r.out[i]
        if m.role != "tool" or is_trimmed(m):
            continue
        call = calls.get(m.tool_call_id or "")
        if m.tool_call_id in stale:
            prefix = f"Superseded ({stale[m.tool_call_id]}): "
        elif is_error_result(m) and (current_turn is None or i < current_turn):
            prefix = "Old error: "
        else:
            continue
        r.put(i, m.with_content(condensed_line(call, m, prefix)))

    limit = protected_from(messages, counter, plan.protected_tokens)
    for i in range(limit):
        if r.fits:
            break
        m = r.out[i]
        if m.role == "tool" and not is_trimmed(m) and m.id == messages[i].id:
            r.put(i, m.with_content(condensed_line(calls.get(m.tool_call_id or ""), m)))

    for i in range(limit):
        if r.fits:
            break
        m = r.out[i]
        if m.role != "assistant" or not m.tool_calls:
            continue
        cut = [_elided(c) for c in m.tool_calls]
        if any(c is not None for c in cut):
            new_calls = tuple(c or old for c, old in zip(cut, m.tool_calls, strict=False))
            r.put(i, replace(m, tool_calls=new_calls, id=new_id()))

    log.debug("pruning: %d messages rewritten, %d tokens left", r.changed, r.total)
    return r.outcome()
