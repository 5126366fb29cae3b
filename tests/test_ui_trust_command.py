"""`/trust` in the TUI, and an untrusted folder's commands saying why they are missing: `/review`
answered `Unknown command /review` in a folder whose `.claude/commands/review.md` was only
waiting for trust, and trusting meant quitting."""

from __future__ import annotations

import pytest

from agent_tui.frontends.tui import slash
from agent_tui.policy import trust
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.hooks import claude_settings, group
from tests.support.ui_helpers import make_app, notices, printed, send, settle


@pytest.fixture
def project(workspace):
    (workspace / ".claude" / "commands").mkdir(parents=True)
    (workspace / ".claude" / "commands" / "review.md").write_text("Review $ARGUMENTS for bugs.\n")
    claude_settings(workspace, {"UserPromptSubmit": [group(None, "echo 'on branch main'")]})
    yield workspace
    slash.set_custom([])
    slash.set_withheld({})


async def not_now(pilot) -> None:
    app = pilot.app
    await settle(pilot)
    while app.screen is not app.screen_stack[0]:  # the start-up trust question: not now
        await pilot.press("n")
        await settle(pilot)


class TestTrustInTheTui:
    async def test_a_withheld_command_says_why_and_trust_turns_it_on(self, server, tmp_path, project):
        config = make_config(server, tmp_path / "t.db", cwd=project)
        server.enqueue(Reply(text="reviewed"))
        app = make_app(config, project)
        async with app.run_test(size=(120, 36)) as pilot:
            await not_now(pilot)
            await send(pilot, "/review auth")
            await settle(pilot)
            said = notices(app)
            assert "Unknown command" not in said
            assert (
                "/review is this folder's command (.claude/commands/review.md)" in said and "/trust" in said
            )
            assert app.view.prompt.text == "/review auth"  # nothing lost
            await send(pilot, "/trust")
            await settle(pilot)
            assert "Trusted " in printed(app), notices(app)
            assert trust.state(project) == "trusted"
            await send(pilot, "/review auth")
            await settle(pilot)
        sent = server.requests[-1]["messages"][-1]["content"]
        assert sent.startswith("Review auth for bugs.")
        assert "on branch main" in sent  # the folder's hook runs now too

    async def test_trust_off_forgets_the_folder(self, server, tmp_path, project):
        trust.add(project)
        config = make_config(server, tmp_path / "t.db", cwd=project)
        app = make_app(config, project)
        async with app.run_test(size=(120, 36)) as pilot:
            await not_now(pilot)
            await send(pilot, "/trust off")
            await settle(pilot)
            assert "no longer trusted" in printed(app)
        assert trust.state(project) == "untrusted"
