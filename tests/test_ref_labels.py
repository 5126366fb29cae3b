"""Refs that say what they hold: labelled in truncation notes and retain blocks, capped with the
newest kept, carried through later compactions; the truncation note as a retain block of its own."""

from __future__ import annotations

from agent_tui.base.messages import Message, ToolCall
from agent_tui.context.compaction import check_invariants, truncate
from agent_tui.context.compaction.clearing import trimmed_placeholder
from agent_tui.context.compaction.ref_labels import call_words
from agent_tui.context.compaction.result import CompactionPlan
from tests.support.compaction import COUNTER, Convo, big, settings, tokens


def plan(budget: int, keep_user: int = 0) -> CompactionPlan:
    return CompactionPlan.build(settings(), target_tokens=budget, fixed_tokens=0, keep_user_tokens=keep_user)


def logs(turns: int) -> Convo:
    """One turn per log: the user asks, the model cats it, then says it looked."""
    c = Convo()
    for step in range(1, turns + 1):
        c.user(f"step {step}: inspect step_{step:03d}.log")
        c.call("bash", {"command": f"cat step_{step:03d}.log"}, big(f"log{step}", 120))
        c.say(f"Inspected step {step}.")
    return c


def note_of(messages: list[Message]) -> str:
    return next(m.content or "" for m in messages if m.kind == "note")


class TestLabels:
    def test_call_words_name_the_tool_and_its_main_argument(self):
        """`bash: cat x.log`, `read_file: src/a.py`; a call with no known key shows its arguments."""
        assert (
            call_words(ToolCall("c", "bash", '{"command": "cat step_003.log"}')) == "bash: cat step_003.log"
        )
        assert (
            call_words(ToolCall("c", "read_file", '{"path": "src/a.py", "offset": 3}'))
            == "read_file: src/a.py"
        )
        assert (
            call_words(ToolCall("c", "mcp__db__stats", '{"table": "t"}')) == 'mcp__db__stats: {"table": "t"}'
        )

    def test_truncation_note_labels_each_ref(self):
        """Each dropped output is listed with its call, size and lines."""
        c = logs(6)
        out = truncate(c.messages, plan(tokens(c.messages) // 3), COUNTER)
        note = note_of(out.messages)
        first = c.messages[2]
        assert first.output_ref is not None
        size = first.output_ref
        assert f"ref={size.id} — bash: cat step_001.log (" in note and f", {size.line_count} lines)" in note

    def test_past_the_cap_the_newest_are_listed_and_the_rest_counted(self):
        """Thirty outputs in a small budget: the newest fit the cap, a line counts the others and
        says how to find them; the invariants accept the count."""
        c = logs(30)
        out = truncate(c.messages, plan(2000), COUNTER)
        note = note_of(out.messages)
        listed = [line for line in note.splitlines() if line.startswith("ref=")]
        assert 0 < len(listed) < 29
        dropped_logs = [int(line.split("step_")[1][:3]) for line in listed]
        assert dropped_logs == sorted(dropped_logs) and dropped_logs[-1] >= 28
        assert "older outputs not listed here: recall(query=" in note
        assert check_invariants(c.messages, out.messages, counter=COUNTER) == []

    def test_labels_survive_a_second_truncation(self):
        """A later truncation drops the first note, and its labels carry over to the new one."""
        c = logs(8)
        first = truncate(c.messages, plan(tokens(c.messages) // 2), COUNTER).messages
        more = logs(12).messages[24:]  # four more turns
        second = truncate(first + more, plan(tokens(first + more) // 3), COUNTER).messages
        note = note_of(second)
        assert "— bash: cat step_001.log (" in note and note.count("ref=r_") >= 2

    def test_placeholder_says_tool_size_and_lines(self):
        """A trimmed output keeps its ref, tool, size and line count."""
        c = logs(1)
        text = trimmed_placeholder(c.messages[2])
        assert text.startswith("[tool output trimmed; ref=r_") and "(bash, " in text and "120 lines)" in text


class TestRetainSurvivesTruncation:
    def test_note_keeps_user_words_and_an_earlier_retain_blocks_items(self):
        """Truncating past a summary too big to keep: the note keeps the retain block's decisions, its labelled
        refs, and the user's newest words verbatim."""
        retain = Message(
            role="user",
            kind="retain",
            content="[Kept verbatim from 9 earlier messages, which the summary replaces]\n"
            "Decision: keep SQLite in WAL mode\n"
            "Stored outputs from that part (read_result(ref_id=…) brings one back):\n"
            "ref=r_00abcdef01 — bash: pytest -q (3 KB, 80 lines)",
        )
        summary = Message(
            role="assistant", kind="summary", content="[Summary]\n" + "Tests were fixed. " * 600
        )
        c = logs(3)
        history = [retain, summary, *c.messages]
        out = truncate(history, plan(2000, keep_user=400), COUNTER)
        assert retain not in out.messages
        note = note_of(out.messages)
        assert "Decision: keep SQLite in WAL mode" in note
        assert "ref=r_00abcdef01 — bash: pytest -q (3 KB, 80 lines)" in note
        assert "user: step 1: inspect step_001.log" in note
        assert check_invariants(history, out.messages, counter=COUNTER) == []
