"""`run --output-format json|stream-json`: the lines `claude -p` prints, so scripts written for
Claude Code work with a flag change.

Our own `--json` (one line per agent event, README schema) stays the richer form; this module only
translates those events into Claude Code's documented message shapes:

- `{"type": "system", "subtype": "init", "session_id", "cwd", "model", "tools", ...}` first;
- `{"type": "assistant", "message": {Anthropic message with `text` / `tool_use` blocks}}`;
- `{"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", ...}]}}`;
- `{"type": "result", "subtype": "success" | "error_during_execution" | "error_max_turns",
  "result", "usage", "total_cost_usd", "num_turns", "duration_ms", ...}` last.

`json` prints only the last of them. Assistant blocks go out one message per block, as Claude
Code streams them: text when the step moves on, a tool call when it starts.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent_tui.agent import events as ev


def _tool_input(arguments: str) -> Any:
    try:
        return json.loads(arguments or "{}")
    except ValueError:
        return {"_raw": arguments}  # what the model sent could not be parsed: shown as it was


@dataclass
class ClaudeStream:
    """Turns our events into Claude Code messages and hands each to `emit` (stream-json) or
    keeps only the result (json)."""

    emit: Callable[[dict[str, Any]], None]
    streaming: bool
    """True for stream-json (every message), False for json (the result only)."""
    session_id: str = ""
    model: str = ""
    started: float = field(default_factory=time.monotonic)
    steps: int = 0
    tool_seconds: float = 0.0
    denials: list[dict[str, Any]] = field(default_factory=list)
    _text: list[str] = field(default_factory=list)
    _message_id: str = ""

    def _send(self, data: dict[str, Any]) -> None:
        if self.streaming:
            self.emit({**data, "session_id": self.session_id, "uuid": str(uuid.uuid4())})

    def init(self, *, session_id: str, model: str, cwd: str, tools: list[str], yes: bool) -> None:
        """The first line: what this run works with."""
        self.session_id, self.model = session_id, model
        self._send(
            {
                "type": "system",
                "subtype": "init",
                "cwd": cwd,
                "model": model,
                "tools": tools,
                "mcp_servers": [],
                "permissionMode": "bypassPermissions" if yes else "default",
                "apiKeySource": "none",
            }
        )

    def _assistant(self, block: dict[str, Any]) -> None:
        self._send(
            {
                "type": "assistant",
                "message": {
                    "id": self._message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": self.model,
                    "content": [block],
                    "stop_reason": None,
                },
                "parent_tool_use_id": None,
            }
        )

    def _flush_text(self) -> None:
        text = "".join(self._text)
        self._text.clear()
        if text:
            self._assistant({"type": "text", "text": text})

    def feed(self, event: Any) -> None:

        if isinstance(event, ev.StepStarted):
            self._flush_text()
            self.steps += 1
            self._message_id = f"msg_{uuid.uuid4().hex[:24]}"
        elif isinstance(event, ev.TextDelta):
            self._text.append(event.text)
        elif isinstance(event, ev.ToolCallStarted):
            self._flush_text()
            call = event.call
            self._assistant(
                {"type": "tool_use", "id": call.id, "name": call.name, "input": _tool_input(call.arguments)}
            )
        elif isinstance(event, ev.ToolCallFinished):
            self.tool_seconds += event.duration
            if event.outcome == "denied":
                call = event.call
                self.denials.append(
                    {
                        "tool_name": call.name,
                        "tool_use_id": call.id,
                        "tool_input": _tool_input(call.arguments),
                    }
                )
            self._send(
                {
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": event.call.id,
                                "content": event.view,
                                "is_error": event.is_error,
                            }
                        ],
                    },
                    "parent_tool_use_id": None,
                }
            )
        elif isinstance(event, ev.TurnFinished):
            self._flush_text()

    def result(self, *, text: str, failed: bool, stop_reason: str, usage: Any, cost: float | None) -> None:
        """The last line, in either format."""
        self._flush_text()
        elapsed_ms = round((time.monotonic() - self.started) * 1000)
        subtype = "success"
        if failed:
            subtype = "error_during_execution"
        elif stop_reason in ("max_steps", "max_turns"):
            subtype = "error_max_turns"
        elif stop_reason in ("max_budget", "budget_unknown"):
            subtype = "error_max_budget_usd"
        self.emit(
            {
                "type": "result",
                "subtype": subtype,
                "is_error": subtype != "success",
                "duration_ms": elapsed_ms,
                "duration_api_ms": max(0, elapsed_ms - round(self.tool_seconds * 1000)),
                "num_turns": self.steps,
                "result": text,
                "session_id": self.session_id,
                "total_cost_usd": cost,  # null when the model's prices are unknown, never a made-up 0
                "usage": {
                    "input_tokens": usage.input,
                    "output_tokens": usage.output,
                    "cache_creation_input_tokens": usage.cache_creation,
                    "cache_read_input_tokens": usage.cache_read,
                    "server_tool_use": {"web_search_requests": usage.web_searches},
                },
                "permission_denials": self.denials,
                "uuid": str(uuid.uuid4()),
            }
        )
