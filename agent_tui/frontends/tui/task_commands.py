"""Slash-command handlers for background commands, rewind and fork (issue 30): kept apart from
frontends/tui/session_commands.py so each feature's handlers live beside each other."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core import ops
from agent_tui.core import protocol_events as pe
from agent_tui.frontends.tui.transcript import NoticeEntry, entries_from_history

if TYPE_CHECKING:
    from agent_tui.frontends.tui.command_host import TabCommandHost


async def tasks(view: TabCommandHost, argument: str) -> None:
    """/tasks: the tab's background commands; Enter shows one's output, k kills it."""
    from agent_tui.frontends.tui.screens.tasks import TasksScreen  # lazy: textual

    session = view.session
    if session is None or session.background is None:
        view.notify("No session in this tab yet.", severity="warning")
        return
    view.open_screen(TasksScreen(session.background, session.store))


async def fork(view: TabCommandHost, argument: str) -> None:
    """/fork [N] [NAME]: continue a copy of this session in a new tab, from before message N
    (the number the picker and `sessions show` give) or from now; alone, a picker."""
    session = view.session
    if session is None or session.store is None:
        view.notify("Nothing to fork: no session in this tab.", severity="warning")
        return
    number, _, rest = argument.strip().partition(" ")
    if number.isdigit():
        await open_fork(view, int(number), rest.strip() or None)
    elif argument.strip():
        await open_fork(view, None, argument.strip())
    else:
        view.in_background(_pick_fork(view), group="rewind")


async def _pick_fork(view: TabCommandHost) -> None:
    from agent_tui.frontends.tui.screens.rewind import ForkScreen  # lazy: textual

    assert view.session is not None
    from agent_tui.agent.rewind import rewind_points  # lazy: start-up (not in the first frame)

    chosen = await view.ask(ForkScreen(await rewind_points(view.session)))
    if chosen is not None:
        point = chosen[0]
        await open_fork(view, None if point is None else point.seq)


async def open_fork(view: TabCommandHost, at: int | None, title: str | None = None) -> None:
    """A fork of the tab's session (before message `at`, or from now) in a new tab."""
    session = view.session
    assert session is not None
    end = await view.run_operation(ops.Fork(at, title))
    if not isinstance(end, pe.SessionForked):  # refused: a store error, said in one line
        view.notify(f"Not forked: {getattr(end, 'message', 'no answer')}", severity="error")
        return
    await view.actions.add_tab(session_id=end.session_id)
    view.notify(f"Forked {session.session_id} into {end.session_id} ({end.title}).")


async def handoff(view: TabCommandHost, argument: str) -> None:
    """/handoff [goal]: a new session seeded from this one (agent/handoff.py), in a new tab."""

    session = view.session
    services = view.services
    if session is None or session.store is None or services is None:
        view.notify("Nothing to hand off: no session in this tab.", severity="warning")
        return
    from agent_tui.agent.handoff import hand_off  # lazy: start-up (not in the first frame)

    new_id = await hand_off(services.store, session, argument)
    await view.actions.add_tab(session_id=new_id)
    view.notify(f"Handed off {session.session_id} to {new_id}: summary, pins, task list and refs back.")


async def rewind(view: TabCommandHost, argument: str) -> None:
    """/rewind: pick an earlier message; back to before it (conversation, files or both)."""
    start_rewind(view)


def start_rewind(view: TabCommandHost) -> None:
    """Open the rewind picker (also Esc Esc on an empty prompt)."""
    if view.session is None:
        view.notify("Nothing to rewind: no session in this tab.", severity="warning")
        return
    if view.busy:
        view.notify(
            "A turn is running: wait for it (or Esc to stop it) before rewinding.", severity="warning"
        )
        return
    view.in_background(_rewind(view), "rewind")


async def _rewind(view: TabCommandHost) -> None:
    from agent_tui.frontends.tui.screens.rewind import RewindScreen  # lazy: textual

    session = view.session
    assert session is not None
    from agent_tui.agent.rewind import rewind_points  # lazy: start-up (not in the first frame)

    points = await rewind_points(session)
    if not points:
        view.notify("Nothing to rewind to: no message of yours in this conversation yet.")
        return
    chosen = await view.ask(RewindScreen(points))
    if chosen is None:
        return
    point, scope = chosen
    if scope == "fork":
        await open_fork(view, point.seq)
        return
    if view.busy:  # a prompt was sent meanwhile
        view.notify("A turn started meanwhile: rewind again once it ends.", severity="warning")
        return
    if point.seq is None:  # the operation names a point by its number in the transcript
        view.notify("That message was never stored: there is nothing to rewind to.", severity="warning")
        return
    end = await view.run_operation(
        ops.Rewind(point.seq, "both" if scope == "both" else "files" if scope == "files" else "conversation")
    )
    if not isinstance(end, pe.CommandReplied):  # refused: nothing was changed
        view.notify(f"Rewind failed: {getattr(end, 'message', 'no answer')}", severity="warning")
        return
    said = end.text
    if scope != "files":
        await view.show_history(entries_from_history(session.history))
        view.put_in_input(point.text)  # back in the input, to edit and send again
    await view.note(NoticeEntry(said))
    view.remeasure()  # the meter follows the shorter conversation at once
