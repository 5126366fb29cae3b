"""The approval shows the command that runs: control characters visible in the preview, the
exact-command field and the chat's tool line; many lines all reachable with the buttons on screen;
an edit's changed lines visible and scrollable at 80×24."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widgets import Button, Input

from agent_tui.frontends.tui.screens.approval import ApprovalScreen
from agent_tui.tools.base import short_arguments
from agent_tui.tools.permissions import ApprovalDecision, ApprovalRequest
from tests.support.ui_helpers import Host, screen_text, until_armed
from tests.support.walls import EDIT_DIFF, ESCAPED, NEWLINES

SIZE = (80, 24)

LONG_DIFF = "--- a/x\n+++ b/x\n@@ -1,40 +1,40 @@\n" + "".join(f"-old {i}\n+new {i}\n" for i in range(40))


def bash_request(command: str) -> ApprovalRequest:
    return ApprovalRequest("bash", {"command": command}, command, None)


def on_screen(app, widget) -> bool:
    """The widget's whole region lies inside the terminal."""
    region = widget.region
    return region.height > 0 and region.y >= 0 and region.bottom <= app.size.height


async def test_escape_sequences_are_visible_everywhere():
    """wall: terminal output — ESC in a command shows as ␛ in the preview and the exact-command field."""
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(ApprovalScreen(bash_request(ESCAPED)))
        await pilot.pause()
        text = screen_text(app)
        assert "touch PWNED; ␛[2K␛[1G ls -la" in text
        assert "\x1b" not in app.screen.query_one("#approval-prefix", Input).value
        assert "control characters" in text


async def test_unedited_field_still_means_the_exact_command():
    """wall: approval — the field shows ␛ but leaving it means this exact command, not a prefix."""
    app = Host()
    results: list = []
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(ApprovalScreen(bash_request(ESCAPED)), callback=results.append)
        await pilot.pause()
        await until_armed(pilot)
        await pilot.press("2", "enter")
        await pilot.pause()
    assert results == [ApprovalDecision("allow_session", None)]


async def test_many_newlines_all_reachable_with_buttons_on_screen():
    """wall: approval — 20 newlines: every line can be scrolled to in the dialog, buttons stay visible."""
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(ApprovalScreen(bash_request(NEWLINES)))
        await pilot.pause()
        screen = app.screen
        for button in screen.query(Button):
            assert on_screen(app, button), button.id
        field = screen.query_one("#approval-prefix", Input)
        assert "\n" not in field.value and field.value.count("⏎") == 20
        assert "lines" in screen_text(app)  # the dialog says how long the command is
        await pilot.press("end")
        await pilot.pause()
        assert "touch PWNED" in screen_text(app)
        for button in screen.query(Button):
            assert on_screen(app, button), button.id


async def test_edit_approval_shows_the_changed_lines_and_scrolls():
    """wall: approval — at 80×24 an edit's `-`/`+` lines are on screen, and Down/PageDown scroll."""
    app = Host()
    request = ApprovalRequest("edit_file", {"path": "src/app.py"}, EDIT_DIFF, None)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(ApprovalScreen(request))
        await pilot.pause()
        text = screen_text(app)
        assert "-DEBUG = False" in text and "+DEBUG = True" in text
        for button in app.screen.query(Button):
            assert on_screen(app, button), button.id
        preview = app.screen.query_one("#approval-preview", VerticalScroll)
        if preview.max_scroll_y:
            before = preview.scroll_y
            await pilot.press("pagedown")
            await pilot.pause()
            assert preview.scroll_y > before


async def test_long_diff_scrolls_with_down_and_pagedown():
    """wall: approval — a diff longer than the dialog scrolls with Down and PageDown from the buttons."""
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(ApprovalScreen(ApprovalRequest("edit_file", {"path": "x"}, LONG_DIFF, None)))
        await pilot.pause()
        preview = app.screen.query_one("#approval-preview", VerticalScroll)
        assert preview.max_scroll_y > 0
        await pilot.press("down")
        await pilot.pause()
        first = preview.scroll_y
        assert first > 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert preview.scroll_y > first
        await pilot.press("end")
        await pilot.pause()
        assert "+new 39" in screen_text(app)


async def test_cut_exact_command_field_shows_an_ellipsis():
    """The exact-command field, when the command is wider than it, says so with `…`."""
    command = "python -m pytest " + " ".join(f"tests/test_module_{i}.py" for i in range(12))
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(ApprovalScreen(bash_request(command)))
        await pilot.pause()
        assert app.screen.query_one("#approval-prefix-more").display
        row = [line for line in screen_text(app).splitlines() if "python -m pytest" in line]
        assert any(line.rstrip(" │").endswith("…") for line in row), row


def test_tool_line_arguments_show_control_characters():
    """wall: terminal output — the chat's one-line tool arguments show ␛ and ⏎, never raw ones."""
    assert short_arguments('{"command": "touch PWNED; \\u001b[2K ls"}') == "touch PWNED; ␛[2K ls"
    line = short_arguments('{"command": "ls -la' + "\\n" * 20 + 'touch PWNED"}')
    assert "\n" not in line and "⏎" in line and line.endswith("touch PWNED")


async def test_tab_moves_into_a_diff_preview():
    """wall: approval — with no field to edit, Tab focuses the diff so the arrows scroll it."""
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(ApprovalScreen(ApprovalRequest("edit_file", {"path": "x"}, LONG_DIFF, None)))
        await pilot.pause()
        await pilot.press("tab")
        preview = app.screen.query_one("#approval-preview", VerticalScroll)
        assert preview.has_focus
        await pilot.press("tab")
        assert app.screen.query_one("#allow-once", Button).has_focus
