"""A reasoning model's thinking in the chat: a folded, dimmed block above the reply that shows a
live tail while it streams, then `thought for 4.2 s · 812 tokens`; Enter unfolds the whole text.
Through the real loop against the local OpenAI-compatible server streaming `reasoning_content`."""

from __future__ import annotations

import dataclasses
import re
import threading

import pytest

from agent_tui.base.messages import ToolCall, assistant, tool_result, user
from agent_tui.base.reasoning import Reasoning
from agent_tui.compose.factory import build_services
from agent_tui.frontends.tui.widgets.chat_items import AgentItem, ChatItem, ToolLine
from agent_tui.frontends.tui.widgets.status import WorkingLine
from agent_tui.frontends.tui.widgets.thinking import ThinkingItem
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, printed, screen_text, send, settle, until

THOUGHT = (
    "The user asks about the cart. First I should recall how totals are computed, then check "
    "whether quantities are multiplied in, and finally answer in one sentence."
)
HEADER = re.compile(r"▸ thought for (?:under )?\d+\.\d s · (\d+) tokens")


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


def chat_order(app) -> list[str]:
    return [type(w).__name__ for w in app.view.chat.children if isinstance(w, ChatItem)]


class TestThinkingBlock:
    async def test_folded_above_the_reply_with_tokens_and_duration(self, server, config, workspace):
        """A finished step shows one dimmed line above its answer; Enter unfolds the whole
        reasoning and folds it again; a finished block stops ticking."""
        server.enqueue(Reply(reasoning=THOUGHT, text="Quantities were ignored."))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "why is the cart total wrong?")
            await settle(pilot)
            assert chat_order(app) == ["UserItem", "ThinkingItem", "AgentItem"]
            block = app.query_one(ThinkingItem)
            assert block.entry.done and block.entry.text == THOUGHT and block._ticker is None
            assert block.size.height == 1
            screen = screen_text(app)
            match = HEADER.search(screen)
            assert match, screen
            stored = await app.view.services.store.sessions.transcript(app.view.session.session_id)
            assert int(match.group(1)) == stored[-1].reasoning.tokens > 0
            assert "finally answer in one sentence" not in screen  # folded: the header only
            assert "Quantities were ignored." in screen
            block.focus()
            await pilot.press("enter")
            await pilot.pause()
            assert block.size.height > 1
            assert "▾ thought for" in screen_text(app)
            assert "finally answer in one sentence." in screen_text(app)
            await pilot.press("enter")
            await pilot.pause()
            assert block.size.height == 1 and "finally answer" not in screen_text(app)
            await pilot.click(ThinkingItem)
            await pilot.pause()
            assert block.expanded

    async def test_live_tail_and_thinking_while_it_streams(self, server, config, workspace):
        """Mid-reasoning: the block shows a spinner, `thinking` and the latest words; the working
        line says thinking; the reply has not started."""
        gate = threading.Event()
        # role chunk, then two-word pieces: hold after "…recall how" has gone out.
        server.enqueue(Reply(reasoning=THOUGHT, text="Done.", hold=gate, hold_after=8))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "why?")
            try:
                await until(
                    pilot,
                    lambda: "recall how" in screen_text(app),
                    what="the tail of the thinking",
                )
                block = app.query_one(ThinkingItem)
                assert block.streaming and block._ticker is not None
                screen = screen_text(app)
                assert re.search(r"thinking · \d+\.\d s", screen)
                assert app.query_one(WorkingLine).state == "thinking"
                assert not app.query(AgentItem)
            finally:
                gate.set()
            await settle(pilot)
            assert HEADER.search(screen_text(app))

    async def test_working_line_streams_once_the_answer_starts(self, server, config, workspace):
        """When answer text arrives the block stops its tail (`thought for …`) and the working
        line switches from thinking to streaming."""
        gate = threading.Event()
        short = "Think a bit first."  # 2 reasoning pieces: chunks 1-2; the answer from chunk 3
        server.enqueue(Reply(reasoning=short, text="The answer comes now.", hold=gate, hold_after=4))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "go")
            try:
                await until(pilot, lambda: app.query(AgentItem), what="the answer")
                working = app.query_one(WorkingLine)
                await until(pilot, lambda: working.state == "streaming", what="streaming")
                block = app.query_one(ThinkingItem)
                assert not block.streaming and block._ticker is None
                await until(pilot, lambda: "thought for" in screen_text(app), what="the header")
                assert chat_order(app)[-2:] == ["ThinkingItem", "AgentItem"]
            finally:
                gate.set()
            await settle(pilot)

    async def test_each_step_thinks_before_its_calls(self, server, config, workspace):
        """Two steps: thinking, the tool line, thinking, the answer — in that order."""
        (workspace / "a.txt").write_text("alpha\n")
        server.enqueue(
            Reply(reasoning="I should read a.txt.", tool_calls=[("read_file", {"path": "a.txt"})]),
            Reply(reasoning="It says alpha.", text="The file says alpha."),
        )
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "what is in a.txt?")
            await settle(pilot)
            assert chat_order(app) == ["UserItem", "ThinkingItem", "ToolLine", "ThinkingItem", "AgentItem"]
            assert [b.entry.text for b in app.query(ThinkingItem)] == [
                "I should read a.txt.",
                "It says alpha.",
            ]
            assert app.query_one(ToolLine).entry.state == "ok"
            assert len(HEADER.findall(screen_text(app))) == 2

    async def test_interrupted_while_thinking_keeps_what_came(self, server, config, workspace):
        """Esc mid-reasoning: the block stops ticking and keeps the text that streamed."""
        gate = threading.Event()
        server.enqueue(Reply(reasoning=THOUGHT, text="never", hold=gate, hold_after=4))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "why?")
            try:
                await until(pilot, lambda: app.query(ThinkingItem), what="the block")
                block = app.query_one(ThinkingItem)
                await until(pilot, lambda: "the cart." in block.text, what="some thinking")
                await pilot.press("escape")
                await settle(pilot)
            finally:
                gate.set()
            assert block.entry.done and block._ticker is None
            assert block.entry.text.startswith("The user asks about the cart.")
            assert re.search(r"▸ thought for \d+\.\d s", screen_text(app))


