"""The stored session the second set of SVG snapshots reads: a cart project, its logs, a server that answers from them."""

from __future__ import annotations

import asyncio
import itertools
import json

import pytest

from agent_tui.base.messages import ToolCall, assistant, tool_result, user
from agent_tui.frontends.tui.screens import blobs
from agent_tui.frontends.tui.screens.blobs import BlobsScreen
from agent_tui.frontends.tui.screens.context_screen import ContextScreen
from agent_tui.frontends.tui.widgets.prompt import PromptInput
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, settle, until

WINDOW = 16_384


CART = '''"""The shopping cart."""
import decimal


def total(items):
    """Sum of price times quantity."""
    return sum(i.price * i.qty for i in items)


def discount(total, code):
    if code == "TEN":
        return total * decimal.Decimal("0.9")
    return total
'''


def pytest_output() -> str:
    lines = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.11.7, pytest-8.3.3",
    ]
    lines += [f"tests/test_cart.py::test_case_{i:04d} PASSED" for i in range(1, 1196)]
    lines += [
        "tests/test_cart.py::test_total FAILED",
        "    assert total(items) == 30",
        "E   assert 10 == 30",
        "FAILED tests/test_cart.py::test_total - assert 10 == 30",
        "WARNING: 1 test deprecated",
        "=================== 1 failed, 1195 passed, 1 warning in 2.10s ===================",
    ]
    return "\n".join(lines) + "\n"


def app_log(day: int) -> str:
    return "".join(
        f"2024-05-{day:02d} 10:{i // 60:02d}:{i % 60:02d} INFO request {i} served in {i % 97} ms\n"
        for i in range(150)
    )


def responder(body: dict) -> Reply:
    """Fixed answers: a summary when asked; `read logs/dayN.log` reads that file."""
    if not body.get("tools") and "<conversation>" in json.dumps(body):
        return Reply(
            text="<summary>The user ran the cart tests; test_total fails because "
            "quantities are ignored.</summary>"
        )
    last = body["messages"][-1]
    if last["role"] == "user" and str(last["content"]).startswith("read logs/"):
        return Reply(tool_calls=[("read_file", {"path": str(last["content"])[5:]})])
    if last["role"] == "tool":
        return Reply(text="The log shows every request served; no errors.")
    return Reply(text="The total ignores quantities; `src/cart.py` line 7 needs `* i.qty`.")


@pytest.fixture
def snap_server():
    with FakeOpenAI(window=WINDOW, responder=responder) as srv:
        yield srv


def stored_session(config, workspace, monkeypatch) -> tuple[str, float]:
    """Write the session (and its outputs, under fixed refs) to the database; return its id and
    the newest output's time (the frozen clock starts from it)."""
    from agent_tui.compose.factory import build_services
    from agent_tui.store import writer

    numbers = itertools.count(1)
    monkeypatch.setattr(writer, "new_ref_id", lambda: f"r_7f3a{next(numbers):06x}")

    async def store() -> tuple[str, float]:
        services = await build_services(config, workspace=workspace)
        results = services.store.results
        info = await services.store.sessions.create(str(workspace), config.model.name, title="fix-tests")
        calls = [
            ToolCall("call_1", "bash", '{"command": "pytest -q"}'),
            ToolCall("call_2", "read_file", '{"path": "src/cart.py"}'),
            ToolCall("call_3", "bash", '{"command": "git log --oneline"}'),
        ]
        outputs = [
            pytest_output(),
            CART,
            "".join(f"{i:07x} commit number {i} of the cart history\n" for i in range(1, 401)),
        ]
        history = [user("run the tests and fix what fails")]
        for call, output in zip(calls, outputs, strict=True):
            ref = await results.offload(info.id, call.name, call.id, output)
            history += [assistant(None, (call,)), tool_result(call, await results.view(ref), ref)]
        history.append(assistant("test_total fails: quantities are ignored."))
        await services.store.sessions.append(info.id, history)
        newest = max(b.created for b in await results.list_blobs(session_id=info.id))
        await services.close()
        return info.id, newest

    return asyncio.run(store())


def snapshot_app(snap_server, tmp_path, workspace, monkeypatch, theme: str):
    # Sandbox chosen off: the same picture whether or not the machine has bubblewrap.
    config = make_config(snap_server, tmp_path / "snap.db", window=WINDOW, sandbox={"mode": "off"})
    session_id, newest = stored_session(config, workspace, monkeypatch)
    monkeypatch.setattr(blobs, "wall_clock", lambda: newest + 150)
    return make_app(config, workspace, session_id=session_id, theme_name=theme)


async def ready(pilot) -> None:
    await settle(pilot)
    pilot.app.query_one(PromptInput).cursor_blink = False
    await pilot.pause()


async def send(pilot, text: str) -> None:
    prompt = pilot.app.view.prompt
    prompt.set_text(text)
    prompt.focus()
    await pilot.press("enter")
    await settle(pilot)


async def context_mid_session(pilot) -> None:
    """Two turns, a /compact, three more turns (two read big files), then /context."""
    await ready(pilot)
    await send(pilot, "why does test_total fail?")
    await send(pilot, "and what about discount()?")
    await send(pilot, "/compact")
    await send(pilot, "read logs/day1.log")
    await send(pilot, "what is left to fix?")
    await send(pilot, "read logs/day2.log")
    pilot.app.clear_notifications()
    await send(pilot, "/context")
    assert isinstance(pilot.app.screen, ContextScreen)
    await pilot.pause()


async def blob_browser(pilot) -> None:
    """/blobs over the session, the newest output open in the viewer."""
    await ready(pilot)
    app = pilot.app
    await send(pilot, "/blobs")
    screen = app.screen
    assert isinstance(screen, BlobsScreen)
    await until(pilot, lambda: screen.searches >= 1, what="the rows")
    await settle(pilot)
    await until(pilot, lambda: screen.viewer.settled, what="the viewer")
    app.clear_notifications()
    await pilot.pause()
