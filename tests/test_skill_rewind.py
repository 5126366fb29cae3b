"""A skill loaded in a branch the user rewound away is off: at once in the live session, and
after resume (real store, real provider over HTTP)."""

from __future__ import annotations

from agent_tui.agent.rewind import rewind_points
from agent_tui.compose.factory import build_services
from agent_tui.extensions.skill_resume import load_by_hand, realign_after_rewind
from agent_tui.runtime import paths
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config
from tests.support.extend import write

SKILL = "---\nname: db-migrations\ndescription: Reviewing database migrations\n---\nStep 7: locks.\n"
KEPT = "---\nname: style\ndescription: House style\n---\nUse short names.\n"


async def test_a_skill_loaded_after_the_rewind_point_is_off_live_and_after_resume(
    server, workspace, tmp_path
):
    """`style` is loaded before message 1, `db-migrations` after it; rewinding to before
    message 1 turns `db-migrations` off now and a resume does not turn it back on."""
    write(paths.config_dir() / "skills/db-migrations/SKILL.md", SKILL)
    write(paths.config_dir() / "skills/style/SKILL.md", KEPT)
    config = make_config(server, tmp_path / "r.db", cwd=workspace)
    services = await build_services(config, workspace=workspace)
    try:
        session = await services.new_session(yes=True)
        await load_by_hand(session, "style")
        server.enqueue(Reply(text="hi"))
        await collect(session.run_turn("hello"))
        await load_by_hand(session, "db-migrations")
        assert session.prompts.user_prompts.active == ("style", "db-migrations")
        first = (await rewind_points(session))[0]
        await session.rewind(first, "conversation")
        turned_off = await realign_after_rewind(session)
        assert turned_off == ["db-migrations"]
        assert session.prompts.user_prompts.active == ("style",)
        session_id = session.session_id
        await session.close()
    finally:
        await services.close()
    services = await build_services(config, workspace=workspace)
    try:
        resumed = await services.resume_session(session_id, yes=True)
        assert resumed.prompts.user_prompts.active == ("style",)
    finally:
        await services.close()


async def test_the_tui_rewind_says_which_skill_is_off(server, workspace, tmp_path):
    """/skill, a message, /skill again, /rewind to that message: the chat says the second skill
    is off again and the next request's system prompt no longer holds it."""
    from agent_tui.frontends.tui.screens.rewind import RewindScreen
    from tests.support.ui_helpers import make_app, screen_text, send, settle, until, until_armed

    write(paths.config_dir() / "skills/db-migrations/SKILL.md", SKILL)
    config = make_config(server, tmp_path / "t.db", cwd=workspace)
    app = make_app(config, workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        server.enqueue(Reply(text="hi"))
        await send(pilot, "hello")
        await settle(pilot)
        await send(pilot, "/skill db-migrations")
        await until(
            pilot, lambda: "db-migrations" in app.view.session.prompts.user_prompts.active, what="the skill"
        )
        await send(pilot, "/rewind")
        await until(pilot, lambda: isinstance(app.screen, RewindScreen), what="the picker")
        await pilot.press("enter")
        await until_armed(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: "is off again" in screen_text(app), what="the rewind's line")
        assert "Skill db-migrations, loaded after that point, is off again." in screen_text(app)
        server.enqueue(Reply(text="again"))
        await send(pilot, "hello again")
        await until(pilot, lambda: len(server.requests) == 2, what="the next request")
    system = "\n".join(str(m["content"]) for m in server.requests[-1]["messages"] if m["role"] == "system")
    assert "Step 7: locks." not in system
