"""/undo, /rename, /remember, /init, /tools, /permissions and 'always allow', through the app."""

from __future__ import annotations

import pytest

from agent_tui.policy.allow_rules import project_rules
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, notices, printed, send, settle, until, until_approval


@pytest.fixture
def config(server, workspace, tmp_path):
    # cwd = the workspace, so the project's .agent-tui.toml is the one rules are written to.
    return make_config(server, tmp_path / "ui.db", cwd=workspace)


class TestSessionCommands:
    async def test_undo_after_an_edit_through_the_app(self, server, config, workspace):
        """An approved edit, then /undo: the file is back and the notice names it."""
        (workspace / "app.py").write_text("total = 1\n")
        server.enqueue(
            Reply(tool_calls=[("edit_file", {"path": "app.py", "old_string": "1", "new_string": "2"})]),
            Reply(text="edited"),
        )
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "change the total")
            await until_approval(pilot)
            await pilot.press("1", "enter")
            await settle(pilot)
            assert (workspace / "app.py").read_text() == "total = 2\n"
            await send(pilot, "/undo")
            await settle(pilot)
            await until(pilot, lambda: "app.py" in printed(app), what="the undo block")
            assert (workspace / "app.py").read_text() == "total = 1\n"
            note = app.view.session.history[-1]
            assert note.kind == "note" and "undid" in note.content and "app.py" in note.content

    async def test_always_allow_writes_the_rule(self, server, config, workspace):
        server.enqueue(Reply(tool_calls=[("bash", {"command": "git status"})]), Reply(text="ok"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "status?")
            await until_approval(pilot)
            await pilot.press("3", "enter")
            await settle(pilot)
        assert project_rules(workspace) == ["bash:git status"]

    async def test_rename_remember_init_tools_permissions(self, config, workspace):
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/rename fixing the cart")
            await settle(pilot)
            view = app.view
            assert view.session.title == "fixing the cart"
            info = await view.session.store.sessions.get(view.session.session_id)
            assert info.title == "fixing the cart"
            await send(pilot, "/remember the tests live in tests/unit")
            await send(pilot, "/init")
            await send(pilot, "/tools")
            await send(pilot, "/permissions")
            await settle(pilot)
            await until(pilot, lambda: "Allowed without asking" in printed(app), what="the blocks")
            text = printed(app)
            assert "Remembered" in text and "Wrote AGENTS.md" in text
            assert "read_result" in text and "Allowed without asking" in text
            assert (workspace / "AGENTS.md").is_file()
            from agent_tui.context.memory import memories_file

            assert "tests/unit" in memories_file().read_text()


class TestAtCompletion:
    async def test_at_completes_a_workspace_path_and_attaches_it(
        self,
        server,
        config,
        workspace,
    ):
        """Typing @ lists files (not ignored ones); Tab completes; the file rides along."""
        (workspace / "src").mkdir()
        (workspace / "src" / "cart.py").write_text("def total(items):\n    return 0\n")
        (workspace / ".gitignore").write_text("build/\n")
        (workspace / "build").mkdir()
        (workspace / "build" / "cart.py").write_text("generated\n")
        server.enqueue(Reply(text="seen"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            prompt.focus()
            for key in "look at @car":
                await pilot.press("space" if key == " " else key)
            menu = prompt.menu
            await until(pilot, lambda: menu.display, what="the @ menu")
            assert menu.choice == "src/cart.py" and menu.option_count == 1
            await pilot.press("tab")
            assert prompt.text == "look at @src/cart.py "
            await pilot.press("enter")
            await settle(pilot)
        sent = server.requests[-1]["messages"][-1]["content"]
        assert '<attachment path="src/cart.py">' in sent and "def total" in sent


class TestMeterTooltip:
    async def test_tooltip_gives_exact_numbers_and_unknown_cost(
        self,
        server,
        config,
        workspace,
    ):
        from agent_tui.frontends.tui.widgets.meter import ContextMeter

        server.enqueue(Reply(text="hello"))
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "hi")
            await settle(pilot)
            tooltip = str(app.query_one(ContextMeter).tooltip)
            assert "effective" in tooltip and "cost   unknown last reply · unknown session" in tooltip


class TestSkillCommand:
    async def test_skill_without_a_name_lists_the_skills(self, config, workspace):
        """/skill alone names the skills found (it failed with "'str' object has no attribute
        'name'", hidden as a notice, before mypy ran in CI)."""
        from agent_tui.context.memory import skills_dir

        skills_dir().mkdir(parents=True)
        (skills_dir() / "review.md").write_text("Review code carefully.\n")
        app = make_app(config, workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/skill")
            await until(pilot, lambda: "Skills:" in printed(app), what="the skill list")
            assert "Skills: review\n" in printed(app)
            assert "has no attribute" not in notices(app)
