"""Following a reasoning model's thinking through one streamed step.

The stream gives reasoning deltas (shown as they come), Anthropic's signed blocks once whole, and
at the end a usage report that may say how many tokens went to reasoning. The step's assistant
message keeps the result as its `reasoning`; the duration is the time the user watched the model
think: from the first reasoning delta to the first answer text or tool call.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from agent_tui.base.reasoning import Reasoning, ThinkingBlock


class ThinkingTrace:
    """The reasoning of one step as it streams."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._parts: list[str] = []
        self._blocks: tuple[ThinkingBlock, ...] = ()
        self._started: float | None = None
        self._ended: float | None = None
        self._reported = 0

    @property
    def active(self) -> bool:
        """Reasoning arrived and no answer yet."""
        return self._started is not None and self._ended is None

    def delta(self, text: str) -> None:
        if self._started is None:
            self._started = self._clock()
        self._parts.append(text)

    def answered(self) -> None:
        """The answer (text or a call) began: the thinking time stops here."""
        if self._started is not None and self._ended is None:
            self._ended = self._clock()

    def blocks_ready(self, blocks: tuple[ThinkingBlock, ...]) -> None:
        self._blocks = blocks
        if self._started is None and blocks:  # redacted only: no text came
            self._started = self._clock()

    def reported(self, reasoning_tokens: int) -> None:
        if reasoning_tokens:
            self._reported = reasoning_tokens

    def result(self, count: Callable[[str], int]) -> Reasoning | None:
        """The step's reasoning (None when the model did not reason); `count` estimates tokens
        when the provider reported none (Anthropic folds thinking into output tokens)."""
        text = "".join(self._parts)
        if not text and not self._blocks:
            return None
        if self._ended is None:
            self.answered()
        started = self._started if self._started is not None else self._clock()
        ended = self._ended if self._ended is not None else started
        tokens = self._reported or (count(text) if text else 0)
        return Reasoning(text=text, blocks=self._blocks, tokens=tokens, duration=max(ended - started, 0.0))
