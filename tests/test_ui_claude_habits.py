"""What a Claude Code user reaches for in the first minutes, through the real app: a first screen
that says where you are (model, folder, trust, the rules and memories loaded, keys) and /status
listing the loaded files — before, the screen was blank; `# note` saving a memory (it went to the
model); /cost saying `unknown` rather than `$0.0000`; Esc stopping everything, the queued text
back in the input (it was sent at once); a command's output scrolled into view after PageUp; a
paste's chip, not its 40 lines, back in the input after a failed send."""

from __future__ import annotations

import threading

import pytest

from agent_tui.context.memory import memories_file
from agent_tui.frontends.tui import slash
from agent_tui.policy import trust
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, printed, screen_text, send, settle, until

SMALL = (80, 24)


@pytest.fixture
def config(server, tmp_path, workspace):
    return make_config(server, tmp_path / "ui.db", cwd=workspace)


def welcome_of(app) -> str:
    welcome = app.view.chat.welcome
    return str(welcome.render()) if welcome.display else ""


class TestWelcome:
    async def test_a_new_session_names_model_folder_trust_and_loaded_files(self, server, config, workspace):
        (workspace / "CLAUDE.md").write_text("# Rules\nUse tabs.\n")
        memories_file().parent.mkdir(parents=True, exist_ok=True)
        memories_file().write_text("- the user prefers short answers\n")
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            text = screen_text(app)
            assert "openai/fake-model" in text
            assert "nothing here needs trust" in text
            assert "CLAUDE.md (" in text and "memories " in text
            assert "/ commands" in text and "# note saves a memory" in text

    async def test_an_untrusted_folder_says_so_and_how_to_trust_it(self, server, config, workspace):
        (workspace / ".claude" / "commands").mkdir(parents=True)
        (workspace / ".claude" / "commands" / "review.md").write_text("Review.\n")
        app = make_app(config, workspace)
        try:
            async with app.run_test(size=(120, 36)) as pilot:
                await settle(pilot)
                while app.screen is not app.screen_stack[0]:  # the trust question: not now
                    await pilot.press("n")
                    await settle(pilot)
                assert "not trusted: its hooks, commands and settings are off (/trust)" in welcome_of(app)
                assert "no CLAUDE.md or AGENTS.md, no memories" in welcome_of(app)
        finally:
            slash.set_custom([])

    async def test_a_resumed_session_has_no_welcome(self, server, config, workspace):
        server.enqueue(Reply(text="hello"))
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await send(pilot, "hi")
            await settle(pilot)
            session_id = app.view.session.session_id
        again = make_app(config, workspace, session_id=session_id)
        async with again.run_test(size=SMALL) as pilot:
            await settle(pilot)
            assert welcome_of(again) == ""

    async def test_status_lists_the_loaded_files(self, server, config, workspace):
        (workspace / "AGENTS.md").write_text("# Rules\n")
        trust.add(workspace)
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/status")
            await settle(pilot)
            assert "Loaded   AGENTS.md (8 B)" in printed(app)


class TestHashSavesAMemory:
    async def test_hash_line_is_remembered_not_sent(self, server, config, workspace):
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await send(pilot, "# the tests run with make check")
            await settle(pilot)
            assert "Remembered" in printed(app)
            await send(pilot, "## a heading is a prompt")
            await settle(pilot)
        assert "the tests run with make check" in memories_file().read_text()
        assert len(server.requests) == 1  # only the heading went to the model
        assert server.requests[0]["messages"][-1]["content"] == "## a heading is a prompt"


