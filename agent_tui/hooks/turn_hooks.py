"""The hooks around a turn, for `agent/session.py`: SessionStart and UserPromptSubmit before the
prompt is sent, Stop when the model is done (SubagentStop when a sub-agent is: the child's own
turn loop fires it, so a blocking hook sends the child back to work), SessionEnd when the session
closes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.base.user_command_text import hook_context_block

if TYPE_CHECKING:
    from agent_tui.hooks.runner import HookOutcome, HookRunner


@dataclass(frozen=True)
class PromptGate:
    """What the hooks said about a prompt about to be sent."""

    blocked: str | None = None
    """Not sent: the line the user reads."""
    context: str = ""
    """Appended to the prompt for the model (hook stdout, additionalContext)."""


def _context_block(event: str, text: str) -> str:
    return hook_context_block(event, text)  # typed_text (user_command_text.py) reads it back


async def before_prompt(hooks: HookRunner, prompt: str, *, first: bool, resumed: bool) -> PromptGate:
    context = ""
    if first:
        start = await hooks.fire("SessionStart", {"source": "resume" if resumed else "startup"})
        if start.context:
            context += _context_block("SessionStart", start.context)
    submit = await hooks.fire("UserPromptSubmit", {"prompt": prompt})
    if submit.blocked or submit.stop is not None:
        why = submit.reason or submit.stop or "no reason given"
        return PromptGate(blocked=f"Prompt not sent: a UserPromptSubmit hook blocked it: {why}")
    if submit.context:
        context += _context_block("UserPromptSubmit", submit.context)
    return PromptGate(context=context)


def stop_instruction(outcome: HookOutcome) -> str | None:
    """A Stop (or SubagentStop) hook's answer as the next instruction, when it sends the agent
    back to work (exit 2 or `decision: "block"`); None lets it stop."""
    if outcome.blocked and outcome.stop is None:
        return f"[Stop hook] {outcome.reason or 'Continue working.'}"
    return None


async def stop(hooks: HookRunner, *, active: bool, event: str | None = None) -> str | None:
    """Fire the session's stop event (`Stop`, or `SubagentStop` in a sub-agent: `stop_event`);
    the instruction to go back to work with, or None. The session's turn loop bounds how often
    (its step limit), a sub-agent's as well."""
    return stop_instruction(await hooks.fire(event or hooks.stop_event, {"stop_hook_active": active}))
