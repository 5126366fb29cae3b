"""The tab controller's rules, driven without a screen (frontends/tui/tab_controller.py).

A `Tab` below plays the view: it keeps what the operations leave on a screen (the spinner, the
open tool lines, the live blocks, the input, the queue) and feeds `SendNext` and `/compact` back
into the controller as `SessionView` does. Hypothesis sends random mixes of prompts, commands,
agent events, approvals and worker endings through it.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from typing import get_args

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.agent import events as ev
from agent_tui.base.messages import ToolCall
from agent_tui.frontends.tui import tab_ops as op
from agent_tui.frontends.tui.tab_controller import TabController, WorkerEnd, tab_label

QUEUEABLE = ("p0", "p1", "p2", "p3", "p4", "!ls", "/compact", "/effort high")
"""Sends that wait behind running work (prompts, the user's own command, idle commands: one that
starts work and one that does not)."""


@dataclass
class Tab:
    """What a view shows after applying the controller's operations, and what it sent."""

    controller: TabController = field(default_factory=TabController)
    spinner: str | None = None
    activity: str | None = None
    open_tools: dict[str, str] = field(default_factory=dict)
    answer_open: bool = False
    thinking_open: bool = False
    input: str = ""
    queue: list[str] = field(default_factory=list)
    worker: tuple[str, str | None] | None = None
    dispatched: list[str] = field(default_factory=list)
    """Queueable sends in the order they went out (a worker started, a command ran)."""
    restored: list[str] = field(default_factory=list)
    busy_flips: list[bool] = field(default_factory=list)
    opened: bool = True
    """The view has a driver to submit to (False while it opens)."""

    def send(self, text: str) -> None:
        self.apply(self.controller.send(text, has_session=True, opened=self.opened))

    def apply(self, operations: list[op.ViewOp]) -> None:
        for operation in operations:
            self._apply(operation)

    def _apply(self, operation: op.ViewOp) -> None:
        match operation:
            case op.StartWorking(state):
                self.spinner = state
            case op.SetWorking(state):
                if self.spinner is not None:  # as WorkingLine: a hidden line ignores it
                    self.spinner = state
            case op.StopWorking():
                self.spinner = None
            case op.SetActivity(text):
                self.activity = text
            case op.OpenTool(call_id, entry):
                assert call_id not in self.open_tools
                self.open_tools[call_id] = entry.state
            case op.UpdateTool(call_id, entry):
                assert call_id in self.open_tools, "a closed tool line was updated"
                self.open_tools[call_id] = entry.state
            case op.CloseTool(call_id, entry):
                assert self.open_tools.pop(call_id, None) is not None, "a tool line closed twice"
                assert entry.state in ("ok", "error", "cancelled")
            case op.AppendAnswer():
                self.answer_open = True
            case op.CommitAnswer():
                assert self.answer_open, "no answer to commit"
                self.answer_open = False
            case op.AppendThinking():
                self.thinking_open = True
            case op.CloseThinking():
                assert self.thinking_open, "no thinking block to close"
                self.thinking_open = False
            case op.RestorePrompt(text):
                self.restored.append(text)
                if not self.input:
                    self.input = text
            case op.QueuePush(text):
                self.queue.append(text)
            case op.QueuePop():
                self.queue.pop(0)
            case op.SendNext(text):
                self.send(text)
            case op.RunCommand(parsed):
                self.dispatched.append(f"/{parsed.command.name} {parsed.argument}".strip())
                if parsed.command.name == "compact":  # its handler starts the compaction
                    self.apply(self.controller.compact(parsed.argument or None, has_session=True))
                self.apply(self.controller.command_ran())  # as the view, once the handler returned
            case op.StartWorker(kind, argument):
                assert self.worker is None, "a second worker while one runs"
                self.worker = (kind, argument)
                if kind == "turn":
                    self.dispatched.append(argument or "")
                elif kind == "command":
                    self.dispatched.append(f"!{argument}")
            case op.BusyChanged(busy):
                self.busy_flips.append(busy)
            case _:
                pass  # chat lines, the meter's figures, toasts: nothing to keep track of

    def end_worker(self, end: WorkerEnd) -> None:
        self.worker = None
        self.apply(self.controller.worker_finished(end))


def _call(n: int) -> ToolCall:
    return ToolCall(f"call_{n}", "bash", '{"command": "ls"}')


def _finished(n: int, *, denied: bool = False) -> ev.ToolCallFinished:
    summary = "denied" if denied else "exit 0"
    return ev.ToolCallFinished(_call(n), None, denied, summary, "", 0.1, "denied" if denied else "ok")


