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


async def fork(view: SessionView, argument: str) -> None:
    """/fork [N] [NAME]: continue a copy of this session in a new tab, from before message N
    (the number the picker and `sessions show` give) or from now; alone, a picker."""
    session = view.session
    if session is None or session.store is None:
        view.app.notify("Nothing to fork: no session in this tab.", severity="warning")
        return
    number, _, rest = argument.strip().partition(" ")
    if number.isdigit():
        await open_fork(view, int(number), rest.strip() or None)
    elif argument.strip():
        await open_fork(view, None, argument.strip())
    else:
        view.run_worker(_pick_fork(view), group="rewind", exclusive=True, exit_on_error=False)


async def _pick_fork(view: SessionView) -> None:
    from agent_tui.agent.rewind import rewind_points
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.screens.rewind import ForkScreen

    app = view.app
    assert view.session is not None and isinstance(app, AgentApp)
    chosen = await app.push_screen_wait_safe(ForkScreen(await rewind_points(view.session)))
    if chosen is not None:
        point = chosen[0]
        await open_fork(view, None if point is None else point.seq)


async def open_fork(view: SessionView, at: int | None, title: str | None = None) -> None:
    """A fork of the tab's session (before message `at`, or from now) in a new tab."""
    from agent_tui.store import StoreError
    from agent_tui.store.forks import fork_session
    from agent_tui.ui.app import AgentApp

    session = view.session
    assert session is not None and session.store is not None
    try:
        info = await fork_session(session.store.sessions, session.session_id, at, title)
    except StoreError as exc:
        view.app.notify(f"Not forked: {exc}", severity="error")
        return
    app = view.app
    assert isinstance(app, AgentApp)
    await app.add_tab(session_id=info.id)
    app.notify(f"Forked {session.session_id} into {info.id} ({info.title}).")


async def rewind(view: SessionView, argument: str) -> None:
    """/rewind: pick an earlier message; back to before it (conversation, files or both)."""
    start_rewind(view)


def start_rewind(view: SessionView) -> None:
    """Open the rewind picker (also Esc Esc on an empty prompt)."""
    if view.session is None:
        view.app.notify("Nothing to rewind: no session in this tab.", severity="warning")
        return
    if view.busy:
        view.app.notify(
            "A turn is running: wait for it (or Esc to stop it) before rewinding.", severity="warning"
        )
        return
    view.run_worker(_rewind(view), group="rewind", exclusive=True, exit_on_error=False)


async def _rewind(view: SessionView) -> None:
    from agent_tui.agent.rewind import rewind_points
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.screens.rewind import RewindScreen
    from agent_tui.ui.transcript import NoticeEntry, entries_from_history

    session = view.session
    app = view.app
    assert session is not None and isinstance(app, AgentApp)
    points = await rewind_points(session)
    if not points:
        app.notify("Nothing to rewind to: no message of yours in this conversation yet.")
        return
    chosen = await app.push_screen_wait_safe(RewindScreen(points))
    if chosen is None:
        return
    point, scope = chosen
    if scope == "fork":
        await open_fork(view, point.seq)
        return
    if view.busy:  # a prompt was sent meanwhile
        app.notify("A turn started meanwhile: rewind again once it ends.", severity="warning")
        return
    report = await session.rewind(
        point, "both" if scope == "both" else "files" if scope == "files" else "conversation"
    )
    if scope != "files":
        await view.chat.load(entries_from_history(session.history))
        view.prompt.set_text(point.text)  # back in the input, to edit and send again
        view.prompt.focus()
    await view.chat.add(NoticeEntry(report.describe()))
    view.budget = session.measure()  # the meter follows the shorter conversation at once
    view.meter.show(view.budget)
