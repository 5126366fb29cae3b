"""The handlers of the slash commands (registered in ui/slash.py): each takes the tab's view and
the text after the command's name.

Session handlers are thin calls into the core (undo, allow_rules, memory, project_init) or the
view; app handlers open the App's screens. Failures become one-line notices in `slash.run`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, cast

from agent_tui.ui.command_output import show

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.widgets.session_view import SessionView

log = logging.getLogger(__name__)


def _session(view: SessionView) -> Any:
    if view.session is None:
        view.app.notify("No session in this tab (no model configured).", severity="warning")
    return view.session


async def undo(view: SessionView, argument: str) -> None:
    from agent_tui.agent.undo import undo

    session = _session(view)
    if session is None or session.store is None:
        return
    words = argument.split()
    force = "--force" in words
    turns = next((int(w) for w in words if w.isdigit()), 1)
    report = await undo(session.store, session.session_id, turns, force=force)
    if report.restored:
        await session.add_note(
            "[The user undid file changes of the last "
            f"{report.turns} turn(s): "
            + report.describe(session.workspace)
            + " Re-read these files before relying on earlier views.]"
        )
    show(view, "/undo", report.describe(session.workspace), "warning" if report.refused else "info")


async def rename(view: SessionView, argument: str) -> None:
    session = _session(view)
    if session is None or session.store is None:
        return
    title = " ".join(argument.split())
    if not title:
        view.app.notify("Usage: /rename TITLE", severity="warning")
        return
    await session.store.sessions.rename(session.session_id, title)
    session.title = title
    view._set_title(title)
    show(view, "/rename", f"Renamed: {title}")


async def remember(view: SessionView, argument: str) -> None:
    from agent_tui.context.memory import remember

    if not argument.strip():
        view.app.notify("Usage: /remember TEXT (a note every session will see)", severity="warning")
        return
    path = remember(argument.strip())
    show(view, "/remember", f"Remembered (in {path}); used from the next step.")


async def skill(view: SessionView, argument: str) -> None:
    session = _session(view)
    if session is None:
        return
    name = argument.strip()
    if not name:
        found = ", ".join(session.prompts.user_prompts.available()) or "none"
        show(view, "/skill", f"Skills: {found}\n/skill NAME activates one for this session.")
        return
    from agent_tui.extensions.skill_resume import load_by_hand

    await load_by_hand(session, name)  # recorded, so a resumed session has it too
    show(view, f"/skill {name}", f"Skill {name} active in this session.")


async def tools(view: SessionView, argument: str) -> None:
    session = _session(view)
    if session is None:
        return
    rows = session.prompts.tool_table()
    lines = [f"{r.name:<28} {r.source:<8} {r.tokens:>6} tok  {r.state}" for r in rows]
    total = sum(r.tokens for r in rows if r.state != "deferred")
    show(view, "/tools", "\n".join([f"{len(rows)} tools, {total} tokens offered:", *lines]))


async def hooks(view: SessionView, argument: str) -> None:
    from agent_tui.ui.custom_commands import extensions_text
    from agent_tui.ui.transcript import NoticeEntry

    services = view.services
    if services is None:
        view.app.notify("Still opening: try /hooks again in a moment.", severity="warning")
        return
    await view.chat.add(NoticeEntry(extensions_text(services)))


async def init(view: SessionView, argument: str) -> None:
    from agent_tui.project_init import AlreadyExists, write_agents_md

    session = _session(view)
    if session is None:
        return
    try:
        path = write_agents_md(session.workspace)
    except AlreadyExists as exc:
        view.app.notify(str(exc), severity="warning")
        return
    session.prompts.reload_rules()
    show(view, "/init", f"Wrote {path.name}: fill in the blanks; the agent reads it every turn.")


# -- the tab's session ---------------------------------------------------------------------------


async def compact(view: SessionView, argument: str) -> None:
    await view.start_compact(argument or None)


async def new(view: SessionView, argument: str) -> None:
    await view.open_new()


async def model(view: SessionView, argument: str) -> None:
    await view.switch_model(argument)


async def effort(view: SessionView, argument: str) -> None:
    """How hard a reasoning model thinks, for this session: from its next request on."""
    import dataclasses

    from agent_tui.reasoning import EFFORTS, ReasoningSettings

    session = _session(view)
    if session is None:
        return
    provider = session.provider
    word = argument.strip().lower()
    if not word:
        show(
            view,
            "/effort",
            f"Reasoning: {provider.reasoning.describe()}.\n"
            f"/effort {'|'.join(EFFORTS)}|off changes it for this session.",
        )
        return
    if word not in (*EFFORTS, "off"):
        view.app.notify(f"Unknown effort {word!r}: use {', '.join(EFFORTS)} or off.", severity="warning")
        return
    # off clears the thinking budget too; a level keeps the configured budget (Anthropic's).
    settings = ReasoningSettings() if word == "off" else dataclasses.replace(provider.reasoning, effort=word)
    provider.reasoning = settings
    if view.services is not None:  # a later /model builds its provider from this config
        config = view.services.config
        kept = dataclasses.replace(
            config.model,
            reasoning_effort=settings.effort,
            thinking_budget_tokens=settings.thinking_budget_tokens,
        )
        view.services = dataclasses.replace(view.services, config=dataclasses.replace(config, model=kept))
    show(view, f"/effort {word}", f"Reasoning: {settings.describe()} (from the next request).")


async def permissions(view: SessionView, argument: str) -> None:
    """Session grants and saved rules in one list; `remove RULE` drops either, at once."""
    from agent_tui.ui import permissions_cmd

    await permissions_cmd.run(view, argument)


# -- the App's screens ----------------------------------------------------------------------------


def _app(view: SessionView) -> AgentApp:
    return cast("AgentApp", view.app)


async def context(view: SessionView, argument: str) -> None:
    _app(view).action_context()


async def blobs(view: SessionView, argument: str) -> None:
    _app(view).action_blobs(argument)


async def resume(view: SessionView, argument: str) -> None:
    _app(view).action_resume()


async def sandbox(view: SessionView, argument: str) -> None:
    _app(view).action_sandbox(argument)


async def theme(view: SessionView, argument: str) -> None:
    _app(view).action_theme(argument)


async def show_help(view: SessionView, argument: str) -> None:
    _app(view).action_help()


async def quit_app(view: SessionView, argument: str) -> None:
    _app(view).exit()