EVENTS = st.one_of(
    st.builds(ev.TextDelta, st.sampled_from(["a", "bc"])),
    st.builds(ev.ReasoningDelta, st.just("hm")),
    st.builds(ev.ReasoningFinished, st.integers(0, 9), st.floats(0, 2)),
    st.builds(ev.StepStarted, st.integers(1, 3)),
    st.integers(0, 3).map(lambda n: ev.ToolCallStarted(_call(n))),
    st.tuples(st.integers(0, 3), st.booleans()).map(lambda t: _finished(t[0], denied=t[1])),
    st.builds(ev.ErrorEvent, st.just("the server said no"), st.just("server")),
    st.builds(ev.Notice, st.just("careful")),
    st.builds(ev.CompactionStarted, st.just("auto"), st.integers(0, 9)),
    st.builds(ev.CompactionProgress, st.sampled_from(["tool_clearing", "summary"])),
    st.sampled_from(["done", "error", "denied", "cancelled"]).map(
        lambda reason: ev.TurnFinished("", stop_reason=reason)  # type: ignore[arg-type]
    ),
)

ACTIONS = st.one_of(
    st.tuples(st.just("send"), st.sampled_from([*QUEUEABLE, "/nosuch"])),
    st.tuples(st.just("event"), EVENTS),
    st.tuples(st.just("approval"), st.sampled_from(["bash", None])),
    st.tuples(st.just("end"), st.sampled_from(["success", "error", "cancelled", "esc-error"])),
)


@dataclass
class Expect:
    """The failure rule stated plainly, followed beside the controller for the running turn."""

    prompt: str | None = None
    errored: bool = False
    replied: bool = False


def _run(actions: list[tuple[str, object]]) -> Tab:
    tab = Tab()
    sent: list[str] = []
    expect = Expect()
    expected_restores: list[str] = []
    calls = 0

    def track_new_turn() -> None:
        nonlocal expect
        expect = Expect(prompt=tab.worker[1] if tab.worker and tab.worker[0] == "turn" else None)

    def end(kind: str) -> None:
        outcome = "error" if kind == "esc-error" else kind
        if kind == "esc-error":  # Esc, and the cancel surfaced as an error from the HTTP client
            tab.controller.cancelling()
        failed = expect.errored or kind == "error"
        if expect.prompt is not None and failed and not expect.replied:
            expected_restores.append(expect.prompt)
        # Esc stops everything: the sends that waited come back to the input, not sent.
        waiting = list(tab.queue) if kind in ("cancelled", "esc-error") else []
        tab.end_worker(WorkerEnd("run_turn", outcome, "boom"))  # type: ignore[arg-type]
        if waiting:
            expected_restores.append("\n".join(waiting))
            del sent[len(sent) - len(waiting) :]
        track_new_turn()  # a queued send may have started the next one

    for action, value in actions:
        if action == "send":
            text = str(value)
            if text in QUEUEABLE:
                sent.append(text)
            else:
                expected_restores.append(text)  # refused at once, back in the input
            idle = tab.worker is None
            tab.send(text)
            if idle:
                track_new_turn()
        elif action == "event" and tab.worker is not None:
            event = value
            assert isinstance(event, ev.TurnEvent)
            if isinstance(event, ev.ToolCallStarted):  # providers never reuse a call id
                calls += 1
                event = ev.ToolCallStarted(_call(calls))
            elif isinstance(event, ev.ToolCallFinished):  # n: one of the calls so far (or none)
                event = _finished(calls - int(event.call.id.split("_")[1]), denied=event.is_error)
            if isinstance(event, (ev.TextDelta, ev.ToolCallStarted)):
                expect.replied = True
            if isinstance(event, ev.ErrorEvent):
                expect.errored = True
            if isinstance(event, ev.TurnFinished) and event.stop_reason != "error":
                expect.errored = False
            tab.apply(tab.controller.event(event))
        elif action == "approval" and tab.worker is not None:
            tab.apply(tab.controller.awaiting(value))  # type: ignore[arg-type]
        elif action == "end" and tab.worker is not None:
            end(str(value))
        assert tab.restored == expected_restores, "a prompt is restored exactly when its send failed"
        _idle_invariants(tab)
    while tab.worker is not None:  # the user waits: every queued send goes out
        end("success")
        _idle_invariants(tab)
    assert tab.dispatched == sent, "each queueable send went out exactly once, in order"
    assert tab.restored == expected_restores
    return tab


def _idle_invariants(tab: Tab) -> None:
    """Whenever no worker runs: nothing spins and nothing is left open."""
    if tab.worker is not None:
        return
    assert not tab.controller.busy
    assert tab.spinner is None, "a spinner runs after the turn ended"
    assert tab.activity is None, "the meter still says it is compacting"
    assert tab.open_tools == {}, "a tool line was left open"
    assert not tab.answer_open and not tab.thinking_open
    assert tab.queue == list(tab.controller.queue) == []


