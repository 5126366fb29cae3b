"""The cheap strategies one by one: clearing, pruning, truncation, the tool-output budget."""

from __future__ import annotations

import json

from agent_tui.base.messages import Message, ResultRef
from agent_tui.context.compaction import (
    CompactionPlan,
    check_invariants,
    clear_tool_outputs,
    collect_refs,
    prune,
    trim_tool_outputs,
    truncate,
)
from tests.support.compaction import COUNTER, Convo, big, long_session, settings, tokens


def plan(budget: int, protected_ratio: float = 0.25, fixed: int = 0, **kw) -> CompactionPlan:
    return CompactionPlan.build(
        settings(protected_ratio=protected_ratio, **kw), target_tokens=budget + fixed, fixed_tokens=fixed
    )


class TestClearing:
    def test_oldest_outputs_become_placeholders_with_their_ref(self):
        """The oldest outputs become `[tool output trimmed; ref=… (tool, size, lines)]`, keeping
        ref and pairing."""
        c = long_session()
        before = c.messages
        out = clear_tool_outputs(before, plan(tokens(before) // 2), COUNTER)
        assert out.changed > 0
        first_tool = next(i for i, m in enumerate(before) if m.role == "tool")
        new = out.messages[first_tool]
        old = before[first_tool]
        ref = old.output_ref
        assert (
            new.content == f"[tool output trimmed; ref={ref.id} ({old.name}, 5.3 KB, {ref.line_count} lines)]"
        )
        assert (new.tool_call_id, new.name, new.output_ref) == (old.tool_call_id, old.name, old.output_ref)
        assert new.id != old.id
        assert check_invariants(before, out.messages, counter=COUNTER) == []

    def test_stops_as_soon_as_under_the_budget(self):
        """Clearing trims only as many outputs as it takes to fit, oldest first."""
        c = long_session()
        total = tokens(c.messages)
        out = clear_tool_outputs(c.messages, plan(total - 500, protected_ratio=0.0), COUNTER)
        assert out.changed == 1
        assert out.tokens <= total - 500
        assert out.tokens == tokens(out.messages)

    def test_protected_window_is_measured_in_tokens(self):
        """One long turn of 40 calls is still cleared: the window keeps the newest outputs only."""
        c = Convo()
        c.user("refactor everything")
        for i in range(40):
            c.call("bash", {"command": f"step {i}"}, big(f"s{i}", 60))
        p = CompactionPlan(
            target_tokens=100,
            fixed_tokens=0,
            protected_tokens=4000,
            retain_last_turns=1,
            summary_max_tokens=512,
        )
        out = clear_tool_outputs(c.messages, p, COUNTER)
        kept = [
            m for m in out.messages if m.role == "tool" and not m.content.startswith("[tool output trimmed")
        ]
        assert 1 < len(kept) < 10
        assert kept == [m for m in c.messages if m.role == "tool"][-len(kept) :]
        assert tokens(kept[:-1]) <= p.protected_tokens

    def test_output_without_a_ref_keeps_its_head_and_says_so(self):
        """An output the blob store never got keeps a short head and is marked not retrievable."""
        c = Convo()
        c.user("go")
        c.call("bash", {"command": "make"}, "FIRST LINE of build\n" + big("b", 300), stored=False)
        c.call("bash", {"command": "ls"}, big("ls", 100))
        out = clear_tool_outputs(c.messages, plan(200, protected_ratio=0.0), COUNTER)
        text = out.messages[2].content
        assert "not retrievable" in text and "FIRST LINE of build" in text

    def test_results_of_the_step_in_flight_are_never_trimmed(self):
        """The trailing call's results (unseen by the model) stay whole even at a zero budget."""
        c = long_session(turns=2)
        c.calls([("read_file", {"path": "a.py"}, big("a", 200), True), ("compact_context", {}, None, True)])
        out = clear_tool_outputs(c.messages, plan(0, protected_ratio=0.0), COUNTER)
        assert out.messages[-1] is c.messages[-1]
        assert out.messages[-2] is c.messages[-2]
        assert check_invariants(c.messages, out.messages) == []

    def test_placeholder_names_the_refs_the_output_mentioned(self):
        """A trimmed `recall` listing still names the refs it pointed at."""
        c = Convo()
        c.user("what did we find before?")
        c.call("recall", {"query": "parser"}, "hit in ref=r_old_77 line 4\n" + big("recall", 100))
        c.call("bash", {"command": "ls"}, big("ls", 100))
        out = clear_tool_outputs(c.messages, plan(100, protected_ratio=0.0), COUNTER)
        assert "ref=r_old_77" in out.messages[2].content
        assert check_invariants(c.messages, out.messages) == []

    def test_nothing_to_do_under_the_budget(self):
        """Under the budget the same list comes back unchanged."""
        c = long_session(turns=1)
        out = clear_tool_outputs(c.messages, plan(10**6), COUNTER)
        assert out.changed == 0 and out.messages is c.messages


class TestPruning:
    def test_view_superseded_by_a_later_edit_becomes_one_line(self):
        """A file view followed by an edit of the same file becomes a one-line placeholder."""
        c = Convo()
        c.user("fix app")
        c.call("read_file", {"path": "./src/app.py"}, big("app", 312))
        c.call("edit_file", {"path": "src/app.py", "old": "x", "new": "y"}, "Edited src/app.py")
        c.say("done")
        c.user("thanks, next")
        c.call("bash", {"command": "ls"}, "a\nb")
        out = prune(c.messages, plan(0, protected_ratio=0.0), COUNTER)
        line = out.messages[2].content
        ref = c.messages[2].output_ref.id
        assert line.startswith("Superseded (the file was edited later): Viewed src/app.py")
        assert f"[ref={ref}]" in line and "\n" not in line

    def test_a_read_of_other_lines_supersedes_nothing(self):
        """Paged reads of different ranges both stay; a later whole read supersedes both."""
        c = Convo()
        c.user("read")
        c.call("read_file", {"path": "a.py", "offset": 0, "limit": 100}, big("p1", 100))
        c.call("read_file", {"path": "a.py", "offset": 100, "limit": 100}, big("p2", 100))
        from agent_tui.context.compaction.pruning import superseded_calls

        assert superseded_calls(c.messages) == {}
        c.call("read_file", {"path": "a.py"}, big("whole", 200))
        stale = superseded_calls(c.messages)
        assert set(stale) == {c.messages[1].tool_calls[0].id, c.messages[3].tool_calls[0].id}

    def test_old_errors_are_pruned_but_not_in_the_current_turn(self):
        """An error from an earlier turn becomes one line; an error of the current turn stays."""
        c = Convo()
        c.user("one")
        error = "Error: no such file: missing.py\n" + big("e", 50)
        c.call("read_file", {"path": "missing.py"}, error)
        c.say("not there")
        c.user("two")
        c.call("read_file", {"path": "gone.py"}, "Error: no such file: gone.py\n" + big("e2", 50))
        p = CompactionPlan.build(settings(protected_ratio=1.0), target_tokens=10, fixed_tokens=0)
        out = prune(c.messages, p, COUNTER)
        expected = "Old error: Viewed missing.py → error: Error: no such file"
        assert out.messages[2].content.startswith(expected)
        assert out.messages[-1] is c.messages[-1]

    def test_old_results_are_condensed_to_what_ran_and_its_ref(self):
        """`Ran: pytest -q → exit 1 [ref=…]` and `Viewed src/app.py (312 lines) [ref=…]`."""
        c = Convo()
        c.user("test")
        c.call("bash", {"command": "pytest -q"}, big("t", 80) + "\nexit code: 1")
        c.call("read_file", {"path": "src/app.py"}, big("app", 312))
        c.call("grep", {"pattern": "def main", "path": "src"}, big("g", 40))
        c.say("ok")
        c.user("more")
        c.call("bash", {"command": "ls"}, big("ls", 80))
        out = prune(c.messages, plan(0, protected_ratio=0.0), COUNTER)
        refs = [m.output_ref.id for m in c.messages if m.role == "tool"]
        assert out.messages[2].content == f"Ran: pytest -q → exit 1 [ref={refs[0]}]"
        assert out.messages[4].content == f"Viewed src/app.py (312 lines) [ref={refs[1]}]"
        searched = f"Searched: grep def main in src → 40 lines [ref={refs[2]}]"
        assert out.messages[6].content == searched
        assert len(out.messages) == len(c.messages)
        assert check_invariants(c.messages, out.messages, counter=COUNTER) == []

    def test_long_arguments_of_old_calls_are_cut_and_stay_valid_json(self):
        """A whole file passed to write_file keeps a head; the arguments still parse."""
        c = Convo()
        c.user("write it")
        body = "x = 1\n" * 2000
        c.call("write_file", {"path": "gen.py", "content": body}, "Wrote gen.py")
        c.say("written")
        c.user("next")
        c.call("bash", {"command": "ls"}, big("ls", 300))
        out = prune(c.messages, plan(0, protected_ratio=0.0), COUNTER)
        call = out.messages[1].tool_calls[0]
        args = json.loads(call.arguments)
        assert args["path"] == "gen.py" and "more characters not kept in context" in args["content"]
        assert call.id == c.messages[1].tool_calls[0].id
        assert check_invariants(c.messages, out.messages) == []


class TestTruncation:
    def test_keeps_the_newest_turns_and_notes_the_refs_of_what_went(self):
        """Whole old turns go; a note says how many and lists the refs they held, the newest
        within its cap and a count of the older ones."""
        c = long_session(turns=5, steps=2, lines=60)
        budget = tokens(c.messages) // 3
        out = truncate(c.messages, plan(budget), COUNTER)
        assert out.tokens <= budget
        note = next(m for m in out.messages if m.kind == "note")
        assert out.messages[0] is note
        assert out.messages[1].role == "user" and out.messages[1].kind == "chat"
        dropped = [m for m in c.messages if m not in out.messages]
        refs = collect_refs(dropped)
        listed = [r for r in refs if f"ref={r} — " in note.content]
        assert listed == refs[len(refs) - len(listed) :]
        if len(listed) < len(refs):
            assert f"[{len(refs) - len(listed)} older outputs not listed here" in note.content
        assert check_invariants(c.messages, out.messages, counter=COUNTER) == []

    def test_newest_user_message_and_step_in_flight_survive_a_zero_budget(self):
        """Even with no room at all, the newest request and the in-flight call stay."""
        c = long_session(turns=3)
        c.user("now compact please")
        c.calls([("compact_context", {}, None, True)])
        out = truncate(c.messages, plan(0), COUNTER)
        assert out.messages[-2] is c.messages[-2] and out.messages[-1] is c.messages[-1]
        assert check_invariants(c.messages, out.messages) == []

    def test_the_answer_to_the_newest_message_survives_a_zero_budget(self):
        """Compacting after a turn ended kept the user's question and dropped its answer (found
        against the real llama.cpp server): the next request showed the question unanswered."""
        c = long_session(turns=3)
        c.user("what did the tests say?")
        c.say("All 212 tests pass.")
        out = truncate(c.messages, plan(0), COUNTER)
        assert out.messages[-2] is c.messages[-2] and out.messages[-1] is c.messages[-1]
        assert check_invariants(c.messages, out.messages) == []

    def test_an_earlier_summary_is_kept_when_there_is_room(self):
        """The retain/summary pair of an earlier compaction stays ahead of the note."""
        c = long_session(turns=4, steps=2, lines=60)
        retain = Message(role="user", content="[Kept] decision: use WAL", kind="retain")
        summary = Message(role="assistant", content="[Summary] we did things", kind="summary")
        messages = [retain, summary, *c.messages]
        out = truncate(messages, plan(tokens(messages) // 3), COUNTER)
        assert out.messages[0] is retain and out.messages[1] is summary
        assert out.messages[2].kind == "note"


class TestToolOutputBudget:
    def test_under_budget_nothing_changes(self):
        """Below the budget the same list object comes back and nothing is freed."""
        c = long_session(turns=1)
        out, trimmed = trim_tool_outputs(c.messages, counter=COUNTER, budget_tokens=10**6)
        assert out is c.messages and trimmed == 0

    def test_over_budget_the_oldest_go_at_once_and_the_newest_stay(self):
        """Past the budget, oldest outputs are trimmed in one go to the low-water mark."""
        c = long_session(turns=3)
        tool_tokens = sum(COUNTER.count_message(m) for m in c.messages if m.role == "tool")
        budget = tool_tokens // 2
        out, trimmed = trim_tool_outputs(c.messages, counter=COUNTER, budget_tokens=budget)
        after = sum(COUNTER.count_message(m) for m in out if m.role == "tool")
        assert after <= budget * 0.75
        assert trimmed == sum(a is not b for a, b in zip(out, c.messages, strict=False)) > 0
        last_tool = max(i for i, m in enumerate(c.messages) if m.role == "tool")
        assert out[last_tool] is c.messages[last_tool]
        first_tool = next(i for i, m in enumerate(c.messages) if m.role == "tool")
        assert out[first_tool].content.startswith("[tool output trimmed; ref=")
        assert check_invariants(c.messages, out) == []

    def test_in_flight_results_are_kept(self):
        """The results of the step the model has not seen yet are never trimmed."""
        c = long_session(turns=1)
        c.calls([("read_file", {"path": f"f{i}.py"}, big(f"f{i}", 200), True) for i in range(3)])
        out, _ = trim_tool_outputs(c.messages, counter=COUNTER, budget_tokens=10)
        assert out[-3:] == c.messages[-3:]


class TestRefs:
    def test_refs_are_found_in_every_form_a_history_writes_them(self):
        """Output refs, `ref=`, `"ref_id": "…"`, bare store ids and ctx:// URIs count;
        `ref = node` and `ref=other` (no id shape) do not."""
        ref = ResultRef(id="r_abc123", byte_size=1, line_count=1, tool_name="bash")
        messages = [
            Message(role="tool", content="x", tool_call_id="c", name="bash", output_ref=ref),
            Message(role="user", content='see ref=r_def456 and read_result(ref_id="r_x_9")'),
            Message(role="user", content="ctx://home/me/proj/s_0123456789ab/r_00112233ff:L1-5"),
            Message(
                role="tool",
                content="bash output: 3 lines, stored whole as ref r_aabbccddee",
                tool_call_id="d",
                name="bash",
            ),
            Message(role="assistant", content="self.ref = node; foo(ref=other)"),
        ]
        assert collect_refs(messages) == ["r_abc123", "r_def456", "r_x_9", "r_00112233ff", "r_aabbccddee"]

    def test_every_id_the_store_makes_is_found(self):
        """The store's ref ids (and its view footers) are recognised, so GC and compaction agree."""
        from agent_tui.context.views import inline_view
        from agent_tui.store.refs import REF_RE, new_ref_id

        ref_id = new_ref_id()
        view = inline_view("line\n" * 5000, 4096, 2000, "bash", ref_id)
        found = collect_refs([Message(role="tool", content=view, tool_call_id="c", name="bash")])
        assert found == [ref_id] == REF_RE.findall(view)[:1]
