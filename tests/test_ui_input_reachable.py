"""Issue 32's TUI bugs, each through the real app and Pilot: Enter runs what was typed whatever
the slash menu's stale highlight, typing on a tool line reaches the input, the input stays on
screen without a model at 80 × 24."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from agent_tui.frontends.tui.screens.context_screen import ContextScreen
from agent_tui.frontends.tui.widgets.chat_items import ToolLine
from agent_tui.frontends.tui.widgets.meter import ContextMeter
from agent_tui.frontends.tui.widgets.prompt import PromptInput
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, notices, screen_text, send, settle, until

SMALL = (80, 24)


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


def inside(widget, size=SMALL) -> bool:
    region = widget.region
    return region.height > 0 and region.y >= 0 and region.bottom <= size[1]


class TestEnterRunsWhatWasTyped:
    async def test_enter_before_the_menu_refilters_runs_the_typed_command(self, config, workspace):
        """`/co` shows the menu on /compact; `ntext` + Enter arriving before the menu re-filters
        must run /context, not complete the stale highlight to /compact."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            prompt.focus()
            await pilot.press("/", "c", "o")
            await pilot.pause()
            assert prompt.menu.display and prompt.menu.choice.name == "compact"
            # The keys are queued on the input before it has handled any: its Changed
            # message for the text comes after Enter, as when a fast typist outruns the menu.
            for key in "ntext":
                prompt.post_message(events.Key(key, key))
            prompt.post_message(events.Key("enter", "\r"))
            await until(pilot, lambda: isinstance(app.screen, ContextScreen), what="/context")
            assert prompt.text == ""

    async def test_enter_on_an_unknown_name_is_not_completed_to_a_stale_one(self, config, workspace):
        """`/re` highlights /resume; `/revise` + Enter sent fast is an unknown command, not /resume."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36), notifications=True) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            prompt.focus()
            await pilot.press("/", "r", "e")
            await pilot.pause()
            assert prompt.menu.choice.name == "resume"
            for key in "vise":
                prompt.post_message(events.Key(key, key))
            prompt.post_message(events.Key("enter", "\r"))
            await until(pilot, lambda: "Unknown command /revise" in notices(app), what="the notice")
            assert app.screen is app.screen_stack[0]
            assert prompt.text == "/revise"


class TestTypingOnAToolLine:
    @staticmethod
    async def focus_a_tool_line(pilot) -> None:
        """One turn with one read_file call, then its line focused."""
        await settle(pilot)
        await send(pilot, "read a.txt")
        await settle(pilot)
        pilot.app.query_one(ToolLine).focus()
        await pilot.pause()

    @pytest.fixture
    def tool_app(self, server, config, workspace):
        server.enqueue(Reply(tool_calls=[("read_file", {"path": "a.txt"})]), Reply(text="done"))
        (workspace / "a.txt").write_text("x\n")
        return make_app(config, workspace)

    async def test_o_typed_on_a_focused_tool_line_reaches_the_input(self, tool_app):
        """`hello` typed while a tool line had focus arrived as `hell`: its `o` binding ate it."""
        app = tool_app
        async with app.run_test(size=(120, 36)) as pilot:
            await self.focus_a_tool_line(pilot)
            # A fast typist's keys all arrive before the focus moves to the input.
            for key in [*"hello", "space", *"long"]:
                app.post_message(events.Key(key, " " if key == "space" else key))
            await until(pilot, lambda: app.view.prompt.text == "hello long", what="the typed text")
            assert app.view.prompt.text == "hello long"
            assert isinstance(app.focused, PromptInput)
            assert app.screen is app.screen_stack[0]  # no blob browser opened

    async def test_ctrl_o_opens_the_output(self, tool_app):
        """The tool line's output opens with Ctrl+O, a key no one types into a message."""
        from agent_tui.frontends.tui.screens.blobs import BlobsScreen

        app = tool_app
        async with app.run_test(size=(120, 36)) as pilot:
            await self.focus_a_tool_line(pilot)
            await pilot.press("ctrl+o")
            await until(pilot, lambda: isinstance(app.screen, BlobsScreen), what="the blob browser")


