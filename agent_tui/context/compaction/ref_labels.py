"""Refs that say what they hold: `ref=r_… — bash: cat step_003.log (20 KB, 420 lines)`.

A bare list of 38 refs in a truncation note maps nothing to anything: the model cannot tell
step 3's log from step 30's without reading each. So wherever compaction lists refs (truncation
notes, retain blocks) each gets a label made from the call that produced it — tool and main
argument — and the output's size and lines. A later compaction that drops a note or a retain
block reads its labelled lines back (`carried_labels`), so a label outlives the call it came
from. Lists are capped in tokens: past the cap the newest are listed and one line says how many
older ones are left out and how to find them (recall searches calls and outputs; the note's
transcript range holds them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from agent_tui.base.messages import Message, ToolCall
from agent_tui.base.units import human_size

from .shape import call_index, collect_refs

if TYPE_CHECKING:
    from agent_tui.base.tokens import TokenCounter

_MAIN_KEYS = (
    "command",
    "cmd",
    "path",
    "file_path",
    "filepath",
    "filename",
    "file",
    "pattern",
    "query",
    "url",
    "ref_id",
    "name",
)
LABEL_CHARS = 72
"""How much of a call's main argument a label keeps."""
_LINE = re.compile(r"^ref=(\S+) — (.+)$")
OMITTED = re.compile(r"\[(\d+) older outputs? not listed here")
"""The line standing for refs past the cap (the invariants count them as findable)."""


def _one_line(value: Any, limit: int) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call_words(call: ToolCall) -> str:
    """`bash: cat step_003.log`: the tool and its main argument (else its arguments, cut)."""
    try:
        args = call.parsed_arguments()
    except ValueError:
        args = {}
    main = next((args[k] for k in _MAIN_KEYS if isinstance(args.get(k), str) and args[k].strip()), None)
    shown = main if main is not None else (call.arguments if call.arguments not in ("", "{}") else "")
    return f"{call.name}: {_one_line(shown, LABEL_CHARS)}" if shown else call.name


def extent(size: int, lines: int) -> str:
    """`20 KB, 420 lines`."""
    return f"{human_size(size)}, {lines} line{'s' * (lines != 1)}"


def output_label(call: ToolCall | None, result: Message) -> str:
    """What a stored output is: `bash: cat step_003.log (20 KB, 420 lines)`."""
    head = call_words(call) if call is not None else (result.name or "tool")
    ref = result.output_ref
    return f"{head} ({extent(ref.byte_size, ref.line_count)})" if ref is not None else head


def carried_labels(text: str | None) -> dict[str, str]:
    """The `ref=… — label` lines an earlier note or retain block holds."""
    found: dict[str, str] = {}
    for line in (text or "").split("\n"):
        match = _LINE.match(line.strip())
        if match:
            found.setdefault(match.group(1), match.group(2))
    return found


def labels_of(messages: Sequence[Message]) -> Labels:
    """Ref → label for every output the messages hold or whose labelled line they carry."""
    return Labels(messages)


class Labels:
    """Labels looked up on demand: a capped list labels only the few refs it shows, so the
    hundreds of calls behind the others are never parsed."""

    def __init__(self, messages: Sequence[Message]) -> None:
        self._messages = messages
        self._outputs = {m.output_ref.id: m for m in messages if m.output_ref is not None}
        self._carried: dict[str, str] = {}
        for m in messages:
            if m.kind in ("note", "retain", "summary"):
                for ref, label in carried_labels(m.content).items():
                    self._carried.setdefault(ref, label)
        self._calls: dict[str, ToolCall] | None = None

    def get(self, ref: str) -> str | None:
        result = self._outputs.get(ref)
        if result is None:
            return self._carried.get(ref)
        if self._calls is None:
            self._calls = {cid: call for cid, (_, call) in call_index(self._messages).items()}
        return output_label(self._calls.get(result.tool_call_id or ""), result)


def omitted_line(count: int) -> str:
    return (
        f'[{count} older output{"s" * (count != 1)} not listed here: recall(query="…") finds '
        "them by command, file name or content, and the transcript range below holds their calls]"
    )


def ref_listing(
    refs: Iterable[str],
    labels: Labels | dict[str, str],
    counter: TokenCounter,
    cap_tokens: int,
    omitted_before: int = 0,
) -> str:
    """One `ref=… — label` line per ref (oldest first), the newest that fit `cap_tokens`, after a
    line saying how many older ones are left out (`omitted_before`: those an earlier list left
    out already). Empty when there is no ref."""
    order = list(dict.fromkeys(refs))
    kept: list[str] = []
    used = 0
    for ref in reversed(order):
        label = labels.get(ref)
        line = f"ref={ref} — {label}" if label else f"ref={ref}"
        cost = counter.count_text(line) + 1
        if kept and used + cost > cap_tokens:
            break
        kept.append(line)
        used += cost
    kept.reverse()
    left = len(order) - len(kept) + omitted_before
    return "\n".join(([omitted_line(left)] if left else []) + kept)


def listing_for(
    messages: Sequence[Message], counter: TokenCounter, cap_tokens: int, omitted_before: int = 0
) -> str:
    """The capped, labelled list of every ref `messages` hold or name."""
    return ref_listing(collect_refs(messages), labels_of(messages), counter, cap_tokens, omitted_before)


def listing_cap(budget: int) -> int:
    """Tokens a ref list may take: a tenth of the conversation budget, within 120–1 500."""
    return max(120, min(budget // 10, 1500))


def omitted_count(messages: Iterable[Message]) -> int:
    """How many refs the messages' lists declare left out past their cap."""
    return sum(
        int(n) for m in messages if m.kind in ("note", "retain") for n in OMITTED.findall(m.content or "")
    )
