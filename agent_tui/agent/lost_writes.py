"""Writes the store could not make, kept until the turn ends and said as errors.

A full disk used to be silent: the answer's insert failed, "could not persist" went to the log,
`run` exited 0 with `"ok": true` and the next `--continue` lacked the answer; a streamed bash
output whose insert failed became `OperationalError: disk I/O error` instead of the output. Now
every failed write is written down here, the turn ends with an `error` event of kind `storage`
for each (so `run` exits non-zero and the TUI shows it), and a streamed output the store could
not take is kept as a bounded head and tail and handed to the model inline (`InlineFallback`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final

from agent_tui.base.messages import Message, ResultRef
from agent_tui.tools.head_tail import HeadTail

STORAGE: Final = "storage"
"""The `kind` of the error event a lost write becomes."""


def describe_lost(messages: tuple[Message, ...] | list[Message], exc: BaseException) -> str:
    """One line for the user: what was not saved, why, and what it means."""
    if any(m.role == "assistant" and m.content for m in messages):
        what = "the answer"
    else:
        what = f"{len(messages)} message(s) of this session"
    return f"{what} could not be saved ({exc}): the stored session lacks it (is the disk full?)"


class InlineFallback:
    """Wraps one call's offload: when the store fails, the output is kept (bounded) instead."""

    def __init__(self, store_it: Callable[[str, Any], Awaitable[ResultRef]], limit: int) -> None:
        self._store_it = store_it
        self._limit = limit
        self.text: str | None = None
        """The output as text when the store failed (None: it was stored)."""
        self.problem: str | None = None

    async def __call__(self, tool_name: str, content: Any) -> ResultRef:
        if not hasattr(content, "__aiter__"):
            return await self._store_it(tool_name, content)  # in memory: the caller keeps it
        kept = HeadTail(self._limit)

        async def tee(stream: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
            async for chunk in stream:
                kept.add(chunk)
                yield chunk

        source = aiter(content)
        try:
            return await self._store_it(tool_name, tee(source))
        except Exception as exc:  # noqa: BLE001 - any store failure: keep the output inline
            async for chunk in source:  # the rest of it, so the command is not left blocked
                kept.add(chunk)
            self.text = kept.text("bytes not kept: the store could not save this output")
            self.problem = f"the output of {tool_name} could not be saved ({exc}); the model got it inline"
            return ResultRef(id="", byte_size=kept.total, line_count=0, tool_name=tool_name)
