"""`/trust` inside the TUI: trust this folder without quitting, as the start-up question would.

Claude Code users answer the folder question once and expect a command for it later (after
*Not now*, or after editing `.claude/`). Trusting records the folder (trust.py, as
`agent-tui trust add` does), puts the project's commands in the menu and reopens this tab's
session as trusted, so its `.claude/` and `.agent-tui/` hooks, commands and skills apply from the
next message; the conversation stays. The `.agent-tui.toml` keys (model, rules, MCP servers) are
read at start-up with the command line's options, so they apply from the next start.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from agent_tui.runtime import paths

if TYPE_CHECKING:
    from agent_tui.frontends.tui.command_host import TabCommandHost


async def trust_folder(view: TabCommandHost, argument: str) -> None:
    from agent_tui.policy import trust

    folder = view.workspace
    services = view.services
    word = argument.strip().lower()
    if word in ("off", "remove"):
        removed = trust.remove(folder)
        said = "no longer trusted" if removed else "was not trusted"
        view.show_output(
            "/trust off",
            f"{paths.shown(folder)} {said}; its hooks, commands and settings stay off from the next start.",
        )
        return
    if word:
        view.show_output("/trust", "Usage: /trust (trust this folder) or /trust off.", "warning")
        return
    if services is None:
        view.notify("Still opening: try /trust again in a moment.", severity="warning")
        return
    if services.config.provenance.folder_trusted and trust.state(folder) == "trusted":
        view.show_output("/trust", f"{paths.shown(folder)} is trusted already.")
        return
    trust.add(folder)
    config = services.config
    view.use_config(
        dataclasses.replace(config, provenance=dataclasses.replace(config.provenance, folder_trusted=True))
    )
    trusted = view.services
    if trusted is not None:  # what build_services reads with the folder's trust (factory.py)
        from agent_tui.extensions.skills import discover_skills
        from agent_tui.hooks.sources import load_hooks

        trusted.hooks = load_hooks(trusted.workspace, trusted=True)
        trusted.skills = discover_skills(trusted.workspace, True)
    notices = view.actions.install_commands(True)
    session = view.session
    lines = [f"Trusted {paths.shown(folder)}: its hooks, commands and skills apply from now on.", *notices]
    if paths.project_config_file(folder).is_file() or paths.local_config_file(folder).is_file():
        lines.append("Its .agent-tui.toml settings apply from the next start (agent-tui -c continues here).")
    view.show_output("/trust", "\n".join(lines))
    if session is not None and not view.busy:
        await view.switch_model(session.model)  # the same session, reopened on the trusted config
