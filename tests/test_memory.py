"""Memories and skills: files in the config dir, loaded into the cacheable prompt, counted as
`skill_prompts`, and picked up by a running session when they change."""

from __future__ import annotations

import pytest

from agent_tui.compose.factory import build_services
from agent_tui.context.memory import (
    UserPrompts,
    discover_skills,
    memories_file,
    remember,
    skills_dir,
)
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config


def write_skill(name: str, text: str) -> None:
    folder = skills_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text)


class TestRemember:
    def test_notes_append_to_the_file_in_the_config_dir(self, isolated_home):
        """Each note is one list item; multi-line notes stay one item; the dir is created."""
        path = remember("Use tabs in Makefiles.")
        remember("Deploys happen on Fridays\nnever on Mondays")
        assert path == memories_file() and path.is_relative_to(isolated_home)
        assert path.read_text() == (
            "- Use tabs in Makefiles.\n- Deploys happen on Fridays\n  never on Mondays\n"
        )

    def test_an_empty_note_is_refused(self):
        """Blank text raises a ValueError the TUI can show."""
        with pytest.raises(ValueError, match="empty"):
            remember("   ")


class TestUserPrompts:
    def test_memories_and_active_skills_are_skill_prompt_sections(self):
        """Memories first, then skills in activation order; all count as skill_prompts."""
        remember("The user's name is Ada.")
        write_skill("review", "---\ndescription: Careful code review\n---\nCheck every diff.")
        write_skill("terse", "# Terse\nAnswer in one line.")
        prompts = UserPrompts(active=["terse"])
        assert prompts.activate("review") and prompts.active == ("terse", "review")
        sections = prompts.sections()
        assert [s.name for s in sections] == ["memories", "skill:terse", "skill:review"]
        assert all(s.component == "skill_prompts" and s.cacheable for s in sections)
        assert "Ada" in sections[0].text and "Check every diff." in sections[2].text
        assert "description" not in sections[2].text
        assert discover_skills()["review"].description == "Careful code review"
        assert discover_skills()["terse"].description == "Terse"

    def test_unknown_skills_name_the_available_ones(self):
        """Activating a missing skill says which exist."""
        write_skill("review", "Check every diff.")
        with pytest.raises(ValueError, match="available: review"):
            UserPrompts().activate("nope")

    def test_files_are_reread_only_when_they_change(self):
        """An edit shows up at the next call; an unchanged file returns the same section."""
        prompts = UserPrompts()
        assert prompts.sections() == []
        remember("first")
        first = prompts.sections()
        assert first[0] is prompts.sections()[0]
        remember("second")
        assert "second" in prompts.sections()[0].text
        memories_file().unlink()
        assert prompts.sections() == []
        assert not prompts.deactivate("review")


class TestSession:
    async def test_memories_and_skills_reach_the_prompt_and_the_budget(self, tmp_path, workspace):
        """The system prompt holds them after the rules; /remember mid-session shows up next."""
        (workspace / "AGENTS.md").write_text("Project rule: run make test.")
        remember("Prefer pathlib over os.path.")
        write_skill("review", "Review instructions: check every diff.")
        with FakeOpenAI(window=32_000) as server:
            services = await build_services(make_config(server, tmp_path / "m.db"), workspace=workspace)
            try:
                session = await services.new_session()
                assert "check every diff" in session.prompts.activate_skill("review")
                server.enqueue(Reply(text="one"), Reply(text="two"))
                await collect(session.run_turn("hi"))
                with_skill = session.last_budget.skill_prompts
                remember("Answer in British English.")
                await collect(session.run_turn("again"))
            finally:
                await services.close()
        first = server.requests[0]["messages"][0]["content"]
        assert first.index("Project rule") < first.index("pathlib") < first.index("every diff")
        assert with_skill > 0 and session.last_budget.skill_prompts > with_skill
        assert "British English" in server.requests[1]["messages"][0]["content"]
        assert session.last_budget.system_prompt > session.last_budget.skill_prompts
