"""SVG snapshots at 80 × 24 of tool output in the chat: a bash call with its first lines under
it (`⎿`) and the rest folded, an approved edit with its numbered diff (the chat pane alone in a
host app, so the picture does not move with the meter's token figures); the welcome screen. `pytest --snapshot-update`
rewrites them after a deliberate change."""

from __future__ import annotations

from textual.app import ComposeResult

from agent_tui.frontends.tui.transcript import AgentEntry, Entry, ToolEntry, UserEntry
from agent_tui.frontends.tui.widgets.chat import ChatPane
from agent_tui.tools.files import unified_diff
from tests.support import snapshots
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import Host, make_app

fixed_workspace = snapshots.fixed_workspace
sandbox_off = snapshots.sandbox_off  # autouse: the same picture with or without bubblewrap here

SIZE = (80, 24)
LISTING = """total 24
drwxr-xr-x  4 dev dev 4096 Nov 27 11:02 .
drwxr-xr-x 12 dev dev 4096 Nov 27 10:40 ..
-rw-r--r--  1 dev dev  812 Nov 27 11:02 README.md
drwxr-xr-x  2 dev dev 4096 Nov 27 11:01 cart
-rw-r--r--  1 dev dev  301 Nov 27 11:02 pyproject.toml
drwxr-xr-x  2 dev dev 4096 Nov 27 11:01 tests
[exit code 0 · 0.0 s]"""


class ChatHost(Host):
    def __init__(self, entries: list[Entry]) -> None:
        super().__init__()
        self.entries = entries

    def compose(self) -> ComposeResult:
        yield ChatPane(id="chat")

    async def on_mount(self) -> None:
        await self.query_one(ChatPane).load(self.entries)


def test_bash_call_with_its_first_lines(snap_compare):
    entries: list[Entry] = [
        UserEntry("what is in this folder?"),
        ToolEntry("bash", "ls -la", "ok", "exit 0 · 0.0 s · 7 lines", LISTING, "c1", None, LISTING),
        AgentEntry("A Python project: `cart/` holds the code, `tests/` its tests."),
    ]
    assert snap_compare(ChatHost(entries), terminal_size=SIZE)


def test_approved_edit_with_its_diff(snap_compare):
    old = "".join(f"    step_{i}()\n" for i in range(1, 60))
    old = old.replace("    step_48()\n", "    return round(total, 1)\n")
    new = old.replace("round(total, 1)", "round(total, 2)")
    diff = unified_diff(old, new, "cart/total.py")
    entries: list[Entry] = [
        UserEntry("round the cart total to cents"),
        ToolEntry(
            "edit_file", "cart/total.py", "ok", "edited · +1 -1 · ref r_5e1d", "", "c2", "r_5e1d", diff
        ),
        AgentEntry("Totals are rounded to two decimals now."),
    ]
    assert snap_compare(ChatHost(entries), terminal_size=SIZE)


def test_welcome_screen(snap_compare, server, tmp_path, fixed_workspace):
    """A new session: model, folder, trust, the rules file loaded, the keys to start with."""
    (fixed_workspace / "CLAUDE.md").write_text("# Rules\nRun the tests before you say done.\n")
    app = make_app(make_config(server, tmp_path / "s.db", cwd=fixed_workspace), fixed_workspace)
    assert snap_compare(app, run_before=snapshots.ready, terminal_size=SIZE)