class TestProperties:
    @settings(max_examples=300, deadline=None)
    @given(st.lists(ACTIONS, max_size=40))
    def test_random_sequences_keep_the_tabs_rules(self, actions):
        """Over any mix of sends, events, approvals and endings: no spinner or tool line is left
        open once idle, a prompt comes back exactly when its send failed, queued sends go out
        once each in order, and busy flips strictly alternate."""
        tab = _run(actions)
        assert all(a != b for a, b in zip(tab.busy_flips, tab.busy_flips[1:], strict=False))


class TestExamples:
    def test_a_failed_send_comes_back_to_the_input(self):
        """A turn that errs before any reply puts its prompt back."""
        tab = Tab()
        tab.send("fix it")
        tab.apply(tab.controller.event(ev.ErrorEvent("rate limited", "rate_limit")))
        tab.end_worker(WorkerEnd("run_turn", "success"))
        assert tab.input == "fix it"

    def test_a_reply_keeps_the_prompt_sent(self):
        """Once text streamed, a later failure does not put the prompt back."""
        tab = Tab()
        tab.send("fix it")
        tab.apply(tab.controller.event(ev.TextDelta("On it")))
        tab.end_worker(WorkerEnd("run_turn", "error", "connection reset"))
        assert tab.input == "" and tab.restored == []

    def test_a_cancel_closes_a_line_awaiting_approval(self):
        """Esc while the approval is asked: the tool line ends cancelled, not awaiting."""
        tab = Tab()
        tab.send("clean up")
        tab.apply(tab.controller.event(ev.ToolCallStarted(_call(1))))
        tab.apply(tab.controller.awaiting("bash"))
        assert tab.open_tools == {"call_1": "awaiting"} and tab.spinner == "awaiting approval"
        tab.controller.cancelling()
        tab.end_worker(WorkerEnd("run_turn", "cancelled"))
        assert tab.open_tools == {} and tab.spinner is None

    def test_sends_while_busy_wait_in_order(self):
        """Two sends during a turn wait, then go out one per finished turn."""
        tab = Tab()
        tab.send("first")
        tab.send("second")
        tab.send("third")
        assert tab.queue == ["second", "third"]
        tab.end_worker(WorkerEnd("run_turn", "success"))
        assert tab.worker == ("turn", "second") and tab.queue == ["third"]

    def test_a_command_that_starts_no_work_lets_the_sends_behind_it_go(self):
        """/effort waited behind a turn: once it ran, the prompt queued after it goes out."""
        tab = Tab()
        tab.send("first")
        tab.send("/effort high")
        tab.send("second")
        tab.end_worker(WorkerEnd("run_turn", "success"))
        assert tab.dispatched == ["first", "/effort high", "second"]
        assert tab.worker == ("turn", "second") and tab.queue == []

    def test_a_command_the_driver_answers_waits_for_the_opening(self):
        """/status runs at once, but not before the tab has a driver: typed while the tab opens
        it waits, and runs when the opening ends; with no driver after it, it comes back."""
        tab = Tab(opened=False)
        tab.apply(tab.controller.began())
        tab.send("/status")
        assert tab.queue == ["/status"] and tab.dispatched == []
        tab.opened = True
        tab.end_worker(WorkerEnd("open_session", "success"))
        assert tab.dispatched == ["/status"] and tab.queue == []
        failed = Tab(opened=False)
        failed.send("/status")
        assert failed.dispatched == [] and failed.input == "/status"

    def test_an_unknown_command_is_refused_at_once(self):
        """/nosuch is not queued behind a turn: it is refused and put back."""
        tab = Tab()
        tab.send("first")
        tab.send("/nosuch x")
        assert tab.queue == [] and tab.input == "/nosuch x"

    def test_the_tab_label_is_cut_to_fit(self):
        """The first prompt names a new tab, cut with an ellipsis."""
        controller = TabController()
        ops = controller.send("fix the flaky cart tests in the checkout module", has_session=True)
        assert op.Retitle(tab_label("fix the flaky cart tests in the checkout module")) in ops
        assert controller.title.endswith("…")


def test_the_view_s_two_sets_of_operations_cover_every_operation_once():
    """`TAB_OPS` (what the view does itself) is `TabOp`, and with `RenderOp` makes `ViewOp`."""
    assert set(op.TAB_OPS) == set(get_args(op.TabOp))
    assert set(get_args(op.TabOp)).isdisjoint(get_args(op.RenderOp))
    assert set(get_args(op.ViewOp)) == set(get_args(op.TabOp)) | set(get_args(op.RenderOp))


def test_the_controller_imports_no_textual():
    """The controller and its operations load without Textual (a headless seam)."""
    code = "import sys, agent_tui.frontends.tui.tab_controller; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
