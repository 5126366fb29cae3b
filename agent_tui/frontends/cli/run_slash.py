"""`agent-tui run "/cost"`: a registry command (core/commands.py) that headless mode offers runs
its effect on the session and prints the reply, with no model call. Which commands `run` offers
is the registry's `Front.RUN` flag; any other `/word` goes to the model as a prompt (custom
Markdown commands expand first), as before.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core import commands as registry
from agent_tui.core.replies import Reply, Unavailable
from agent_tui.extensions.commands import discover, withheld, withheld_invoked

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.compose.factory import AppServices
    from agent_tui.config import Config
    from agent_tui.extensions.commands import CustomCommand


@dataclass
class HeadlessHost:
    """The one session of a headless run, as a command's effect sees it."""

    session: AgentSession | None
    services: AppServices | None

    @property
    def workspace(self) -> Path:
        if self.session is not None:
            return self.session.workspace
        return self.services.workspace if self.services is not None else Path.cwd()

    def use_config(self, config: Config) -> None:
        if self.services is not None:
            self.services = replace(self.services, config=config)

    @property
    def trusted(self) -> bool:
        return self.session is not None and self.session.config.provenance.folder_trusted

    def custom_commands(self) -> list[CustomCommand]:

        if self.session is None:
            return []
        return list(discover(self.workspace, self.trusted).commands.values())

    def withheld_commands(self) -> dict[str, CustomCommand]:

        return {} if self.session is None else withheld(self.workspace, self.trusted)


async def command_reply(services: AppServices, session: AgentSession, prompt: str) -> Reply | None:
    """The reply of the command `prompt` invokes, or None when it is a prompt for the model.
    A command of the untrusted folder is named as the TUI names it (core/commands.py)."""
    host = HeadlessHost(session, services)
    slashed = prompt.lstrip().startswith("/") and not prompt.lstrip().startswith("//")
    custom = [c.name for c in host.custom_commands()] if slashed else []
    held = host.withheld_commands() if slashed else {}
    found = registry.parse(prompt, registry.Front.RUN, custom, held.keys())
    if found is None:
        if held and (named := withheld_invoked(prompt, host.workspace, host.trusted)) is not None:
            text = registry.withheld_text(*named, trust_with="`agent-tui trust add` (or --trust for one run)")
            return Reply(f"/{named[0]}", text=text, level="warning")
        return None
    command, argument = found
    assert command.effect is not None, f"/{command.name} is offered to run without an effect"
    try:
        return await command.effect(host, argument)
    except Unavailable as exc:
        return Reply(f"/{command.name}", text=str(exc), level="warning")
