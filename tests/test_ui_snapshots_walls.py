"""SVG snapshots at 80 × 24 of approvals that must show what runs: a command with escape
sequences (shown as ␛), a command with 20 newlines (every line numbered, buttons below), and an
edit whose changed lines are on screen. `pytest --snapshot-update` rewrites them after a
deliberate change."""

from __future__ import annotations

from agent_tui.frontends.tui.screens.approval import ApprovalScreen
from agent_tui.tools.permissions import ApprovalRequest
from tests.support.ui_helpers import Host
from tests.support.walls import EDIT_DIFF, ESCAPED, NEWLINES

SIZE = (80, 24)


def approval_app(request: ApprovalRequest) -> Host:
    app = Host()

    async def show() -> None:
        app.push_screen(ApprovalScreen(request, where="tab 1 · fix-tests"))

    app.call_later(show)
    return app


def test_approval_with_escape_sequences(snap_compare):
    """wall: terminal output — ESC[2K ESC[1G shows as ␛[2K␛[1G, with a warning, buttons below."""
    request = ApprovalRequest(
        "bash", {"command": ESCAPED}, ESCAPED, None, sandbox="runs sandboxed (workspace-write · no network)"
    )
    assert snap_compare(approval_app(request), terminal_size=SIZE)


def test_approval_with_twenty_newlines(snap_compare):
    """wall: approval — 21 numbered lines in a scrolling preview, the field shows ⏎, buttons visible."""
    request = ApprovalRequest("bash", {"command": NEWLINES}, NEWLINES, None)
    assert snap_compare(approval_app(request), terminal_size=SIZE)


def test_approval_with_twenty_newlines_scrolled_to_the_end(snap_compare):
    """wall: approval — End scrolls the preview to the last line, `touch PWNED`, buttons still visible."""
    request = ApprovalRequest("bash", {"command": NEWLINES}, NEWLINES, None)
    assert snap_compare(approval_app(request), press=["end"], terminal_size=SIZE)


def test_edit_approval_shows_its_changed_lines(snap_compare):
    """wall: approval — an edit_file approval at 80×24 shows the `-`/`+` lines, not only headers."""
    request = ApprovalRequest("edit_file", {"path": "src/app.py"}, EDIT_DIFF, None)
    assert snap_compare(approval_app(request), terminal_size=SIZE)
