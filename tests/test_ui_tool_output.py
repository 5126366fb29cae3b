"""Tool output in the chat, as a Claude Code user expects it: a command's first lines under its
call (`⎿`), an approved edit's diff, long output folded with Enter to unfold; the same after a
resume. Before, only a one-line summary showed: `!ls -la` hid the listing the user asked for."""

from __future__ import annotations

import pytest

from agent_tui.frontends.tui.widgets.chat_items import ToolLine
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, screen_text, send, settle, until

SMALL = (80, 24)


@pytest.fixture
def config(server, tmp_path, workspace):
    return make_config(server, tmp_path / "ui.db", cwd=workspace, tools={"allow": ["bash", "edit_file"]})


def lines_of(app) -> list[ToolLine]:
    return list(app.query(ToolLine))


class TestCommandOutputInline:
    async def test_a_bash_call_shows_its_first_lines_and_folds_the_rest(self, server, config, workspace):
        command = "seq 1 30 | sed s/^/row-/"
        server.enqueue(Reply(tool_calls=[("bash", {"command": command})]), Reply(text="counted"))
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await send(pilot, "count")
            await until(pilot, lambda: "counted" in screen_text(app), what="the reply")
            await settle(pilot)
            text = screen_text(app)
            assert "⎿ row-1" in text and "row-4" in text
            assert "row-5" not in text  # folded
            assert "26 more lines" in text
            line = lines_of(app)[-1]
            line.focus()
            await pilot.press("enter")
            await pilot.pause()
            text = screen_text(app)
            assert "row-30" in text and "more lines" not in text  # unfolded: every line

    async def test_a_long_output_counts_the_lines_of_the_whole_output(self, server, config, workspace):
        """The line beside says "3 006 lines"; the fold under it counted only the in-context view
        (head and tail of the output: "… 942 more lines"). Both count the whole output."""
        server.enqueue(Reply(tool_calls=[("bash", {"command": "seq 1 3006"})]), Reply(text="counted"))
        app = make_app(config, workspace)
        async with app.run_test(size=(140, 24)) as pilot:
            await settle(pilot)
            await send(pilot, "count")
            await until(pilot, lambda: "counted" in screen_text(app), what="the reply")
            await settle(pilot)
            text = screen_text(app)
            assert "3 006 lines" in text
            assert "… 3 002 more lines" in text, text

    async def test_bang_command_shows_what_it_printed(self, server, config, workspace):
        (workspace / "alpha.txt").write_text("a")
        (workspace / "beta.txt").write_text("b")
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await send(pilot, "!ls")
            await settle(pilot)
            text = screen_text(app)
            assert "⎿ alpha.txt" in text and "beta.txt" in text
            assert "[exit code" not in text  # the status is on the line, not repeated under it

    async def test_resumed_session_shows_the_same_lines(self, server, config, workspace):
        server.enqueue(Reply(tool_calls=[("bash", {"command": "printf 'one\\ntwo\\n'"})]), Reply(text="ok"))
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await send(pilot, "go")
            await until(pilot, lambda: "ok" in screen_text(app), what="the reply")
            await settle(pilot)
            session_id = app.view.session.session_id
        again = make_app(config, workspace, session_id=session_id)
        async with again.run_test(size=SMALL) as pilot:
            await settle(pilot)
            text = screen_text(again)
            assert "⎿ one" in text and "two" in text


class TestEditDiffInline:
    async def test_an_approved_edit_shows_its_diff_with_line_numbers(self, server, config, workspace):
        body = "".join(f"line {i}\n" for i in range(1, 60))
        (workspace / "notes.txt").write_text(body)
        edit = {"path": "notes.txt", "old_string": "line 48\n", "new_string": "line 48 changed\n"}
        server.enqueue(Reply(tool_calls=[("edit_file", edit)]), Reply(text="edited"))
        app = make_app(config, workspace)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await send(pilot, "edit")
            await until(pilot, lambda: "edited" in screen_text(app), what="the reply")
            await settle(pilot)
            text = screen_text(app)
            assert "48 - line 48" in text and "48 + line 48 changed" in text
            assert "45   line 45" in text  # context around the change

    async def test_a_written_file_says_its_own_size_and_lines(self, server, tmp_path, workspace):
        """`created · 36 B · 37 B · 1 line` for a 4-line file: the second figures were the tool's
        one-line report's, stored as its output."""
        content = "one\ntwo\nthree\nfour\n"
        server.enqueue(
            Reply(tool_calls=[("write_file", {"path": "new.txt", "content": content})]), Reply(text="written")
        )
        config = make_config(server, tmp_path / "w.db", cwd=workspace, tools={"allow": ["write_file"]})
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "write")
            await until(pilot, lambda: "written" in screen_text(app), what="the reply")
            await settle(pilot)
            line = lines_of(app)[-1]
            assert line.entry.detail.startswith("created · 4 lines · 19 B · ref ")
            text = screen_text(app)
            assert "⎿ 1 + one" in text and "4 + four" in text


