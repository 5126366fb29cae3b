"""Builders the compaction tests share: conversations with real tool calls, refs and a blob map.

The compaction test files import it from here, never from one another.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.base.messages import Message, ResultRef, ToolCall
from agent_tui.base.tokens import TokenCounter
from agent_tui.config import CompactionSettings

COUNTER = TokenCounter("gpt-4o")


def settings(**overrides: Any) -> CompactionSettings:
    return CompactionSettings(**overrides)


class Convo:
    """Builds a conversation the way the loop writes one; `blobs` plays the blob store."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.blobs: dict[str, str] = {}
        self._n = 0

    def _next(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}_{self._n:05d}"

    def user(self, text: str) -> Message:
        m = Message(role="user", content=text)
        self.messages.append(m)
        return m

    def say(self, text: str) -> Message:
        m = Message(role="assistant", content=text)
        self.messages.append(m)
        return m

    def call(
        self, name: str, args: dict[str, Any], output: str, *, stored: bool = True, text: str | None = None
    ) -> Message:
        """One assistant step with one call and its result."""
        return self.calls([(name, args, output, stored)], text=text)

    def calls(
        self, specs: list[tuple[str, dict[str, Any], str | None, bool]], text: str | None = None
    ) -> Message:
        """One assistant step with several calls; an output of None leaves that call
        unanswered (the step in flight)."""
        tool_calls = tuple(
            ToolCall(id=self._next("call"), name=name, arguments=json.dumps(args))
            for name, args, _, _ in specs
        )
        step = Message(role="assistant", content=text, tool_calls=tool_calls)
        self.messages.append(step)
        for call, (name, _, output, stored) in zip(tool_calls, specs, strict=False):
            if output is None:
                continue
            ref = None
            if stored:
                ref = ResultRef(
                    id=self._next("r"),
                    byte_size=len(output.encode()),
                    line_count=output.count("\n") + 1,
                    tool_name=name,
                )
                self.blobs[ref.id] = output
            self.messages.append(
                Message(role="tool", content=output, tool_call_id=call.id, name=name, output_ref=ref)
            )
        return step


def tokens(messages: list[Message]) -> int:
    return COUNTER.count_messages(messages)


def big(label: str, lines: int = 200) -> str:
    """A tool output of about 10 tokens a line."""
    return "\n".join(f"{label} line {i}: some output text here" for i in range(lines))


def long_session(turns: int = 6, steps: int = 4, lines: int = 150) -> Convo:
    """Turns of reads, runs and edits with sizable outputs, the last turn ending in an answer."""
    c = Convo()
    for t in range(turns):
        c.user(f"Request {t}: please look at module_{t}.py and fix the failing test")
        for s in range(steps):
            c.call("read_file", {"path": f"src/module_{t}.py"}, big(f"m{t}s{s}", lines))
            c.call(
                "bash",
                {"command": f"pytest tests/test_{t}.py -q"},
                big(f"pytest{t}{s}", lines // 3) + f"\nexit code: {s % 2}",
            )
        c.call("edit_file", {"path": f"src/module_{t}.py", "old": "a", "new": "b"}, "Edited 1 line")
        c.say(f"Fixed module_{t}.py: the bug was an off-by-one in parse_{t}().")
    return c
