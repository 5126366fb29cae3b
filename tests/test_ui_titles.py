"""Dialog and tab titles name the request at hand (issue 43 low 17): after "show me markdown
please" and then "edit mul please", the approval said `Allow edit_file? · tab 1 · show me
markdown please` and the tab kept the first message's name."""

from __future__ import annotations

from agent_tui.frontends.tui.screens.approval import ApprovalScreen
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, send, settle, until, until_armed


async def test_the_approval_and_the_tab_name_the_current_request(server, tmp_path, workspace):
    (workspace / "mul.py").write_text("def mul(a, b):\n    return a + b\n")
    edit = {"path": "mul.py", "old_string": "a + b", "new_string": "a * b"}
    server.enqueue(Reply(text="# Markdown"), Reply(tool_calls=[("edit_file", edit)]), Reply(text="fixed"))
    app = make_app(make_config(server, tmp_path / "t.db", cwd=workspace), workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await send(pilot, "show me markdown please")
        await until(pilot, lambda: not app.view.busy, what="the first reply")
        await send(pilot, "edit mul please")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="the approval")
        await until_armed(pilot)
        where = app.screen.where
        label = app.view.title
        await pilot.press("1", "enter")
        await until(pilot, lambda: not app.view.busy, what="the edit")
    assert where == "tab 1 · edit mul please"
    assert label == "edit mul please"


async def test_the_resume_picker_tells_two_sessions_of_one_title_apart(server, tmp_path, workspace):
    """`/resume` listed two sessions by one title (their first message): each row also says
    the session's latest request when it is another."""
    from agent_tui.base.messages import assistant, user
    from agent_tui.compose.factory import build_services
    from agent_tui.frontends.tui.screens.resume import ResumeScreen

    config = make_config(server, tmp_path / "r.db", cwd=workspace)
    services = await build_services(config, workspace=workspace)
    try:
        for last in ("edit mul please", "show me markdown please"):
            info = await services.store.sessions.create(str(workspace), config.model.name)
            first = [user("show me markdown please"), assistant("# Markdown")]
            more = [user(last), assistant("done")] if last != "show me markdown please" else []
            await services.store.sessions.append(info.id, [*first, *more])
    finally:
        await services.close()
    app = make_app(config, workspace, session_id="")
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ResumeScreen), what="the picker")
        titles = sorted(r.title for r in app.screen.rows)
        await pilot.press("enter")
        await settle(pilot)
    assert titles == ["show me markdown please", "show me markdown please · now: edit mul please"]
