"""The fixed set-up the SVG snapshot tests share: a resumed mid-session app in a workspace with a fixed path, the sandbox off."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.base.messages import ResultRef, ToolCall, assistant, tool_result, user
from agent_tui.frontends.tui.widgets.prompt import PromptInput
from tests.support.ui_helpers import make_app, settle

REPLY = """The cart total ignored quantities; fixed in `src/cart.py:41`:

```python
total = sum(i.price * i.qty for i in items)
```

All **212** tests pass."""


@pytest.fixture(autouse=True)
def sandbox_off():
    """The same picture with or without bubblewrap on the machine: the sandbox chosen off (which
    the top bar does not mention)."""
    from agent_tui.runtime import paths

    paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.user_config_file().write_text('[sandbox]\nmode = "off"\n')


SNAPSHOT_HOME = Path("/tmp/agent-tui-snapshot-home")
"""HOME for snapshot tests, the same absolute path on every machine and run: the system prompt
names the workspace's absolute path, so a path under pytest's numbered temp folder made the meter's
`sys` tokens (and the SVG) differ with the folder's number."""


@contextlib.contextmanager
def fixed_home(monkeypatch: pytest.MonkeyPatch, folder: str) -> Iterator[Path]:
    """HOME at `SNAPSHOT_HOME`, with an empty workspace `~/<folder>` in it. Another pytest process
    (a parallel shard) may want the same folder: a lock file takes turns, and the folder is
    emptied before and after each test."""
    with open(SNAPSHOT_HOME.parent / "agent-tui-snapshot.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(SNAPSHOT_HOME, ignore_errors=True)
        path = SNAPSHOT_HOME / folder
        path.mkdir(parents=True)
        monkeypatch.setenv("HOME", str(SNAPSHOT_HOME))
        try:
            yield path
        finally:
            shutil.rmtree(SNAPSHOT_HOME, ignore_errors=True)


@pytest.fixture
def fixed_workspace(monkeypatch):
    """A workspace at one fixed path, shown as `~/agent-tui-snapshot-ws`."""
    with fixed_home(monkeypatch, "agent-tui-snapshot-ws") as path:
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
    from agent_tui.compose.factory import build_services

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
