"""Property tests: every strategy, on any conversation with tool calls, keeps the invariants.

Hypothesis builds conversations of turns, multi-call steps, errors, unstored outputs, reads and
edits of a few shared paths, an earlier compaction's retain/summary pair, and sometimes a step
still in flight; each strategy and the whole chain must then leave a history that pairs every
call with its results, keeps the newest user message and loses no ref.
"""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from agent_tui.base.messages import Message
from agent_tui.context.compaction import (
    CompactionPlan,
    check_invariants,
    clear_tool_outputs,
    compact,
    prune,
    summarize,
    trim_tool_outputs,
    trimmed_placeholder,
    truncate,
)
from agent_tui.context.compaction.shape import inflight_start
from agent_tui.context.compaction.tool_budget import tool_output_tokens
from tests.support.compaction import COUNTER, Convo, settings, tokens

TOOLS = ("read_file", "edit_file", "bash", "grep", "recall", "mcp__fetch")
PATHS = ("src/a.py", "./src/a.py", "src/b.py", "README.md")
PROPERTY = hsettings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@st.composite
def outputs(draw) -> str:
    lines = draw(st.integers(0, 40))
    text = "\n".join(f"line {i} of output" for i in range(lines))
    if draw(st.booleans()) and draw(st.booleans()):
        text = "Error: it failed\n" + text
    if draw(st.integers(0, 9)) == 0:
        text += "\nsee ref=r_x_00042"  # a ref named in text only, no output of its own here
    return text


@st.composite
def conversations(draw) -> list[Message]:
    c = Convo()
    messages: list[Message] = []
    if draw(st.booleans()):
        messages += [
            Message(role="user", content="[Kept] ref=r_old_1", kind="retain"),
            Message(role="assistant", content="[Summary] earlier work", kind="summary"),
        ]
    for t in range(draw(st.integers(1, 5))):
        c.user(f"request {t}")
        for _ in range(draw(st.integers(0, 4))):
            specs = []
            for _ in range(draw(st.integers(1, 3))):
                name = draw(st.sampled_from(TOOLS))
                args = {"path": draw(st.sampled_from(PATHS))}
                if name == "bash":
                    args = {"command": "pytest -q"}
                if name == "edit_file" and draw(st.booleans()):
                    args["content"] = "x" * draw(st.integers(0, 3000))
                specs.append((name, args, draw(outputs()), draw(st.integers(0, 5)) > 0))
            c.calls(specs, text=draw(st.sampled_from([None, "working on it"])))
        if draw(st.booleans()):
            c.say(f"answer {t}")
    ending = draw(st.sampled_from(["done", "in_flight", "partial"]))
    if ending != "done":
        specs = [("compact_context", {}, None, True), ("bash", {"command": "ls"}, "a\nb", True)]
        if ending == "partial":
            specs.reverse()  # the bash result arrived, compact_context's has not
        c.calls(specs)
    return messages + c.messages


budgets = st.floats(0.0, 1.2)
ratios = st.floats(0.0, 0.6)


def make_plan(messages: list[Message], share: float, ratio: float, turns: int = 1) -> CompactionPlan:
    cfg = settings(protected_ratio=ratio, retain_last_turns=turns)
    return CompactionPlan.build(cfg, target_tokens=int(tokens(messages) * share), fixed_tokens=0)


