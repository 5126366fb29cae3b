"""Slash commands that act on the tab's session and answer with a notice: /undo, /rename,
/remember, /skill, /tools, /permissions, /init.

Each is a thin call into the core (undo, allow_rules, memory, project_init); failures are
one-line notices, never tracebacks.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_tui.ui.widgets.session_view import SessionView

log = logging.getLogger(__name__)

NAMES = ("undo", "rename", "remember", "skill", "tools", "permissions", "init")


async def run(view: SessionView, name: str, argument: str) -> None:
    handler = globals()[f"_{name}"]
    try:
        await handler(view, argument)
    except Exception as exc:
        log.exception("/%s failed", name)
        view.app.notify(f"/{name} failed: {exc}", severity="error")


def _session(view: SessionView) -> Any:
    if view.session is None:
        view.app.notify("No session in this tab (no model configured).", severity="warning")
    return view.session


async def _undo(view: SessionView, argument: str) -> None:
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
    view.app.notify(
        report.describe(session.workspace), severity="warning" if report.refused else "information", timeout=8
    )


async def _rename(view: SessionView, argument: str) -> None:
    session = _session(view)
    if session is None or session.store is None:
        return
    title = " ".join(argument.split())
    if not title:
        view.app.notify("Usage: /rename TITLE", severity="warning")
        return
    await session.store.sessions.rename(session.session_id, title)
    session.title = title
    view.title = title[:24]
    view.app.notify(f"Renamed: {title}")


async def _remember(view: SessionView, argument: str) -> None:
    from agent_tui.context.memory import remember

    if not argument.strip():
        view.app.notify("Usage: /remember TEXT (a note every session will see)", severity="warning")
        return
    path = remember(argument.strip())
    view.app.notify(f"Remembered (in {path}); used from the next step.")


async def _skill(view: SessionView, argument: str) -> None:
    from agent_tui.context.memory import discover_skills

    session = _session(view)
    if session is None:
        return
    name = argument.strip()
    if not name:
        found = ", ".join(discover_skills()) or "none"
        view.app.notify(f"Skills: {found}. /skill NAME activates one for this session.")
        return
    session.prompts.activate_skill(name)
    view.app.notify(f"Skill {name} active in this session.")


async def _tools(view: SessionView, argument: str) -> None:
    session = _session(view)
    if session is None:
        return
    rows = session.prompts.tool_table()
    lines = [f"{r.name:<28} {r.source:<8} {r.tokens:>6} tok  {r.state}" for r in rows]
    total = sum(r.tokens for r in rows if r.state != "deferred")
    view.app.notify("\n".join([f"{len(rows)} tools, {total} tokens offered:", *lines]), timeout=15)


async def _permissions(view: SessionView, argument: str) -> None:
    from agent_tui.allow_rules import project_rules, remove_rule

    session = _session(view)
    workspace = session.workspace if session is not None else None
    words = argument.split(maxsplit=1)
    if words and words[0] == "remove" and len(words) == 2:
        if remove_rule(words[1].strip(), workspace):
            view.app.notify(
                f"Removed rule {words[1].strip()} from .agent-tui.toml (active from the next session)."
            )
        else:
            view.app.notify(f"No rule {words[1].strip()!r} in .agent-tui.toml.", severity="warning")
        return
    rules = project_rules(workspace)
    listing = "\n".join(f"  {r}" for r in rules) or "  (none)"
    view.app.notify(
        f"Allow rules in .agent-tui.toml:\n{listing}\n/permissions remove RULE drops one.", timeout=12
    )


async def _init(view: SessionView, argument: str) -> None:
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
    view.app.notify(f"Wrote {path.name}: fill in the blanks; the agent reads it every turn.")
