"""What a compaction did, item by item: the record the user opens from the chat's compaction
line, `/context` lists, `--json` and ACP carry, and the store keeps.

Per strategy: the outputs it cleared or condensed (their refs: `read_result` brings each back
whole), the transcript range it summarised or dropped (`m_12-340`: readable and searchable the
same way), and the tokens before and after; for the whole compaction, how many messages stayed
verbatim and the summary's text. Built by diffing the history before and after each strategy,
so no strategy has to report on itself and none can forget to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_tui.base.messages import Message

from .ref_labels import labels_of
from .shape import TRIMMED_PREFIX
from .transcript import TranscriptIndex


@dataclass(frozen=True)
class StrategyRecord:
    """What one strategy of the chain changed."""

    name: str
    """`tool_clearing`, `pruning`, `summarization` or `truncation`."""
    cleared: tuple[str, ...] = ()
    """Refs of the outputs it cut to a placeholder (tool clearing)."""
    condensed: tuple[str, ...] = ()
    """Refs of the outputs it shortened to one line (pruning)."""
    replaced: str | None = None
    """The transcript range it summarised or dropped (`m_12-340`), when it took any out."""
    dropped: int = 0
    """Messages it took out of the window."""
    tokens_before: int = 0
    tokens_after: int = 0
    labels: tuple[tuple[str, str], ...] = ()
    """(ref, what it is: `bash: cat step_003.log (20 KB, 420 lines)`) for every output it
    cleared, condensed or took out of the window: what the record view lists."""

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "labels": [list(pair) for pair in self.labels],
            "cleared": list(self.cleared),
            "condensed": list(self.condensed),
            "replaced": self.replaced,
            "dropped": self.dropped,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
        }

    def refs(self) -> list[str]:
        """Every ref this strategy's items can be read back by."""
        return [*self.cleared, *self.condensed, *([self.replaced] if self.replaced else [])]


@dataclass(frozen=True)
class CompactionRecord:
    """The whole compaction's record."""

    strategies: tuple[StrategyRecord, ...] = ()
    kept: int = 0
    """Messages of the history kept verbatim."""
    summary: str = ""
    """The summary's text, when a summary was made."""

    def to_json(self) -> dict[str, object]:
        return {
            "strategies": [s.to_json() for s in self.strategies],
            "kept": self.kept,
            "summary": self.summary,
        }

    def refs(self) -> list[str]:
        return [ref for s in self.strategies for ref in s.refs()]

    def lines(self) -> list[str]:
        """The record as the TUI's record view and `/context` print it."""
        out = []
        for s in self.strategies:
            head = f"{s.name}: {s.tokens_before} → {s.tokens_after} tokens"
            out.append(head)
            if s.cleared:
                out.append(f"  cleared {len(s.cleared)} output(s)")
            if s.condensed:
                out.append(f"  condensed {len(s.condensed)} output(s)")
            if s.replaced:
                verb = "summarised" if s.name == "summarization" else "dropped"
                out.append(f"  {verb} {s.dropped} message(s): {s.replaced}")
            out += [f"  ref={ref} — {label}" for ref, label in s.labels]
        out.append(f"kept verbatim: {self.kept} message(s)")
        if self.summary:
            out.append("summary: " + self.summary)
        return out


def _output_ref(message: Message) -> str | None:
    return message.output_ref.id if message.output_ref is not None else None


def strategy_record(
    name: str,
    before: Sequence[Message],
    after: Sequence[Message],
    tokens: tuple[int, int],
    index: TranscriptIndex | None,
) -> StrategyRecord:
    """What `name` changed between `before` and `after`."""
    by_call = {m.tool_call_id: m for m in after if m.role == "tool" and m.tool_call_id}
    cleared: list[str] = []
    condensed: list[str] = []
    for m in before:
        ref = _output_ref(m)
        if m.role != "tool" or ref is None or not m.tool_call_id:
            continue
        now = by_call.get(m.tool_call_id)
        if now is None or now.content == m.content:
            continue
        target = cleared if (now.content or "").startswith(TRIMMED_PREFIX) else condensed
        target.append(ref)
    kept_ids = {m.id for m in after}
    kept_calls = set(by_call)
    gone = [
        m for m in before if m.id not in kept_ids and not (m.role == "tool" and m.tool_call_id in kept_calls)
    ]
    span = index.covered(gone) if index is not None and gone else None
    labels = labels_of(before)
    refs = [*cleared, *condensed, *(r for m in gone if (r := _output_ref(m)) is not None)]
    named = tuple((ref, labels.get(ref) or "output") for ref in dict.fromkeys(refs))
    return StrategyRecord(
        name,
        tuple(dict.fromkeys(cleared)),
        tuple(dict.fromkeys(condensed)),
        f"m_{span[0]}-{span[1]}" if span else None,
        len(gone),
        tokens[0],
        tokens[1],
        named,
    )


def summary_text(messages: Sequence[Message]) -> str:
    """The text of the newest summary in `messages` ("" when there is none)."""
    for m in reversed(messages):
        if m.kind == "summary":
            return m.content or ""
    return ""
