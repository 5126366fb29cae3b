"""Loaded skills are kept across resume: a skill the model loaded with the `skill` tool, or the
user with `/skill NAME`, is in the resumed session's system prompt — also after a compaction
summarised the loading call away — and `/context` names it (real `run`, real store, Pilot)."""

from __future__ import annotations

from agent_tui.policy import trust
from agent_tui.runtime import paths
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.extend import cli, write, write_user_config
from tests.support.ui_helpers import make_app, screen_text, until
from tests.support.ui_session_fixtures import send

STEPS = "".join(f"Step {n}: check the migration for locks on large tables.\n" for n in range(40))
SKILL = "---\nname: db-migrations\ndescription: Reviewing database migrations\n---\n# Migrations\n" + STEPS


def system_prompt(request: dict) -> str:
    return "\n".join(str(m["content"]) for m in request["messages"] if m["role"] == "system")


def test_a_skill_the_model_loaded_is_back_after_compaction_and_resume(server, workspace, tmp_path):
    """Run 1 loads the skill through the tool; run 2 resumes and compacts (the call is
    summarised away); run 3 resumes from that snapshot: its request still carries the body."""
    write_user_config(server, tmp_path / "s.db", "[compaction]\nretain_last_turns = 0\ntarget_ratio = 0.15\n")
    write(workspace / ".claude/skills/db-migrations/SKILL.md", SKILL)
    trust.add(workspace)
    server.enqueue(
        Reply(tool_calls=[("skill", {"name": "db-migrations"})]),
        Reply(text="Checked: no long locks. " + "details " * 3000),
    )
    assert cli(["run", "review the migration"], workspace).returncode == 0
    server.enqueue(Reply(text="<retain></retain><summary>reviewed a migration</summary>"), Reply(text="ok"))
    out = cli(["run", "-c", "--compact", "and the next one"], workspace)
    assert out.returncode == 0, out.stderr
    assert "Step 7: check the migration" in system_prompt(server.requests[-1])
    server.enqueue(Reply(text="done"))
    out = cli(["run", "-c", "and the last one"], workspace)
    assert out.returncode == 0, out.stderr
    last = server.requests[-1]
    calls = [c["function"]["name"] for m in last["messages"] for c in m.get("tool_calls") or []]
    assert "skill" not in calls, "the compaction was to summarise the loading call away"
    assert "Step 7: check the migration" in system_prompt(last)


async def test_slash_skill_by_hand_is_back_after_resume_and_context_names_it(server, workspace, tmp_path):
    """`/skill db-migrations` in one app; a second app resuming the session sends the body and
    its `/context` lists the skill as loaded."""
    write(paths.config_dir() / "skills/db-migrations/SKILL.md", SKILL)
    config = make_config(server, tmp_path / "h.db", cwd=workspace)
    server.enqueue(Reply(text="noted"), Reply(text="resumed"))
    first = make_app(config, workspace)
    async with first.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: first.view.session is not None, what="the session")
        await send(pilot, "/skill db-migrations")
        await send(pilot, "hello")
        await until(pilot, lambda: len(server.requests) == 1, what="the first request")
        session_id = first.view.session.session_id
    assert "Step 7: check the migration" in system_prompt(server.requests[0])
    second = make_app(config, workspace, session_id=session_id)
    async with second.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: second.view.session is not None, what="the resumed session")
        await send(pilot, "go on")
        await until(pilot, lambda: len(server.requests) == 2, what="the resumed request")
        await send(pilot, "/context")
        await until(pilot, lambda: "Skills loaded" in screen_text(second), what="/context")
        assert "kept through compaction): db-migrations" in screen_text(second)
    assert "Step 7: check the migration" in system_prompt(server.requests[1])


async def test_a_skill_gone_since_is_said_once_and_the_rest_come_back(server, workspace, tmp_path):
    """Two skills loaded by hand; one file deleted before resume: the other is back on, and the
    first turn of the resumed session says the missing one is not in the prompt."""
    from agent_tui.agent import events as ev
    from agent_tui.compose.factory import build_services
    from agent_tui.extensions.skill_resume import load_by_hand
    from tests.support.agent_fixtures import collect, of_type

    write(paths.config_dir() / "skills/db-migrations/SKILL.md", SKILL)
    gone = write(paths.config_dir() / "skills/old/SKILL.md", "---\nname: old\ndescription: o\n---\nOld.\n")
    config = make_config(server, tmp_path / "g.db", cwd=workspace)
    services = await build_services(config, workspace=workspace)
    try:
        session = await services.new_session(yes=True)
        await load_by_hand(session, "old")
        await load_by_hand(session, "db-migrations")
        session_id = session.session_id
        await session.close()
    finally:
        await services.close()
    gone.unlink()
    services = await build_services(config, workspace=workspace)
    try:
        resumed = await services.resume_session(session_id, yes=True)
        assert resumed.prompts.user_prompts.active == ("db-migrations",)
        server.enqueue(Reply(text="ok"))
        said = [e.message for e in of_type(await collect(resumed.run_turn("go on")), ev.Notice)]
        assert sum("skill old, loaded earlier in this session, is not available now" in s for s in said) == 1
        assert "Step 7: check the migration" in system_prompt(server.requests[-1])
    finally:
        await services.close()
