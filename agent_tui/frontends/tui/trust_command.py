"""`/trust` inside the TUI: trust this folder without quitting, as the start-up question would.

Claude Code users answer the folder question once and expect a command for it later (after
*Not now*, or after editing `.claude/`). Trusting records the folder (trust.py, as
`agent-tui trust add` does), puts the project's commands in the menu and reopens this tab's
session as trusted, so its `.claude/` and `.agent-tui/` hooks, commands and skills apply from the
next message; the conversation stays. The `.agent-tui.toml` keys the project sets (model, rules,
tool settings…) are read again with trust and laid over this tab's configuration, so the command
line's options still win; they apply from the next message too. Two kinds wait for the next start
and the block says so: MCP servers (the running ones belong to the whole app, which starts and
stops them; a second set started from one tab would have no owner to stop it) and the sandbox
(built once at start-up, shared by every tab's commands).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import ConfigError, load_config
from agent_tui.extensions.skills import discover_skills
from agent_tui.hooks.sources import load_hooks
from agent_tui.policy import trust
from agent_tui.runtime import paths

if TYPE_CHECKING:
    from pathlib import Path

    from agent_tui.config import Config
    from agent_tui.frontends.tui.command_host import TabCommandHost


async def trust_folder(view: TabCommandHost, argument: str) -> None:

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
    config, waiting = with_project_keys(services.config, folder)
    view.use_config(config)
    trusted = view.services
    if trusted is not None:  # what build_services reads with the folder's trust (factory.py)
        trusted.hooks = load_hooks(trusted.workspace, trusted=True)
        trusted.skills = discover_skills(trusted.workspace, True)
    notices = view.actions.install_commands(True)
    session = view.session
    lines = [f"Trusted {paths.shown(folder)}: its hooks, commands and skills apply from now on.", *notices]
    if config.provenance.project_keys:
        lines.append("Its .agent-tui.toml settings apply now, in this tab.")
    lines += waiting
    view.show_output("/trust", "\n".join(lines))
    if session is not None and not view.busy:
        # The same session, reopened on the trusted config (on the project's model if it names one).
        project_model = "model.name" in config.provenance.project_keys
        await view.switch_model((project_model and config.model.name) or session.model)


def with_project_keys(current: Config, folder: Path) -> tuple[Config, list[str]]:
    """`current` trusted, with every key the folder's project files set read again with trust
    (the command line's options win there, so they stay), and what of them waits for a restart."""

    trusted = dataclasses.replace(current.provenance, folder_trusted=True)
    try:
        loaded = load_config(rule_words=SHIPPED_WORDS, cwd=folder, trusted=True).config
    except ConfigError as exc:
        return dataclasses.replace(current, provenance=trusted), [f"Its .agent-tui.toml was not read: {exc}"]
    sections: dict[str, dict[str, object]] = {}
    restart: set[str] = set()
    for key in sorted(loaded.provenance.project_keys):
        section, name = key.split(".", 1)[0], key.split(".", 1)[-1].split(".", 1)[0]
        if section in RESTART_SECTIONS:
            restart.add(section)
            continue
        sections.setdefault(section, {})[name] = getattr(getattr(loaded, section), name)
    changed = {s: dataclasses.replace(getattr(current, s), **keys) for s, keys in sections.items()}
    provenance = dataclasses.replace(
        loaded.provenance,
        project_keys=frozenset(k for k in loaded.provenance.project_keys if k.split(".")[0] not in restart),
    )
    waiting = []
    if "mcp" in restart:
        names = ", ".join(loaded.mcp.servers) or "none"
        waiting.append(f"Its MCP servers ({names}) start at the next start (agent-tui -c continues here).")
    if "sandbox" in restart:
        waiting.append("Its [sandbox] settings apply from the next start (agent-tui -c continues here).")
    return dataclasses.replace(current, **changed, provenance=provenance), waiting


RESTART_SECTIONS = frozenset({"mcp", "sandbox"})
"""Sections built once for the whole app at start-up (see the module doc)."""