class TestNoModelAt80x24:
    async def test_input_and_meter_stay_on_screen(self, tmp_path, workspace):
        """The "No model configured" box pushed the input and meter off an 80 × 24 screen."""
        config = load_config(
            overrides={"store": {"db": str(tmp_path / "n.db")}},
            cwd=workspace,
            env={},
            rule_words=SHIPPED_WORDS,
        ).config
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await pilot.pause()
            assert "No model configured" in screen_text(app)
            assert inside(app.view.prompt)
            assert inside(app.query_one(ContextMeter))
            await pilot.press(*"typed")
            assert app.view.prompt.text == "typed"


def outputs(app) -> list[str]:
    """The slash-command blocks in the active tab's chat: head and text."""
    from agent_tui.frontends.tui.transcript import OutputEntry

    return [f"{e.command}\n{e.text}" for e in app.view.chat.entries if isinstance(e, OutputEntry)]


class TestCommandOutputInTheChat:
    async def test_tools_lists_every_tool_in_a_block_that_scrolls(self, config, workspace):
        """`/tools` at 120 columns toasted 6 of 11 tools and vanished: it is a chat block."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36), notifications=True) as pilot:
            await settle(pilot)
            await send(pilot, "/tools")
            await settle(pilot)
            await until(pilot, lambda: outputs(app), what="the /tools block")
            names = [row.name for row in app.view.session.prompts.tool_table()]
            assert len(names) > 6
            block = outputs(app)[0]
            for name in names:
                assert name in block
            assert "tools," not in notices(app)
            app.view.chat.scroll_end(animate=False, immediate=True)
            await pilot.pause()
            assert "tokens offered" in screen_text(app) or names[-1] in screen_text(app)

    @pytest.mark.parametrize(
        ("command", "expected"),
        [
            ("/permissions", "Allowed without asking"),
            ("/sandbox", "/sandbox workspace-write"),
            ("/model", "Model: openai/fake-model"),
            ("/skill", "Skills:"),
            ("/undo", "undo"),
            ("/effort", "Reasoning:"),
            ("/theme", "Themes:"),
        ],
    )
    async def test_each_listing_command_prints_in_the_chat(self, config, workspace, command, expected):
        """These toasted and vanished; each now leaves its output in the transcript."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36), notifications=True) as pilot:
            await settle(pilot)
            await send(pilot, command)
            await settle(pilot)
            await until(pilot, lambda: outputs(app), what=f"the {command} block")
            block = outputs(app)[0]
            assert block.startswith(command)
            assert expected.lower() in block.lower()
            assert expected not in notices(app)


class TestResumedLines:
    async def test_a_denied_edit_reads_denied_after_resume(self, server, config, workspace):
        """A denied edit read `▸ edit_file … 1 lines` after resume instead of `✗ denied`."""
        from tests.support.ui_helpers import until_approval

        (workspace / "a.txt").write_text("old\n")
        server.enqueue(
            Reply(tool_calls=[("edit_file", {"path": "a.txt", "old_string": "old", "new_string": "new"})]),
            Reply(text="ok"),
        )
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "edit it")
            await until_approval(pilot)
            await pilot.press("4", "enter")
            await settle(pilot)
            assert "✗ denied" in screen_text(app)
            session_id = app.view.session.session_id
        again = make_app(config, workspace, session_id=session_id)
        async with again.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            line = again.query_one(ToolLine)
            assert line.entry.state == "error" and line.entry.detail == "denied"
            assert "✗ denied" in screen_text(again)
            assert "1 lines" not in screen_text(again)

    async def test_one_line_is_not_lines(self, server, config, workspace):
        """A one-line result read `1 lines` after resume."""
        (workspace / "a.txt").write_text("x")
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo one"})]), Reply(text="ok"))
        config = make_config(server, Path(config.store.db), tools={"allow": ["bash:echo"]})
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "run")
            await settle(pilot)
            session_id = app.view.session.session_id
        again = make_app(config, workspace, session_id=session_id)
        async with again.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            detail = again.query_one(ToolLine).entry.detail
            assert "1 line" in detail and "1 lines" not in detail


