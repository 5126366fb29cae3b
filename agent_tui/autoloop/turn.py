"""What one iteration's turn produced, gathered from the agent's event stream.

The iteration's output is the assistant's text of every step with one line per tool call in
between (what ran and how it ended, with the ref of its whole output): enough for the summariser
to know what was tried, without the logs.
"""

from __future__ import annotations

import json
import re

from agent_tui.agent import events as ev
from agent_tui.autoloop.progress import error_signature
from agent_tui.base.messages import ToolCall

_EXIT = re.compile(r"^exit (-?\d+)")
ARGS_CHARS = 200


def describe_arguments(call: ToolCall) -> str:
    try:
        args = call.parsed_arguments()
    except ValueError:
        return call.arguments[:ARGS_CHARS]
    command = args.get("command")
    if call.name == "bash" and isinstance(command, str):
        return command[:ARGS_CHARS]
    return json.dumps(args, ensure_ascii=False)[:ARGS_CHARS]


def tool_failed(event: ev.ToolCallFinished) -> bool:
    """An error result, a timeout, or a command that exited non-zero."""
    if event.is_error or event.summary.startswith("timed out"):
        return True
    match = _EXIT.match(event.summary)
    return bool(match and match.group(1) != "0")


class TurnOutput:
    """Feed it every event of the turn; read the output, the failures and the outcome."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.texts: list[str] = []
        self._text: list[str] = []
        self.tool_calls = 0
        self.failures: list[str] = []
        self.stop_reason = "done"
        self.final_text = ""

    def _flush(self) -> None:
        text = "".join(self._text).strip()
        self._text = []
        if text:
            self.blocks.append(text)
            self.texts.append(text)

    def feed(self, event: ev.AgentEvent) -> None:
        if isinstance(event, ev.StepStarted):
            self._flush()
        elif isinstance(event, ev.TextDelta):
            self._text.append(event.text)
        elif isinstance(event, ev.ToolCallFinished):
            self._flush()
            self.tool_calls += 1
            args = describe_arguments(event.call)
            line = f"[tool {event.call.name}] {args} → {event.summary or 'done'}"
            if event.ref and event.ref.id not in line:
                line += f" · ref {event.ref.id}"
            self.blocks.append(line)
            if tool_failed(event):
                self.failures.append(error_signature(event.call.name, event.view, args))
        elif isinstance(event, ev.ErrorEvent):
            self._flush()
            self.blocks.append(f"[error {event.kind}] {event.message}")
            self.failures.append(error_signature(f"provider-{event.kind}", event.message))
        elif isinstance(event, ev.TurnFinished):
            self._flush()
            self.stop_reason = event.stop_reason
            self.final_text = event.text

    @property
    def output(self) -> str:
        return "\n\n".join(self.blocks)

    @property
    def assistant_text(self) -> str:
        """What the model said (markers and the promise are read from this only)."""
        return "\n\n".join(self.texts)