class TestToolLineArguments:
    def test_every_tool_line_shows_its_headline_argument(self):
        """edit_file and task showed raw `path=… old_string=…` where read_file showed its path."""
        from agent_tui.tools.base import short_arguments

        edit = '{"path": "cart.py", "old_string": "a", "new_string": "b"}'
        assert short_arguments(edit) == "cart.py"
        assert short_arguments('{"description": "find the bug", "prompt": "long brief"}') == "find the bug"
        assert short_arguments('{"command": "ls", "timeout": 5}') == "ls"
        assert short_arguments('{"a": 1, "b": 2}') == "a=1 b=2"  # no headline: every argument


class TestResumedOutcome:
    async def test_a_resumed_edit_line_says_what_the_live_one_said(self, server, tmp_path, workspace):
        """A resumed chat's edit line said `1 line · 60 B · ref …` (its stored report's size)."""
        (workspace / "notes.txt").write_text("one\ntwo\n")
        edit = {"path": "notes.txt", "old_string": "two", "new_string": "deux"}
        server.enqueue(Reply(tool_calls=[("edit_file", edit)]), Reply(text="edited"))
        config = make_config(server, tmp_path / "r.db", cwd=workspace, tools={"allow": ["edit_file"]})
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "edit")
            await until(pilot, lambda: "edited" in screen_text(app), what="the reply")
            await settle(pilot)
            live = lines_of(app)[-1].entry.detail
            session_id = app.view.session.session_id
        again = make_app(config, workspace, session_id=session_id)
        async with again.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            resumed = lines_of(again)[-1].entry.detail
        assert live.startswith(resumed)  # the live line adds only its duration
        assert resumed.startswith("edited · +1 -1 · ref r_")


class TestBlobRowsNameTheCall:
    async def test_the_browser_names_each_outputs_command(self, server, tmp_path, workspace):
        """Thirty `bash 236 KB 3 000` rows could not be told apart: each names its command."""
        from textual.widgets import DataTable

        from agent_tui.frontends.tui.screens.blobs import BlobsScreen

        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "seq 1 3"})]),
            Reply(tool_calls=[("bash", {"command": "seq 1 4"})]),
            Reply(text="counted twice"),
        )
        config = make_config(server, tmp_path / "b.db", cwd=workspace, tools={"allow": ["bash"]})
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "count")
            await until(pilot, lambda: "counted twice" in screen_text(app), what="the reply")
            await settle(pilot)
            await send(pilot, "/blobs")
            await until(pilot, lambda: isinstance(app.screen, BlobsScreen), what="the browser")
            table = app.screen.query_one(DataTable)
            await until(pilot, lambda: table.row_count >= 2, what="the rows")
            tools = {str(table.get_row_at(i)[1]) for i in range(table.row_count)}
        assert {"bash seq 1 3", "bash seq 1 4"} <= tools

    async def test_a_resumed_read_says_which_lines_it_read(self, server, tmp_path, workspace):
        """A resumed read_file line lost `lines 1-69 of 1931` (only sizes were left)."""
        (workspace / "big.txt").write_text("".join(f"row {i}\n" for i in range(1, 301)))
        server.enqueue(
            Reply(tool_calls=[("read_file", {"path": "big.txt", "limit": 50})]), Reply(text="read it")
        )
        config = make_config(server, tmp_path / "p.db", cwd=workspace)
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "read")
            await until(pilot, lambda: "read it" in screen_text(app), what="the reply")
            await settle(pilot)
            session_id = app.view.session.session_id
        again = make_app(config, workspace, session_id=session_id)
        async with again.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            resumed = lines_of(again)[-1].entry.detail
        assert resumed.startswith("lines 1-50 of 300 · ")


class TestResumedDiff:
    async def test_a_resumed_edit_and_write_show_their_numbered_diffs(self, server, tmp_path, workspace):
        """Issue 43 part 3 item 2: a resumed chat showed an edit's line without the diff the live
        one had (the diff was not stored); it is rebuilt from the stored call and the file's
        checkpoint, with the same line numbers."""
        body = "".join(f"line {i}\n" for i in range(1, 60))
        (workspace / "notes.txt").write_text(body)
        edit = {"path": "notes.txt", "old_string": "line 48\n", "new_string": "line 48 changed\n"}
        write = {"path": "new.txt", "content": "one\ntwo\n"}
        server.enqueue(
            Reply(tool_calls=[("edit_file", edit)]),
            Reply(tool_calls=[("write_file", write)]),
            Reply(text="both"),
        )
        config = make_config(
            server, tmp_path / "d.db", cwd=workspace, tools={"allow": ["edit_file", "write_file"]}
        )
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "edit")
            await until(pilot, lambda: "both" in screen_text(app), what="the reply")
            await settle(pilot)
            live = [line.entry.display for line in lines_of(app)]
            session_id = app.view.session.session_id
        again = make_app(config, workspace, session_id=session_id)
        async with again.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            resumed = [line.entry.display for line in lines_of(again)]
            text = screen_text(again)
        assert resumed == live
        assert "48 - line 48" in text and "48 + line 48 changed" in text
        assert "1 + one" in text and "2 + two" in text
