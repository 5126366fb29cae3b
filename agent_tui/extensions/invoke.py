"""A custom command sent as a prompt: `/review auth` becomes the command file's body with its
arguments and inline command outputs in place, then one ordinary turn.

The TUI and headless `run` both send prompts through `turn_events`, so a custom command expands
the same way in both. An inline `` !`command` `` runs as a bash call of the session — the same
approval, sandbox and hooks as the model's — except that a command `allowed-tools` covers
needs no approval question. A command's `model:` serves its turn only (command_model.py).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from agent_tui.agent import events as ev
from agent_tui.base.messages import ToolCall
from agent_tui.base.user_command_text import custom_command_text
from agent_tui.extensions.command_model import use_model, wanted
from agent_tui.extensions.commands import (
    INLINE,
    CustomCommand,
    discover,
    fill,
    has_placeholders,
    split_invocation,
)
from agent_tui.hooks.approval import deciding

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession


async def run_inline(session: AgentSession, command: CustomCommand, line: str) -> str:

    call = ToolCall(id=f"cmd_{uuid.uuid4().hex[:12]}", name="bash", arguments=json.dumps({"command": line}))
    with deciding("allow" if command.grants(line) else None):
        run = await session.runner.run(call)
    if run.denied:
        return f"[`{line}` was not run: {run.notice or 'denied'}]"
    output = (run.message.content or "").rstrip()
    if run.meta.get("exit_code") == 0 and (status := run.meta.get("status_line")):
        # Claude Code puts the output alone; a failure keeps its `[exit code 1 · …]`.
        output = output.removesuffix(status).rstrip()
    return output


async def expand(session: AgentSession, command: CustomCommand, args: str) -> str:
    """The prompt `/name args` stands for. Arguments are data: the body is scanned for
    `` !`…` `` lines before they are filled in (pasted text holding `` !`touch PWNED` `` stays
    text), and inside an inline command each argument is quoted as one shell word."""
    body = command.body
    parts: list[str] = []
    last = 0
    for match in INLINE.finditer(body):
        parts.append(fill(body[last : match.start()], args))
        line = fill(match.group(1).strip(), args, shell=True)
        parts.append(await run_inline(session, command, line))
        last = match.end()
    parts.append(fill(body[last:], args))
    text = "".join(parts)
    if args and not has_placeholders(body):
        text = f"{text.rstrip()}\n\nARGUMENTS: {args}"
    return text


async def turn_events(session: AgentSession, text: str) -> AsyncIterator[ev.AgentEvent]:
    """`session.run_turn(text)`, with a custom command's invocation expanded first."""
    found = split_invocation(text)
    command = None
    if found is not None:
        catalog = discover(session.workspace, session.config.provenance.folder_trusted)
        command = catalog.get(found[0])
        if command is not None:
            for line in catalog.notices:
                yield ev.Notice(line)
    if command is None:
        async for event in session.run_turn(text):
            yield event
        return
    restore = None
    if command.model and wanted(session, command.model):
        said, restore = use_model(session, command.name, command.model)
        yield ev.Notice(said)
    try:
        prompt = custom_command_text(text, await expand(session, command, found[1] if found else ""))
        async for event in session.run_turn(prompt):
            yield event
    finally:
        if restore is not None:  # the command's model served this turn only
            restore()
