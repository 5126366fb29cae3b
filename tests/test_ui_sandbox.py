"""The sandbox in the TUI: the mode on the top bar, /sandbox showing and switching it, the approval
dialog saying where a command would run, /help saying what the sandbox allows, and the notice
when bwrap is missing."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from agent_tui.frontends.tui.screens.approval import ApprovalScreen
from agent_tui.frontends.tui.screens.dialogs import HelpScreen
from agent_tui.frontends.tui.textual_compat import notifications
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, printed, send, settle, until, until_approval, until_armed


def topbar(app) -> str:
    return str(app.query_one("#topbar", Static).render())


def notices(app) -> list[str]:
    return [n.message for n in notifications(app)]


@pytest.fixture
def config(server, tmp_path):
    return make_config(server, tmp_path / "ui.db")


async def test_topbar_and_sandbox_command(bwrap, server, config, workspace):
    app = make_app(config, workspace)
    async with app.run_test(size=(140, 36)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: "sandbox:" in topbar(app), what="the sandbox on the top bar")
        assert "sandbox: workspace-write · no network" in topbar(app)
        await send(pilot, "/sandbox")
        await until(pilot, lambda: "Sandbox workspace-write" in printed(app))
        await send(pilot, "/sandbox read-only")
        await until(pilot, lambda: "sandbox: read-only" in topbar(app), what="the switch")
        services = await app.services()
        assert services is not None and services.sandbox is not None
        assert services.sandbox.mode == "read-only"
        await send(pilot, "/sandbox auto on")
        await until(pilot, lambda: "auto-approve" in topbar(app), what="auto-approve")
        assert services.sandbox.auto_approve
        await send(pilot, "/sandbox strict")
        await until(pilot, lambda: any("unknown sandbox mode 'strict'" in n for n in notices(app)))
        await send(pilot, "/help")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        await pilot.pause()
        text = str(app.screen.query_one("#help-sandbox", Static).render())
        assert "Sandbox read-only" in text and "Network: off" in text
        await pilot.press("escape")
        await send(pilot, "/sandbox off")
        await until(pilot, lambda: "sandbox: off ─" in topbar(app), what="off, still in view")


async def test_approval_dialog_says_the_command_runs_sandboxed(bwrap, server, config, workspace):
    server.enqueue(Reply(tool_calls=[("bash", {"command": "make build"})]), Reply(text="built"))
    app = make_app(config, workspace)
    async with app.run_test(size=(140, 36)) as pilot:
        await settle(pilot)
        await send(pilot, "build it")
        await until_approval(pilot)
        await until(pilot, lambda: bool(app.screen.query("#allow-once")), what="the dialog's buttons")
        label = str(app.screen.query_one("#approval-sandbox").render())
        assert label == "runs sandboxed (workspace-write · no network)"
        assert isinstance(app.screen, ApprovalScreen)
        await pilot.press("4", "enter")
        await settle(pilot)


async def test_fallback_notice_in_the_tui(server, config, workspace, monkeypatch, tmp_path):
    """Without bwrap on PATH: one warning at start, the top bar says the sandbox is off."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    app = make_app(config, workspace)
    async with app.run_test(size=(140, 36)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: "sandbox:" in topbar(app), what="the top bar")
        assert "sandbox: off (unavailable)" in topbar(app)
        found = [n for n in notices(app) if "Sandbox unavailable" in n]
        assert len(found) == 1 and "install bubblewrap" in found[0]


async def test_unsandboxed_rerun_asks_once_in_the_tui(bwrap, tmp_path, workspace):
    """The model's unsandboxed rerun gets a dialog that says so and offers only once / deny."""
    from testkit.fake_openai import FakeOpenAI
    from tests.support.sandbox import rerun_model

    target = tmp_path / "outside.txt"
    with FakeOpenAI(window=32_000, responder=rerun_model(target)) as srv:
        config = make_config(srv, tmp_path / "ui.db")
        app = make_app(config, workspace)
        async with app.run_test(size=(140, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "write the file")
            await until_approval(pilot)
            await until(pilot, lambda: bool(app.screen.query("#allow-once")), what="the dialog's buttons")
            first = app.screen
            assert str(first.query_one("#approval-sandbox").render()).startswith("runs sandboxed")
            await pilot.press("1", "enter")  # the sandboxed try: blocked, so the model asks for the rerun
            await until(
                pilot,
                lambda: (
                    isinstance(app.screen, ApprovalScreen)
                    and app.screen is not first
                    and bool(app.screen.query("#allow-once"))
                ),
                what="the rerun's dialog",
            )
            label = str(app.screen.query_one("#approval-sandbox").render())
            assert label.startswith("runs NOT sandboxed")
            assert not app.screen.query("#allow-session") and not app.screen.query("#allow-always")
            await until_armed(pilot)
            await pilot.press("3", "enter")  # no "for the session" for a rerun: 3 is only typed text
            assert isinstance(app.screen, ApprovalScreen)
            await until_armed(pilot)
            await pilot.press("1", "enter")
            await settle(pilot)
    assert target.read_text() == "done\n"