class TestEachStrategy:
    @PROPERTY
    @given(conversations(), budgets, ratios)
    def test_clearing_keeps_the_invariants(self, messages, share, ratio):
        """Tool-output clearing: pairing, newest user message, refs, no growth."""
        out = clear_tool_outputs(messages, make_plan(messages, share, ratio), COUNTER)
        assert check_invariants(messages, out.messages, counter=COUNTER) == []

    @PROPERTY
    @given(conversations(), budgets, ratios)
    def test_pruning_keeps_the_invariants(self, messages, share, ratio):
        """Pruning never deletes a result and never loses a ref."""
        out = prune(messages, make_plan(messages, share, ratio), COUNTER)
        assert len(out.messages) == len(messages)
        assert check_invariants(messages, out.messages, counter=COUNTER) == []

    @PROPERTY
    @given(conversations(), budgets)
    def test_truncation_keeps_the_invariants(self, messages, share):
        """Truncation drops whole units only and its note names every dropped ref."""
        out = truncate(messages, make_plan(messages, share, 0.25), COUNTER)
        assert check_invariants(messages, out.messages, counter=COUNTER) == []

    @PROPERTY
    @given(conversations(), budgets, st.integers(0, 3), st.sampled_from(["tagged", "untagged", "drops"]))
    def test_summary_keeps_the_invariants(self, messages, share, turns, style):
        """Whatever the summariser returns, the summarised part's refs end up in the retain."""

        async def summarizer(history, instructions, max_tokens):
            if style == "untagged":
                return "plain summary"
            retain = "" if style == "drops" else "ref=r_x_00042"
            return f"<retain>{retain}</retain><summary>s</summary>"

        plan = make_plan(messages, share, 0.25, turns)
        out = asyncio.run(summarize(messages, plan, COUNTER, summarizer, instructions="i"))
        assert check_invariants(messages, out.messages, counter=COUNTER) == []

    @PROPERTY
    @given(conversations(), st.floats(0.0, 1.0))
    def test_tool_budget_keeps_the_invariants(self, messages, share):
        """The per-step cap trims oldest outputs only, down to the low-water mark or what's kept."""
        budget = int(tool_output_tokens(messages, COUNTER) * share)
        out, trimmed = trim_tool_outputs(messages, counter=COUNTER, budget_tokens=budget)
        assert check_invariants(messages, out, counter=COUNTER) == []
        assert trimmed == sum(a is not b for a, b in zip(out, messages, strict=False))
        if tool_output_tokens(messages, COUNTER) <= budget:
            assert trimmed == 0 and out is messages  # under budget: nothing is touched
            return
        if tool_output_tokens(out, COUNTER) <= budget * 0.75:
            return
        # Still over: every output left whole is protected or would not shrink as a placeholder.
        start = inflight_start(out)
        newest = max((i for i, m in enumerate(out) if m.role == "tool"), default=None)
        for i, m in enumerate(out):
            if m.role != "tool" or m.content.startswith("[tool output trimmed"):
                continue
            if i == newest or (start is not None and i > start):
                continue
            placeholder = m.with_content(trimmed_placeholder(m))
            assert COUNTER.count_message(placeholder) >= COUNTER.count_message(m)


class TestWholeChain:
    @PROPERTY
    @given(
        conversations(), budgets, ratios, st.sampled_from(["ok", "untagged", "raises", "none"]), st.booleans()
    )
    def test_chain_keeps_the_invariants_and_explains_a_miss(self, messages, share, ratio, kind, force):
        """compact(): invariants hold, growth is never applied, a missed target has a reason."""

        async def summarizer(history, instructions, max_tokens):
            if kind == "raises":
                raise TimeoutError("slow model")
            return "plain" if kind == "untagged" else "<retain>x</retain><summary>y</summary>"

        cfg = settings(protected_ratio=ratio)
        target = int(tokens(messages) * share)
        out, result = asyncio.run(
            compact(
                messages,
                counter=COUNTER,
                settings=cfg,
                target_tokens=target,
                fixed_tokens=0,
                summarizer=None if kind == "none" else summarizer,
                force=force,
            )
        )
        assert check_invariants(messages, out, counter=COUNTER, result=result) == []
        if not result.applied:
            assert out == messages and result.reason


class TestTheCheckItself:
    """The checker must catch what it guards against, or the properties above prove nothing."""

    @PROPERTY
    @given(conversations(), st.data())
    def test_dropping_any_tool_result_is_caught(self, messages, data):
        """Removing one answered result before the end leaves a call unanswered: reported."""
        answered = [i for i, m in enumerate(messages) if m.role == "tool"]
        if not answered:
            return
        i = data.draw(st.sampled_from(answered))
        broken = messages[:i] + messages[i + 1 :]
        assert check_invariants(messages, broken) != []

    def test_orphan_result_is_caught(self):
        """A result whose call is gone is reported."""
        c = Convo()
        c.user("go")
        c.call("bash", {"command": "ls"}, "a")
        c.say("done")
        broken = [c.messages[0], c.messages[2], c.messages[3]]
        assert any("follows no call" in p for p in check_invariants(c.messages, broken))

    def test_lost_ref_and_lost_newest_user_message_are_caught(self):
        """Dropping a turn with its refs and the newest request is reported twice over."""
        c = Convo()
        c.user("first")
        c.call("bash", {"command": "ls"}, "a")
        c.say("done")
        c.user("second")
        problems = check_invariants(c.messages, c.messages[:1])
        assert any("newest user message" in p for p in problems)
        assert any("refs no longer in the history" in p for p in problems)

    def test_growth_and_a_silent_miss_are_caught(self):
        """A longer history, or an over-target result with no reason, is reported."""
        from agent_tui.context.compaction import CompactResult

        c = Convo()
        c.user("go")
        grown = [*c.messages, Message(role="assistant", content="more " * 50)]
        result = CompactResult(10, 100, 1, 2, ("pruning",), 0.0, None, False, "", True, target_tokens=5)
        problems = check_invariants(c.messages, grown, counter=COUNTER, result=result)
        assert any("grew" in p for p in problems)
        assert any("no reason" in p for p in problems)
