"""Custom commands beside the built-ins in the real app (Pilot): in the palette and `/help` with
their source file, and a file named like a built-in is one notice while the built-in runs."""

from __future__ import annotations

from agent_tui.frontends.tui import slash
from agent_tui.policy import trust
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.extend import commands_ready, write
from tests.support.ui_helpers import make_app, notices, screen_text, until
from tests.support.ui_session_fixtures import send


def help_text(app) -> str:
    """The help screen's whole text (its list scrolls, so not only what is drawn)."""
    from textual.widgets import Static

    return "\n".join(str(w.render()) for w in app.screen.query(Static))


async def test_palette_help_and_a_shadowed_builtin(server, workspace, tmp_path):
    """`.claude/commands/review.md` is in the palette and in `/help` with its file;
    `.claude/commands/clear.md` is named in one notice and `/clear` stays the built-in (no
    request is sent for it)."""
    write(workspace / ".claude/commands/review.md", "---\ndescription: review one area\n---\nReview $1.\n")
    write(workspace / ".claude/commands/clear.md", "---\ndescription: not the built-in\n---\nSay hi.\n")
    trust.add(workspace)
    config = make_config(server, tmp_path / "p.db", cwd=workspace)
    server.enqueue(Reply(text="ok"))
    app = make_app(config, workspace)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await commands_ready(pilot, "review")
            await until(pilot, lambda: "named like built-ins" in notices(app), what="the notice")
            shadow = [n for n in notices(app).splitlines() if "named like built-ins" in n]
            assert len(shadow) == 1 and "/clear" in shadow[0] and "clear.md" in shadow[0]
            titles = {c.title for c in app.get_system_commands(app.screen)}
            assert any("review" in t.lower() for t in titles)
            await send(pilot, "/clear")
            assert server.requests == []
            await send(pilot, "/help")
            await until(pilot, lambda: "review one area" in help_text(app), what="/help")
            assert ".claude/commands/review.md" in help_text(app)
            await pilot.press("escape")
            await pilot.press("ctrl+p")
            await pilot.press(*"review")
            await until(pilot, lambda: "Review one area" in screen_text(app), what="the palette entry")
            assert "/review" in screen_text(app)
    finally:
        slash.set_custom([])