class TestCostNeverZero:
    async def test_cost_is_unknown_without_prices_also_after_resume(self, server, config, workspace):
        """`/cost` said `$0.0000` and `Input 0 tokens` for a model without prices and after a
        resume; the README promises `unknown`, never 0."""
        server.enqueue(Reply(text="hello"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/cost")
            await settle(pilot)
            assert "unknown (no prices for openai/fake-model)" in printed(app)
            assert "$0" not in printed(app)
            await send(pilot, "hi")
            await settle(pilot)
            session_id = app.view.session.session_id
        again = make_app(config, workspace, session_id=session_id)
        async with again.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/cost")
            await settle(pilot)
            said = printed(again)
            assert "unknown (no prices" in said and "$0" not in said
            assert "none since it was opened here" in said


class TestEscStopsEverything:
    async def test_esc_returns_the_queued_text_to_the_input(self, server, config, workspace):
        """Esc cancelled the turn and sent the queued message at once; now the queued text
        comes back to the input and nothing more goes to the model."""
        hold = threading.Event()
        server.enqueue(Reply(text="a long answer that streams slowly", hold=hold, hold_after=1))
        app = make_app(config, workspace)
        try:
            async with app.run_test(size=(120, 36)) as pilot:
                await settle(pilot)
                await send(pilot, "first question")
                await until(pilot, lambda: len(server.requests) == 1, what="the request")
                await send(pilot, "then this")
                await until(pilot, lambda: bool(app.view.controller.queue), what="the queue")
                await pilot.press("escape")
                await settle(pilot)
                assert app.view.prompt.text == "then this"
                assert len(server.requests) == 1
        finally:
            hold.set()


class TestCommandOutputFollows:
    async def test_output_after_page_up_is_scrolled_into_view(self, server, config, workspace):
        """After PageUp, /hooks' output landed below the view and the chat did not follow it."""
        long = "\n\n".join(f"paragraph {i} of a long answer" for i in range(40))
        server.enqueue(Reply(text=long))
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await send(pilot, "explain")
            await settle(pilot)
            await pilot.press("pageup", "pageup")
            await pilot.pause()
            assert "paragraph 39" not in screen_text(app)
            await send(pilot, "/hooks")
            await settle(pilot)
            await until(pilot, lambda: "no hooks configured" in screen_text(app), what="the output in view")


class TestConfigInTomlWithOrigins:
    async def test_config_speaks_toml_names_origins_and_lists_claude_hooks(self, server, config, workspace):
        """/config printed `None`, `True` and `'quoted'`, showed `hooks.PreToolUse = []` while
        .claude hooks ran, and did not say where a value came from."""
        from tests.support.hooks import claude_settings, group

        claude_settings(workspace, {"PreToolUse": [group("Bash", "./check.sh")]})
        trust.add(workspace)
        config = make_config(server, workspace.parent / "c.db", cwd=workspace)
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            while app.screen is not app.screen_stack[0]:
                await pilot.press("t")
                await settle(pilot)
            await send(pilot, "/config")
            await settle(pilot)
            shown = printed(app)
        assert 'model.name = "openai/fake-model"' in shown
        assert "= True" not in shown and "= None" not in shown and "= '" not in shown
        assert "tools.deny_ends_turn = true    # default" in shown
        assert "hooks.PreToolUse = []" not in shown
        assert "# hook PreToolUse [Bash]: ./check.sh" in shown and ".claude/settings.json" in shown


class TestPasteChipComesBack:
    async def test_a_failed_send_puts_the_chip_back_not_40_lines(self, server, config, workspace):
        """After a failed send, `[pasted 40 lines #1]` came back as 40 raw lines in the input."""
        from textual import events

        server.enqueue(Reply(status=400, error_body={"error": {"message": "bad request"}}))
        log = "".join(f"log line {i}\n" for i in range(1, 41))
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            prompt.focus()
            await pilot.press(*"see: ")
            app.post_message(events.Paste(log))
            await until(pilot, lambda: "[pasted" in prompt.text, what="the chip")
            await pilot.press("enter")
            await settle(pilot)
            await until(pilot, lambda: prompt.text != "", what="the text back")
            assert prompt.text == "see: [pasted 40 lines #1]"
            assert prompt.message == "see: " + log  # sending again sends the whole paste


def test_a_blocked_compaction_does_not_say_automatically():
    """With `[compaction] auto = false` the 98 % block's compaction still said `automatically`."""
    from agent_tui.frontends.tui.compaction_line import WHY

    assert "automatically" not in WHY["blocked"] and "even with auto compaction off" in WHY["blocked"]
