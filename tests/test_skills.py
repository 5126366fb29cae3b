"""Skills the model chooses: only names and descriptions are in the prompt until the scripted
model loads one through the `skill` tool (the request's size shows it); a loaded skill stays in
the system prompt through a compaction; `/skill NAME` loads one by hand."""

from __future__ import annotations

import json

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.policy import trust
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config, of_type
from tests.support.cli import run_cli as cli
from tests.support.hooks import events_of, user_config
from tests.support.skills import BODY, write_skill


def system_prompt(request: dict) -> str:
    """Every system message's text (the prompt's sections may come as several)."""
    return "\n".join(str(m["content"]) for m in request["messages"] if m["role"] == "system")


class TestSkills:
    def test_the_model_loads_a_skill_and_only_its_description_was_sent_before(
        self, server, workspace, tmp_path
    ):
        """Before the `skill` call the request has the description but not the body; after it
        the body is in the system prompt and the request is bigger by about the body."""
        user_config(server, tmp_path / "s.db")
        write_skill(workspace / ".claude" / "skills")
        trust.add(workspace)
        server.enqueue(
            Reply(tool_calls=[("skill", {"name": "db-migrations"})]),
            Reply(text="Checked: no long locks."),
        )
        out = cli(["run", "review the new migration", "--json"], workspace)
        assert out.returncode == 0, out.stderr
        before, after = server.requests
        assert "db-migrations: Reviewing database migrations" in system_prompt(before)
        assert "Step 7: check the migration" not in json.dumps(before)
        assert "Step 7: check the migration" in system_prompt(after)
        grown = len(json.dumps(after)) - len(json.dumps(before))
        assert grown > len(BODY) * 50
        loaded = [e for e in events_of(out) if e["type"] == "tool_call_finished"][0]
        assert "checklist.md" in loaded["view"] and not loaded["is_error"]
        budgets = [e["budget"]["skill_prompts"] for e in events_of(out) if e["type"] == "budget"]
        assert budgets[-1] > budgets[0] + 500

    def test_untrusted_project_skills_are_not_offered(self, server, workspace, tmp_path):
        """`.claude/skills` of an untrusted folder: no index, no `skill` tool."""
        user_config(server, tmp_path / "u.db")
        write_skill(workspace / ".claude" / "skills")
        server.enqueue(Reply(text="ok"))
        assert cli(["run", "hi"], workspace).returncode == 0
        request = server.requests[0]
        assert "db-migrations" not in json.dumps(request)
        assert "skill" not in [t["function"]["name"] for t in request.get("tools", [])]

    async def test_a_loaded_skill_survives_compaction_and_slash_skill_loads_by_hand(
        self, server, workspace, tmp_path
    ):
        """A user-dir folder skill loaded by hand (`/skill` goes through activate_skill) is
        still in the system prompt after a forced compaction."""
        from agent_tui.runtime import paths

        write_skill(paths.config_dir() / "skills")
        config = make_config(server, tmp_path / "c.db", window=12_000, cwd=workspace)
        services = await build_services(config, workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            assert "Reviewing database migrations" in session.prompts.activate_skill("db-migrations")
            server.enqueue(
                Reply(text="one " * 600),
                Reply(text="two " * 600),
                Reply(text="<retain>x</retain><summary>talked about words</summary>"),
                Reply(text="three"),
            )
            await collect(session.run_turn("first " + "words " * 600))
            await collect(session.run_turn("second " + "words " * 600))
            compacted = await collect(session.compact())
            (finished,) = of_type(compacted, ev.CompactionFinished)
            assert finished.result.applied
            await collect(session.run_turn("third"))
            assert "Step 7: check the migration" in system_prompt(server.requests[-1])
        finally:
            await services.close()

    def test_a_malformed_skill_is_one_notice_and_the_rest_load(self, server, workspace, tmp_path):
        """A SKILL.md with a bad front matter line is named with its line; the good one loads."""
        user_config(server, tmp_path / "m.db")
        skills = workspace / ".agent-tui" / "skills"
        write_skill(skills)
        write_skill(skills, "broken", "---\ndescription: fine\nthis line is wrong\n---\nbody\n")
        trust.add(workspace)
        server.enqueue(Reply(text="ok"))
        out = cli(["run", "hi"], workspace)
        assert out.returncode == 0, out.stderr
        assert "broken/SKILL.md:3: not a `key: value` line" in out.stderr
        assert "db-migrations" in system_prompt(server.requests[0])
