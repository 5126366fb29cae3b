"""Helpers the UI tests share: the screen as plain text, a minimal host app."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.app import App

from agent_tui.frontends.tui.textual_compat import notifications, screen_text
from agent_tui.frontends.tui.themes import VARIABLE_DEFAULTS
from agent_tui.frontends.tui.widgets.prompt import PromptInput
from agent_tui.frontends.tui.widgets.session_view import SessionView

__all__ = ["Host", "make_app", "notices", "printed", "screen_text", "settle", "until", "until_approval"]


class Host(App):
    """An empty app with agent-tui's stylesheet, to push one screen or widget onto."""

    CSS_PATH = Path(__file__).parents[2] / "agent_tui" / "frontends" / "tui" / "app.tcss"

    def get_theme_variable_defaults(self):
        return {**super().get_theme_variable_defaults(), **VARIABLE_DEFAULTS}


async def until(pilot, predicate, timeout: float = 10.0, what: str = "condition") -> None:
    """Let the app run until `predicate()` holds (for states no awaitable signals)."""
    import time

    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.01)


async def settle(pilot) -> None:
    """Wait until every worker has finished and every tab is idle (queues drained)."""

    app = pilot.app
    for _ in range(200):
        # Failed and cancelled workers are the app's to report; here we only wait for them.
        await asyncio.gather(*(w.wait() for w in list(app.workers)), return_exceptions=True)
        await pilot.pause()
        if not any(not w.is_finished for w in app.workers) and not any(
            view.busy for view in app.query(SessionView)
        ):
            return
    raise AssertionError("the app did not settle")


def make_app(config, workspace, **kwargs):
    """The app as `agent-tui` builds it, over the given config and workspace."""
    from agent_tui.compose.factory import build_services
    from agent_tui.frontends.tui.app import AgentApp

    async def services():
        return await build_services(config, workspace=workspace)

    return AgentApp(services, workspace=workspace, **kwargs)


async def until_approval(pilot) -> None:
    """Wait until the approval modal is the active screen."""
    from agent_tui.frontends.tui.screens.approval import ApprovalScreen

    await until(pilot, lambda: isinstance(pilot.app.screen, ApprovalScreen), what="the modal")
    await until_armed(pilot)


async def until_armed(pilot) -> None:
    """Wait until the open decision dialog takes a choice (frontends/tui/screens/deliberate.py: it ignores
    keys for a moment after it appears, as a user would wait to read it)."""
    await until(pilot, lambda: getattr(pilot.app.screen, "armed", True), what="the dialog armed")


def notices(app) -> str:
    """Every toast the app has shown, one per line (through textual_compat, not Textual's private
    list)."""
    return "\n".join(str(n.message) for n in notifications(app))


def printed(app) -> str:
    """What slash commands printed in the chats (frontends/tui/command_output.py), one block after another."""
    from agent_tui.frontends.tui.transcript import OutputEntry
    from agent_tui.frontends.tui.widgets.chat import ChatPane

    return "\n".join(
        f"{e.command}\n{e.text}"
        for chat in app.query(ChatPane)
        for e in chat.entries
        if isinstance(e, OutputEntry)
    )


async def send(pilot, text: str) -> None:
    prompt = (
        pilot.app.query_one(PromptInput) if len(pilot.app.query(PromptInput)) == 1 else pilot.app.view.prompt
    )
    prompt.focus()
    prompt.set_text(text)
    await pilot.press("enter")
