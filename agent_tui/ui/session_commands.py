"""The handlers of the slash commands (registered in ui/slash.py): each takes the tab's view and
the text after the command's name.

Session handlers are thin calls into the core (undo, allow_rules, memory, project_init) or the
view; app handlers open the App's screens. Failures become one-line notices in `slash.run`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from agent_tui.ui.command_output import show
from agent_tui.units import grouped

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.ui.command_host import CommandHost

log = logging.getLogger(__name__)


def _session(view: CommandHost) -> AgentSession | None:
    if view.session is None:
        view.notify("No session in this tab (no model configured).", severity="warning")
    return view.session


async def undo(view: CommandHost, argument: str) -> None:
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


async def rename(view: CommandHost, argument: str) -> None:
    session = _session(view)
    if session is None or session.store is None:
        return
    title = " ".join(argument.split())
    if not title:
        view.notify("Usage: /rename TITLE", severity="warning")
        return
    await session.rename(title)
    view.rename(title)
    show(view, "/rename", f"Renamed: {title}")


async def remember(view: CommandHost, argument: str) -> None:
    from agent_tui.context.memory import remember

    if not argument.strip():
        view.notify("Usage: /remember TEXT (a note every session will see)", severity="warning")
        return
    path = remember(argument.strip())
    show(view, "/remember", f"Remembered (in {path}); used from the next step.")


async def skill(view: CommandHost, argument: str) -> None:
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


async def tools(view: CommandHost, argument: str) -> None:
    session = _session(view)
    if session is None:
        return
    rows = session.prompts.tool_table()
    lines = [
        f"{r.name:<28} {r.source:<8} {grouped(r.tokens):>6} tok  {r.state}" + (f" ({r.why})" if r.why else "")
        for r in rows
    ]
    total = sum(r.tokens for r in rows if r.state != "deferred")
    share = session.prompts.tool_share_line()
    head = [f"{len(rows)} tools, {grouped(total)} tokens offered:", *([share] if share else [])]
    show(view, "/tools", "\n".join([*head, *lines]))


async def init(view: CommandHost, argument: str) -> None:
    from agent_tui.project_init import AlreadyExists, write_agents_md

    session = _session(view)
    if session is None:
        return
    try:
        path = write_agents_md(session.workspace)
    except AlreadyExists as exc:
        view.notify(str(exc), severity="warning")
        return
    session.prompts.reload_rules()
    show(view, "/init", f"Wrote {path.name}: fill in the blanks; the agent reads it every turn.")


# -- the tab's session ---------------------------------------------------------------------------


async def compact(view: CommandHost, argument: str) -> None:
    await view.start_compact(argument or None)


async def new(view: CommandHost, argument: str) -> None:
    await view.open_new()


async def model(view: CommandHost, argument: str) -> None:
    await view.switch_model(argument)


async def effort(view: CommandHost, argument: str) -> None:
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
        view.notify(f"Unknown effort {word!r}: use {', '.join(EFFORTS)} or off.", severity="warning")
        return
    # off clears the thinking budget too; a level keeps the configured budget (Anthropic's).
    settings = ReasoningSettings() if word == "off" else dataclasses.replace(provider.reasoning, effort=word)
    session.set_reasoning(settings)
    if view.services is not None:  # a later /model builds its provider from this config
        config = view.services.config
        kept = dataclasses.replace(
            config.model,
            reasoning_effort=settings.effort,
            thinking_budget_tokens=settings.thinking_budget_tokens,
        )
        view.use_config(dataclasses.replace(config, model=kept))
    show(view, f"/effort {word}", f"Reasoning: {settings.describe()} (from the next request).")


async def permissions(view: CommandHost, argument: str) -> None:
    """Session grants and saved rules in one list; `remove RULE` drops either, at once."""
    from agent_tui.ui import permissions_cmd

    await permissions_cmd.run(view, argument)


# -- the App's screens ----------------------------------------------------------------------------


async def context(view: CommandHost, argument: str) -> None:
    view.actions.action_context()


async def blobs(view: CommandHost, argument: str) -> None:
    view.actions.action_blobs(argument)


async def resume(view: CommandHost, argument: str) -> None:
    view.actions.action_resume()


async def sandbox(view: CommandHost, argument: str) -> None:
    view.actions.action_sandbox(argument)


async def theme(view: CommandHost, argument: str) -> None:
    view.actions.action_theme(argument)


async def show_help(view: CommandHost, argument: str) -> None:
    view.actions.action_help()


async def quit_app(view: CommandHost, argument: str) -> None:
    view.actions.exit()
