"""Fires one hook event: the matching hooks run (at once, like Claude Code's), their answers are
combined, and each run becomes a `HookRan` event the session hands to the TUI and `run --json`.

The session and the tool runner call `fire` at the one place each event happens and apply the
combined `HookOutcome` themselves (block, allow, rewrite the input, add context): the runner
decides nothing about the turn.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.agent import events as ev
from agent_tui.hooks.answer import HookAnswer, read_answer
from agent_tui.hooks.process import hook_env, run_hook_process

if TYPE_CHECKING:
    from agent_tui.hooks.sources import HookSet
    from agent_tui.hooks.spec import HookSpec
    from agent_tui.hooks.transcript import TranscriptExport

log = logging.getLogger(__name__)

_STRICTNESS = {"deny": 3, "ask": 2, "allow": 1}


@dataclass(frozen=True)
class HookOutcome(HookAnswer):
    """What the hooks of one event said together: `blocked` if any blocked (their reasons one
    per line), the strictest `permission` (deny > ask > allow), the last `updated_input` (in our
    tool's argument names), every `context` joined, the first `stop`."""

    ran: int = 0
    """How many hooks ran (0: none matched)."""


NOTHING = HookOutcome()

USER_SESSION_EVENTS = frozenset({"SessionStart", "SessionEnd", "UserPromptSubmit", "Stop"})
"""Events of the user's session that a sub-agent's session does not fire."""


@dataclass
class HookRunner:
    """One session's hooks."""

    hooks: HookSet
    workspace: Path
    session_id: str
    transcript: TranscriptExport | None = None
    events: list[ev.AgentEvent] = field(default_factory=list)
    """Runs (and notices) not yet handed to the event stream; `drain` takes them."""
    subagent: bool = False
    """A sub-agent's session: its stop fires SubagentStop (which sends the child back to work
    exactly as Stop hooks send the agent), and the events of the user's own session (its start
    and end, a prompt the user submits, the agent's stop) do not fire for it — Claude Code's
    rule, so a prompt hook does not also gate the briefs the agent writes for its sub-agents."""

    @property
    def stop_event(self) -> str:
        return "SubagentStop" if self.subagent else "Stop"

    def drain(self) -> list[ev.AgentEvent]:
        out, self.events = self.events, []
        return out

    def has(self, event: str, tool: str | None = None) -> bool:
        return bool(self.hooks.for_event(event, tool))

    async def fire(
        self,
        event: str,
        fields: dict[str, Any] | None = None,
        *,
        tool: str | None = None,
        args: dict[str, Any] | None = None,
        response: Any = None,
    ) -> HookOutcome:
        """Run the hooks of `event` (for `tool`, when it is a tool event) and combine answers."""
        specs = self.hooks.for_event(event, tool)
        if not specs or (self.subagent and event in USER_SESSION_EVENTS):
            return NOTHING
        transcript = await self.transcript.sync() if self.transcript is not None else None
        base: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": str(transcript) if transcript else "",
            "cwd": str(self.workspace),
            "hook_event_name": event,
            **(fields or {}),
        }
        payloads = [self._payload(spec, base, tool, args, response) for spec in specs]
        results = await asyncio.gather(
            *(
                run_hook_process(
                    spec.command,
                    payload,
                    cwd=self.workspace,
                    env=hook_env(self.workspace, self.session_id, event),
                    timeout=spec.timeout,
                )
                for spec, payload in zip(specs, payloads, strict=True)
            )
        )
        answers = []
        for spec, result in zip(specs, results, strict=True):
            answer = read_answer(event, result, spec.timeout)
            if answer.updated_input is not None and tool is not None:
                answer = _with_input(answer, spec.our_input(tool, answer.updated_input))
            answers.append(answer)
            self.events.append(_ran(spec, result.exit_code, result.duration, answer, result.timed_out))
        return combine(answers)

    def _payload(
        self,
        spec: HookSpec,
        base: dict[str, Any],
        tool: str | None,
        args: dict[str, Any] | None,
        response: Any,
    ) -> dict[str, Any]:
        payload = dict(base)
        if tool is not None:
            payload["tool_name"] = spec.tool_name(tool)
            payload["tool_input"] = spec.tool_input(tool, args or {}, str(self.workspace))
            if response is not None:
                payload["tool_response"] = response
        return payload


def _with_input(answer: HookAnswer, updated: dict[str, Any]) -> HookAnswer:
    from dataclasses import replace

    return replace(answer, updated_input=updated)


def _ran(
    spec: HookSpec, code: int | None, duration: float, answer: HookAnswer, timed_out: bool
) -> ev.HookRan:
    if answer.blocked:
        outcome, message = "blocked", answer.reason
    elif timed_out:
        outcome, message = "timeout", answer.message
    elif answer.failed:
        outcome, message = "error", answer.message
    else:
        outcome = "ok"
        message = answer.message or (f"permission: {answer.permission}" if answer.permission else "")
    return ev.HookRan(spec.event, spec.label, code, duration, outcome, message, spec.source)


def combine(answers: list[HookAnswer]) -> HookOutcome:
    reasons = [a.reason for a in answers if a.blocked and a.reason]
    permissions = [a.permission for a in answers if a.permission]
    permission = max(permissions, key=lambda p: _STRICTNESS[p]) if permissions else None
    updated = next((a.updated_input for a in reversed(answers) if a.updated_input is not None), None)
    stops = [a.stop for a in answers if a.stop is not None]
    return HookOutcome(
        blocked=any(a.blocked for a in answers),
        reason="\n".join(reasons),
        permission=permission,
        updated_input=updated,
        context="\n".join(a.context for a in answers if a.context),
        stop=stops[0] if stops else None,
        ran=len(answers),
    )
