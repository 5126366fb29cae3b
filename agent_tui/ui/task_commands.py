"""Slash-command handlers for background commands, rewind and fork (issue 30): kept apart from
ui/session_commands.py so each feature's handlers live beside each other."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.ui.widgets.session_view import SessionView


async def tasks(view: SessionView, argument: str) -> None:
    """/tasks: the tab's background commands; Enter shows one's output, k kills it."""
    from agent_tui.ui.screens.tasks import TasksScreen

    session = view.session
    if session is None or session.background is None:
        view.app.notify("No session in this tab yet.", severity="warning")
        return
    view.app.push_screen(TasksScreen(session.background, session.store))