class TestAlwaysWritesTheLocalFile:
    async def test_always_leaves_git_status_clean_and_the_rule_applies(self, server, tmp_path):
        """ "Always" wrote the rule into the tracked `.agent-tui.toml` (`git status` showed it):
        it goes to the git-ignored `.agent-tui.local.toml`, read back like the project file, and
        rules already in `.agent-tui.toml` still apply."""
        import subprocess

        from agent_tui.policy.allow_rules import project_rules
        from agent_tui.runtime import paths
        from tests.support.ui_helpers import until_approval

        repo = tmp_path / "repo"
        repo.mkdir()
        (repo / ".agent-tui.toml").write_text('[tools]\nallow = ["bash:ls"]\n')

        def git(*args):
            return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True)

        git("init", "-q")
        git("add", ".agent-tui.toml")
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "config")
        from agent_tui.policy import trust

        trust.add(repo)  # trusted with its shared rules: our own edit keeps it trusted
        config = make_config(server, tmp_path / "db" / "a.db", cwd=repo)
        (tmp_path / "db").mkdir()
        server.enqueue(Reply(tool_calls=[("bash", {"command": "git status"})]), Reply(text="ok"))
        app = make_app(config, repo)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "status?")
            await until_approval(pilot)
            await pilot.press("3", "enter")
            await settle(pilot)
        assert git("status", "--porcelain").stdout == ""
        assert paths.local_config_file(repo).read_text().count("bash:git status") == 1
        assert (repo / ".agent-tui.toml").read_text() == '[tools]\nallow = ["bash:ls"]\n'
        assert project_rules(repo) == ["bash:ls", "bash:git status"]
        again = load_config(cwd=repo, env={}, rule_words=SHIPPED_WORDS).config
        assert {"bash:ls", "bash:git status"} <= set(again.tools.allow)

    def test_a_committed_local_file_needs_trust_like_the_project_file(self, tmp_path):
        """The local file is a project layer: in an untrusted folder its rules do not apply."""
        folder = tmp_path / "clone"
        folder.mkdir()
        (folder / ".agent-tui.local.toml").write_text('[tools]\nallow = ["bash:rm"]\n')
        loaded = load_config(cwd=folder, env={}, rule_words=SHIPPED_WORDS)
        assert "bash:rm" not in loaded.config.tools.allow
        assert any("[tools] allow" in line for line in loaded.notices)
        trusted = load_config(cwd=folder, env={}, trusted=True, rule_words=SHIPPED_WORDS)
        assert "bash:rm" in trusted.config.tools.allow


class TestLongPaste:
    async def test_a_300_line_paste_is_a_chip_then_a_folded_block(self, server, config, workspace):
        """A 300-line paste filled the screen until sent and the chat echoed all 300 lines: the
        input shows `[pasted 300 lines #1]`, the model gets every line, the chat folds it."""
        from agent_tui.frontends.tui.widgets.chat_items import UserItem

        server.enqueue(Reply(text="read it"))
        log = "".join(f"log line {i}\n" for i in range(1, 301))
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            prompt.focus()
            await pilot.press(*"see: ")
            app.post_message(events.Paste(log))
            await until(pilot, lambda: "[pasted" in prompt.text, what="the chip")
            assert prompt.text == "see: [pasted 300 lines #1]"
            assert prompt.region.height <= 3
            await pilot.press("enter")
            await settle(pilot)
            sent = server.requests[-1]["messages"][-1]
            assert sent["role"] == "user" and sent["content"] == "see: " + log
            text = screen_text(app)
            assert "log line 1" in text and "log line 150" not in text
            assert "297 more" in text, text
            item = app.query_one(UserItem)
            await pilot.click(item)
            await pilot.pause()
            assert item.expanded
            assert prompt.text == "" and not prompt.pastes.held

    async def test_a_short_paste_goes_in_as_itself(self, config, workspace):
        """Three pasted lines are typed text, not a chip."""
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            app.view.prompt.focus()
            app.post_message(events.Paste("a\nb\nc"))
            await until(pilot, lambda: app.view.prompt.text, what="the paste")
            assert app.view.prompt.text == "a\nb\nc"