class TestResumed:
    async def test_stored_reasoning_shows_as_the_same_folded_block(self, server, config, workspace):
        """A resumed session replays each reply's reasoning as a folded block above it."""
        call = ToolCall("call_1", "read_file", '{"path": "a.txt"}')
        thought = Reasoning(text="Read it first, then answer.", tokens=812, duration=4.2)
        history = [
            user("what is in a.txt?"),
            dataclasses.replace(assistant(None, (call,)), reasoning=thought),
            tool_result(call, "alpha"),
            assistant("It says alpha."),
        ]
        services = await build_services(config, workspace=workspace)
        info = await services.store.sessions.create(str(workspace), config.model.name)
        await services.store.sessions.append(info.id, history)
        await services.close()
        app = make_app(config, workspace, session_id=info.id)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            assert chat_order(app) == ["UserItem", "ThinkingItem", "ToolLine", "AgentItem"]
            assert "▸ thought for 4.2 s · 812 tokens" in screen_text(app)
            block = app.query_one(ThinkingItem)
            block.focus()
            await pilot.press("enter")
            await pilot.pause()
            assert "Read it first, then answer." in screen_text(app)


def notices(app) -> str:
    from agent_tui.frontends.tui.textual_compat import notifications

    return "\n".join(str(n.message) for n in notifications(app))


