"""Sub-agents in the real app (Pilot): a live line per running child under its task call, the
approval dialog naming the child that asks, Escape cancelling every child and its commands."""

from __future__ import annotations

import threading
from pathlib import Path

from agent_tui.frontends.tui.widgets.child_lines import ChildLine
from agent_tui.store import open_store
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import make_config
from tests.support.subagent_model import Model, after_tool, first_user_text
from tests.support.ui_helpers import make_app, screen_text, settle, until, until_approval
from tests.support.ui_session_fixtures import send


async def start(pilot, text: str) -> None:
    """Send `text` and return at once (the turn runs on)."""
    prompt = pilot.app.view.prompt
    prompt.focus()
    prompt.set_text(text)
    await pilot.press("enter")


def tasks(*briefs: str) -> Reply:
    return Reply(tool_calls=[("task", {"description": b, "prompt": b}) for b in briefs])


async def test_approval_from_a_child_names_it_and_the_line_folds(tmp_path, workspace):
    """The child's bash question shows "sub-agent: <its description>"; once allowed, its line
    folds to its state and transcript ref, Enter on it opens its transcript, and /context says
    what the child cost the window."""

    def child(body):
        if after_tool(body):
            return Reply(text="touched")
        return Reply(tool_calls=[("bash", {"command": "touch made-by-child"})])

    def parent(body):
        return Reply(text="all done") if after_tool(body) else tasks("make a file")

    with FakeOpenAI(window=64_000, responder=Model(parent, child)) as server:
        config = make_config(server, tmp_path / "t.db", 64_000, sandbox={"mode": "off"})
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await start(pilot, "go")
            await until_approval(pilot)
            await until(pilot, lambda: "Allow bash?" in screen_text(app), what="the dialog drawn")
            assert "sub-agent: make a file" in screen_text(app)
            await pilot.press("1", "enter")
            await settle(pilot)
            text = screen_text(app)
            (line,) = app.query(ChildLine)
            line.focus()
            await pilot.press("enter")
            await until(
                pilot, lambda: "touch made-by-child" in screen_text(app), what="the child's transcript"
            )
            opened = screen_text(app)
            await pilot.press("escape")
            await send(pilot, "/context")
            await until(pilot, lambda: "Sub-agents:" in screen_text(app), what="/context")
            context = screen_text(app)
    assert (workspace / "made-by-child").exists()
    assert "make a file  completed" in text and "/m_1-4" in text
    assert "sub-agent: make a file" in opened and "#1 user" in opened
    assert "Sub-agents: 1 envelope(s) in this window" in context and "1 child session(s)" in context


async def test_escape_cancels_both_running_children_and_their_commands(tmp_path, workspace):
    """Two children each run a long command; their live lines show while they run; Escape
    cancels the turn: both commands' processes are gone, both lines stop counting and both task
    results say cancelled."""
    asked = threading.Event()
    briefs: list[str] = []

    def child(body):
        name = "one" if "one" in first_user_text(body) else "two"
        briefs.append(name)
        if len(briefs) == 2:
            asked.set()
        return Reply(tool_calls=[("bash", {"command": f"echo $$ > {name}.pid; exec sleep 60"})])

    def parent(body):
        return tasks("sleeper one", "sleeper two")

    pids = [workspace / "one.pid", workspace / "two.pid"]
    db = tmp_path / "e.db"
    with FakeOpenAI(window=64_000, responder=Model(parent, child)) as server:
        config = make_config(server, db, 64_000, sandbox={"mode": "off"}, tools={"allow": ["bash"]})
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await start(pilot, "go")
            await until(
                pilot, lambda: all(p.exists() and p.read_text().strip() for p in pids), 30, "commands"
            )
            await until(pilot, lambda: screen_text(app).count("running bash") == 2, 10, "two live lines")
            text = screen_text(app)
            assert "sleeper one" in text and "sleeper two" in text and "context" in text
            shells = [int(p.read_text()) for p in pids]
            await pilot.press("escape")
            await settle(pilot)
            # The lines stop counting with their parent (they went on: `thinking · 41.8 s`).
            lines = list(app.query(ChildLine))
            assert len(lines) == 2 and all(line.child.ended is not None for line in lines)
            assert "running bash" not in screen_text(app)
    for pid in shells:
        assert not Path(f"/proc/{pid}").exists() or Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"

    async def results() -> list[str]:
        store = await open_store(db)
        try:
            (parent_info,) = [s for s in await store.sessions.list() if s.parent_id is None]
            return [
                m.content or "" for m in await store.sessions.transcript(parent_info.id) if m.role == "tool"
            ]
        finally:
            await store.close()

    texts = await results()
    assert len(texts) == 2 and all("stopped: cancelled" in t for t in texts), texts
