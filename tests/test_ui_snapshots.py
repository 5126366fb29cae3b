"""SVG snapshots of the main screen mid-session (dark, light), the slash menu, the approval
modal and the no-model panel, at 120 × 36.

The session is written to the database first and resumed, so every figure on screen (meter
included) is the same on every run: the workspace path is fixed because the system prompt names
it, and the cursor does not blink. `pytest --snapshot-update` rewrites them after a deliberate
change.
"""

from __future__ import annotations

import asyncio

import pytest

from agent_tui.config import load_config
from agent_tui.messages import ResultRef, ToolCall, assistant, tool_result, user
from agent_tui.tools.permissions import ApprovalRequest
from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.widgets.chat_items import ToolLine
from agent_tui.ui.widgets.prompt import PromptInput
from tests.agent_fixtures import make_config
from tests.ui_helpers import make_app, settle

SIZE = (120, 36)
REPLY = """The cart total ignored quantities; fixed in `src/cart.py:41`:

```python
total = sum(i.price * i.qty for i in items)
```

All **212** tests pass."""


@pytest.fixture(autouse=True)
def sandbox_off():
    """The same picture with or without bubblewrap on the machine: the sandbox chosen off (which
    the top bar does not mention)."""
    from agent_tui import paths

    paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.user_config_file().write_text('[sandbox]\nmode = "off"\n')


@pytest.fixture
def fixed_workspace(tmp_path, monkeypatch):
    """A workspace the top bar shows as `~/agent-tui-snapshot-ws` in every run: HOME is the test's own
    temp folder, so nothing outside it is touched and parallel runs do not collide."""
    monkeypatch.setenv("HOME", str(tmp_path))
    path = tmp_path / "agent-tui-snapshot-ws"
    path.mkdir()
    yield path


def history():
    test = ToolCall("call_1", "bash", '{"command": "pytest -q"}')
    read = ToolCall("call_2", "read_file", '{"path": "src/cart.py"}')
    edit = ToolCall("call_3", "edit_file", '{"path": "src/cart.py", "old": "x", "new": "y"}')
    again = ToolCall("call_4", "bash", '{"command": "pytest -q"}')
    return [
        user("run the test suite and fix what fails"),
        assistant("Running the tests first.", (test,)),
        tool_result(
            test, "FAILED tests/test_cart.py::test_total\nexit 1", ResultRef("r_7f3a", 48_000, 1204, "bash")
        ),
        assistant(None, (read, edit)),
        tool_result(
            read,
            "def total(items):\n    return sum(i.price for i in items)\n",
            ResultRef("r_91c2", 11_000, 312, "read_file"),
        ),
        tool_result(
            edit, "- total = sum(i.price for i in items)\n+ total = sum(i.price * i.qty for i in items)"
        ),
        assistant(None, (again,)),
        tool_result(again, "212 passed\nexit 0"),
        assistant(REPLY),
    ]


def resumed_app(config, workspace, **kwargs):
    """The app opening a session stored beforehand (snap_compare runs its own event loop, so
    the database is written in one of ours first)."""
    from agent_tui.factory import build_services

    async def store() -> str:
        services = await build_services(config, workspace=workspace)
        info = await services.store.sessions.create(str(workspace), config.model.name, title="fix-tests")
        await services.store.sessions.append(info.id, history())
        await services.close()
        return info.id

    session_id = asyncio.run(store())
    return make_app(config, workspace, session_id=session_id, **kwargs)


async def ready(pilot) -> None:
    await settle(pilot)
    pilot.app.query_one(PromptInput).cursor_blink = False
    await pilot.pause()


class TestSnapshots:
    def test_main_screen_mid_session(
        self,
        snap_compare,
        server,
        tmp_path,
        fixed_workspace,
    ):
        """Chat with folded tool lines (one unfolded), the meter and the input."""
        app = resumed_app(make_config(server, tmp_path / "s.db"), fixed_workspace)

        async def run_before(pilot):
            await ready(pilot)
            lines = list(pilot.app.query(ToolLine))
            lines[2].action_toggle_output()
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)

    def test_main_screen_light(
        self,
        snap_compare,
        server,
        tmp_path,
        fixed_workspace,
    ):
        """The same screen in agent-light stays legible."""
        app = resumed_app(make_config(server, tmp_path / "s.db"), fixed_workspace, theme_name="agent-light")
        assert snap_compare(app, run_before=ready, terminal_size=SIZE)

    def test_slash_menu(
        self,
        snap_compare,
        server,
        tmp_path,
        fixed_workspace,
    ):
        """Typing `/c` opens the completion menu under the input."""
        app = resumed_app(make_config(server, tmp_path / "s.db"), fixed_workspace)

        async def run_before(pilot):
            await ready(pilot)
            await pilot.press("/", "c")
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)

    def test_approval_modal(
        self,
        snap_compare,
        server,
        tmp_path,
        fixed_workspace,
    ):
        """The approval modal over the session: command, editable prefix, a/s/d."""
        app = resumed_app(make_config(server, tmp_path / "s.db"), fixed_workspace)
        request = ApprovalRequest(
            "bash", {"command": "git status --short"}, "git status --short", "git status"
        )

        async def run_before(pilot):
            await ready(pilot)
            pilot.app.push_screen(ApprovalScreen(request, where="tab 1 · fix-tests"))
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)

    def test_no_model_panel(self, snap_compare, tmp_path, fixed_workspace, monkeypatch):
        """Without a model: the panel that says how to set one."""
        # The panel prints the config file's path: keep it the same on every run.
        monkeypatch.setenv("AGENT_TUI_HOME", str(fixed_workspace / "home"))
        config = load_config(
            overrides={"store": {"db": str(tmp_path / "n.db")}, "sandbox": {"mode": "off"}},
            cwd=fixed_workspace,
            env={},
        ).config
        app = make_app(config, fixed_workspace)
        assert snap_compare(app, run_before=ready, terminal_size=SIZE)