class TestEffortCommand:
    async def test_shows_sets_and_sends_the_effort(self, server, config, workspace):
        """/effort alone says the setting; /effort high goes out as reasoning_effort on the next
        request; /effort off sends nothing again."""
        server.enqueue(Reply(text="one"), Reply(text="two"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/effort")
            # Command output is a block in the chat (frontends/tui/command_output.py), not a toast.
            await until(pilot, lambda: "Reasoning: off" in printed(app), what="the setting")
            await send(pilot, "/effort high")
            await until(pilot, lambda: "effort high" in printed(app) + notices(app), what="the change")
            assert app.view.session.provider.reasoning.effort == "high"
            await send(pilot, "think hard")
            await settle(pilot)
            assert server.requests[-1]["reasoning_effort"] == "high"
            await send(pilot, "/effort off")
            await settle(pilot)
            await send(pilot, "now lightly")
            await settle(pilot)
            assert "reasoning_effort" not in server.requests[-1]

    async def test_a_level_keeps_the_budget_and_off_clears_both(self, server, tmp_path, workspace):
        """A configured thinking budget survives a new level; off clears effort and budget."""
        config = make_config(
            server, tmp_path / "ui.db", model={"reasoning_effort": "low", "thinking_budget_tokens": 2048}
        )
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            provider = app.view.session.provider
            assert provider.reasoning.effort == "low"
            await send(pilot, "/effort medium")
            await settle(pilot)
            assert (provider.reasoning.effort, provider.reasoning.thinking_budget_tokens) == ("medium", 2048)
            await send(pilot, "/effort off")
            await settle(pilot)
            assert not provider.reasoning.enabled
            assert provider.reasoning.thinking_budget_tokens == 0

    async def test_a_bad_level_is_one_line_and_changes_nothing(self, server, config, workspace):
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/effort extreme")
            # The driver's warning reply (set_effort refused the level), a block like any reply.
            await until(pilot, lambda: "Unknown effort" in printed(app), what="the warning")
            assert "minimal, low, medium, high or off" in printed(app)
            assert not app.view.session.provider.reasoning.enabled

    async def test_a_model_switch_keeps_the_effort(self, server, config, workspace):
        """/model builds a new provider: the session's /effort goes with it."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/effort minimal")
            await settle(pilot)
            await send(pilot, "/model openai/other-model")
            await settle(pilot)
            assert app.view.session.model == "openai/other-model"
            assert app.view.session.provider.reasoning.effort == "minimal"


class TestInThePane:
    async def test_a_long_thinking_shows_only_its_last_lines(self):
        """Thousands of words stream in: the block stays a header and TAIL_LINES lines, the
        newest words last, marked as going on above."""
        from agent_tui.frontends.tui.transcript import ThinkingEntry
        from agent_tui.frontends.tui.widgets.chat import ChatPane
        from agent_tui.frontends.tui.widgets.thinking import TAIL_LINES
        from tests.support.ui_widgets import ChatApp

        app = ChatApp()
        async with app.run_test(size=(80, 30)) as pilot:
            pane = app.query_one(ChatPane)
            block = await pane.add(ThinkingEntry("", done=False))
            for i in range(3000):
                block.append(f"word{i} ")
            await until(pilot, lambda: "word2999" in screen_text(app), what="the newest words")
            assert block.size.height == 1 + TAIL_LINES
            tail = screen_text(app).splitlines()
            first = next(line for line in tail if "…" in line)
            assert "word0 " not in screen_text(app) and first.strip().startswith("…")

    async def test_finished_blocks_do_not_tick_and_survive_unmounting(self):
        """Stored thinking in a long session: no block ticks; one scrolled out and back is
        mounted again folded, with its totals."""
        from agent_tui.frontends.tui.transcript import ThinkingEntry
        from agent_tui.frontends.tui.widgets.chat import KEEP_SCREENS, TRIM_STEP, ChatPane
        from tests.support.ui_widgets import ChatApp, many

        entries = [e for i, a in enumerate(many(200)) for e in (ThinkingEntry(f"thought {i}", 7, 1.5), a)]
        app = ChatApp()
        async with app.run_test(size=(100, 30)) as pilot:
            pane = app.query_one(ChatPane)
            for entry in entries:
                await pane.add(entry)
                pane.scroll_end(animate=False, immediate=True)
            await pilot.pause()
            assert pane.mounted_count <= KEEP_SCREENS * pane.size.height + TRIM_STEP
            blocks = list(app.query(ThinkingItem))
            assert blocks and all(b._ticker is None for b in blocks)
            assert pane.unmounted_count and "thought 0" not in [b.entry.text for b in blocks]
            await pane.mount_older(pane.unmounted_count)  # what scrolling to the top does, in batches
            await pilot.pause()
            first = next(b for b in app.query(ThinkingItem) if b.entry.text == "thought 0")
            assert not first.expanded and first._ticker is None


class TestRedacted:
    async def test_thinking_without_text_still_goes_above_its_answer(self, server, config, workspace):
        """Anthropic may send only redacted blocks: no delta streams, the step's answer does, and
        the finished event puts the block above it; unfolded it says it was redacted."""
        from agent_tui.agent import events as ev
        from agent_tui.frontends.tui.events import AgentEventMessage

        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            view = app.view
            view.working.start("thinking")
            for event in (ev.StepStarted(1), ev.TextDelta("The answer."), ev.ReasoningFinished(50, 1.0)):
                view.post_message(AgentEventMessage(event))
            await until(pilot, lambda: app.query(ThinkingItem), what="the block")
            assert chat_order(app) == ["ThinkingItem", "AgentItem"]
            assert "▸ thought for 1.0 s · 50 tokens" in screen_text(app)
            block = app.query_one(ThinkingItem)
            block.focus()
            await pilot.press("enter")
            await pilot.pause()
            assert "redacted" in screen_text(app)
            assert view.chat.entries[0] == block.entry
