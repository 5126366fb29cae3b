"""What the context edge costs per compaction (issue 44): the pins' and the task list's tokens and
build time every request, the compaction record's tokens and build time, and the tool calls a
scripted model needs to get a dropped detail back with and without the record.

A 600-step session (each step `cat step_NNN.log`, a 400-line stored output; a detail planted in
step 7's) is compacted by the chain without a model (clearing, pruning, truncation) to a 16k
target, as the loop does. The scripted model knows which command's output it wants: it looks for
a line naming that command beside a ref in what it sees (1 call: grep_result on the ref), else it
searches (recall, then grep_result on the hit: 2 calls). With the record, it also sees the record's
lines (the record view). Baseline in the same run: the chain's time without building the record.

Run: `.venv/bin/python benchmarks/compaction_edge.py`
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time

from agent_tui.base.messages import Message, ResultRef, ToolCall
from agent_tui.base.tokens import TokenCounter
from agent_tui.config import CompactionSettings
from agent_tui.context.compaction import TranscriptIndex, compact
from agent_tui.context.compaction import chain as chain_module
from agent_tui.context.side_state import SideState, TodoItem

STEPS = 600
TARGET = 16_000
DETAIL = "build id 7f3a-PLANTED-91"
CUE = "cat step_007.log"


def session() -> list[Message]:
    out = [Message(role="user", content="work through the logs")]
    for n in range(1, STEPS + 1):
        call = ToolCall(f"c{n}", "bash", json.dumps({"command": f"cat step_{n:03d}.log"}))
        text = "\n".join(f"step {n} line {i}" for i in range(400))
        if n == 7:
            text = text.replace("step 7 line 200", DETAIL)
        ref = ResultRef(f"r_{n:010x}", len(text), 400, "bash")
        view = "\n".join(text.split("\n")[:20]) + f"\n[… 380 lines omitted; ref={ref.id}]"
        out += [
            Message(role="assistant", tool_calls=(call,)),
            Message(role="tool", content=view, tool_call_id=call.id, name="bash", output_ref=ref),
        ]
    out.append(Message(role="assistant", content="done"))
    return out


def median_ms(fn, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def calls_to_recover(visible: str) -> int:
    """0 when the detail is in view; 1 when a line names the cue and a ref; else 2 (search)."""
    if DETAIL in visible:
        return 0
    return 1 if any(CUE in line and "ref=" in line for line in visible.split("\n")) else 2


def main() -> None:
    counter = TokenCounter("gpt-4o")
    messages = session()
    index = TranscriptIndex.build(
        (i + 1, m.id, m.tool_call_id, m.tool_calls[0].id if m.tool_calls else None)
        for i, m in enumerate(messages)
    )
    settings = CompactionSettings(summarization=False)
    counter.count_messages(messages)  # warm cache, as in the loop

    def run(record: bool):
        saved = chain_module._record
        if not record:
            chain_module._record = lambda *a: None  # type: ignore[assignment]
        try:
            return asyncio.run(
                compact(
                    messages,
                    counter=counter,
                    settings=settings,
                    target_tokens=TARGET,
                    fixed_tokens=2000,
                    transcript=index,
                )
            )
        finally:
            chain_module._record = saved

    with_ms = median_ms(lambda: run(True))
    without_ms = median_ms(lambda: run(False))
    history, result = run(True)
    record = result.record
    assert record is not None
    record_json = json.dumps(record.to_json())
    record_view = "\n".join(record.lines())
    seen = "\n".join(m.content or "" for m in history)

    side = SideState(count=counter.count_text)
    for i in range(5):
        side.add_pin(
            f"Pin {i}: never touch the migrations folder; the release is tagged v2.3.{i}-rc7.", by="user"
        )
    side.set_todos([TodoItem(f"Task {i}", "pending", f"Doing task {i}") for i in range(8)])
    sections_tokens = sum(counter.count_text(s.text) for s in side.sections())
    sections_ms = median_ms(lambda: [side.sections() for _ in range(1000)]) / 1000

    print(
        f"session: {len(messages)} messages, {result.tokens_before:,} → {result.tokens_after:,} tokens ({', '.join(result.strategies)})"
    )
    head = f"{'what':<44}{'tokens':>10}{'ms':>12}"
    print(head)
    print("-" * len(head))
    print(f"{'chain without the record (baseline)':<44}{'':>10}{without_ms:>12.2f}")
    print(f"{'chain with the record':<44}{'':>10}{with_ms:>12.2f}")
    print(
        f"{'record, as JSON (stored, --json, ACP)':<44}{counter.count_text(record_json):>10}{with_ms - without_ms:>12.2f}"
    )
    print(f"{'record view (lines /context shows)':<44}{counter.count_text(record_view):>10}{'':>12}")
    print(f"{'5 pins + 8 tasks, every request':<44}{sections_tokens:>10}{sections_ms:>12.4f}")
    print(f"ratio chain with / without the record: {with_ms / without_ms:.2f}×")
    print()
    head = f"{'calls to get step 7’s detail back':<44}{'calls':>10}"
    print(head)
    print("-" * len(head))
    print(f"{'without the record (compacted context only)':<44}{calls_to_recover(seen):>10}")
    print(f"{'with the record view':<44}{calls_to_recover(seen + chr(10) + record_view):>10}")


if __name__ == "__main__":
    main()
