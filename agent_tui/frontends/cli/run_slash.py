"""`agent-tui run "/cost"`: a registry command (core/commands.py) that headless mode offers is
its operation (`as_operation`: the driver's `command`, or `undo`, `rename`, `remember`),
submitted to the run's `SessionDriver`, which runs the effect and answers with a
`command_reply` event; no model call. Which commands `run` offers is the registry's `Front.RUN`
flag; any other `/word` goes to the model as a prompt (custom Markdown commands expand first),
as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core import commands as registry
from agent_tui.core import protocol_events as pe
from agent_tui.core.replies import Reply
from agent_tui.extensions.commands import discover, withheld, withheld_invoked

if TYPE_CHECKING:
    from agent_tui.core.driver import SessionDriver


class CommandFailed(Exception):
    """The driver refused the command's operation: its effect raised (the log has the traceback)."""


async def command_reply(driver: SessionDriver, prompt: str) -> Reply | None:
    """The reply of the command `prompt` invokes, run by `driver`, or None when it is a prompt
    for the model. A command of the untrusted folder is named as the TUI names it
    (core/commands.py). CommandFailed with the driver's one line when the effect failed."""
    session = driver.require()
    workspace, trusted = session.workspace, session.config.provenance.folder_trusted
    slashed = prompt.lstrip().startswith("/") and not prompt.lstrip().startswith("//")
    custom = [c.name for c in discover(workspace, trusted).commands.values()] if slashed else []
    held = withheld(workspace, trusted) if slashed else {}
    found = registry.parse(prompt, registry.Front.RUN, custom, held.keys())
    if found is None:
        if held and (named := withheld_invoked(prompt, workspace, trusted)) is not None:
            text = registry.withheld_text(*named, trust_with="`agent-tui trust add` (or --trust for one run)")
            return Reply(f"/{named[0]}", text=text, level="warning")
        return None
    command, argument = found
    operation = registry.as_operation(command, argument)
    assert operation is not None, f"/{command.name} is offered to run without an effect"
    async for event in driver.drive(operation):
        if isinstance(event, pe.CommandReplied):
            return event.reply()
        if isinstance(event, pe.OperationRefused):
            raise CommandFailed(f"/{command.name}: {event.message or 'failed'}")
    raise CommandFailed(f"/{command.name} was not answered")  # drive ends on a reply or a refusal