class TestCompactionLine:
    async def test_says_who_asked_and_what_the_model_now_sees(self, server, config, workspace):
        """`Compacted … 230 → 4 messages in 0.0 s` never said why, read `0.0 s`, and alarmed:
        the line says it ran as asked, what the model now works from, and that the chat keeps all."""
        from agent_tui.frontends.tui.widgets.chat_items import NoticeItem

        server.enqueue(Reply(text="one " * 300), Reply(text="two " * 300), Reply(text="<summary>s</summary>"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "first")
            await settle(pilot)
            await send(pilot, "second")
            await settle(pilot)
            await send(pilot, "/compact")
            await settle(pilot)
            line = next(i.entry.text for i in app.query(NoticeItem) if i.entry.text.startswith("Compacted"))
            assert "as you asked" in line
            assert "The model now works from" in line and "the chat above keeps them all" in line
            assert "in 0.0 s" not in line and "0.0 s" not in line


class TestFindInChat:
    async def _long_session(self, server, config, workspace, turns=30, words=0):
        """A stored session of `turns` exchanges, opened in the app (most entries not mounted)."""
        from agent_tui.base.messages import assistant, user
        from agent_tui.compose.factory import build_services

        services = await build_services(config, workspace=workspace)
        info = await services.store.sessions.create(str(workspace), config.model.name, title="long")
        history = []
        for i in range(turns):
            filler = " lorem ipsum" * words  # long replies reflow (change height) with the width
            history += [
                user(f"question {i}"),
                assistant(f"answer {i}" + (" needle-zq" if i == 2 else "") + filler),
            ]
        await services.store.sessions.append(info.id, history)
        await services.close()
        return make_app(config, workspace, session_id=info.id)

    async def test_ctrl_f_finds_an_old_message_and_esc_returns(self, server, config, workspace):
        """No search in the chat: Ctrl+F finds a message far above (mounting it) and marks it."""
        from agent_tui.frontends.tui.widgets.find_bar import FindBar

        app = await self._long_session(server, config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            chat = app.view.chat
            assert chat.unmounted_count > 0
            await pilot.press("ctrl+f")
            bar = app.query_one(FindBar)
            assert bar.display and bar.has_focus
            await pilot.press(*"needle-zq")
            await until(pilot, lambda: chat.query(".-found"), what="the match")
            found = chat.query_one(".-found")
            assert "needle-zq" in found.entry.text
            await pilot.pause()
            assert "needle-zq" in screen_text(app)
            await pilot.press("escape")
            assert not bar.display and isinstance(app.focused, PromptInput)
            assert not chat.query(".-found")

    async def test_home_and_end_jump_to_the_first_and_last_message(self, server, config, workspace):
        """About 120 PageUps to the top: Home on an empty input is the first message, End the last."""
        app = await self._long_session(server, config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            chat = app.view.chat
            app.view.prompt.focus()
            await pilot.press("home")
            await until(pilot, lambda: chat.unmounted_count == 0 and chat.scroll_y == 0, what="the top")
            await pilot.pause()
            assert "question 0" in screen_text(app)
            await pilot.press("end")
            await pilot.pause()
            assert "answer 29" in screen_text(app)
            await pilot.press(*"x", "home")
            assert app.view.prompt.text == "x"  # with text, Home moves in the input


class TestBackgroundTab:
    async def test_a_busy_background_tab_says_so(self, server, config, workspace):
        """A busy background tab looked idle: its label carries `⋯` while its turn runs."""
        import threading

        from textual.widgets import TabbedContent

        hold = threading.Event()
        server.enqueue(Reply(text="slow answer here", hold=hold, hold_after=1))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "work on it")
            await pilot.press("ctrl+t")
            await settle_tab(pilot)
            tab = app.query_one(TabbedContent).get_tab("tab-1")
            await until(pilot, lambda: "⋯" in str(tab.label), what="the busy marker")
            hold.set()
            await settle(pilot)
            assert "⋯" not in str(tab.label)


async def settle_tab(pilot) -> None:
    """The new tab open (its own session), while tab 1's turn still runs."""
    await until(pilot, lambda: len(pilot.app.query("SessionView")) == 2, what="the second tab")
    await pilot.pause()


class TestModelPicker:
    async def test_model_names_complete_after_slash_model(self, config, workspace):
        """`/model ` lists known model names (the current one first); typing narrows; Tab or
        Enter completes the highlighted one, Enter on a whole name switches."""
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            prompt.focus()
            await pilot.press(*"/model ")
            await until(pilot, lambda: prompt.menu.display, what="the model list")
            assert prompt.menu.choice == "model:openai/fake-model"
            await pilot.press(*"claude-sonnet-4-5")
            await until(pilot, lambda: prompt.menu.shown_for == prompt.text, what="the narrowed list")
            names = [prompt.menu.get_option_at_index(i).id for i in range(prompt.menu.option_count)]
            assert names and all("claude-sonnet-4-5" in n for n in names)
            await pilot.press("tab")
            assert prompt.text.startswith("/model ") and "claude-sonnet-4-5" in prompt.text
            assert not prompt.menu.display
