"""What a reasoning model thought before it answered, as the assistant message keeps it.

Two kinds of providers think out loud, with opposite rules:
- OpenAI-compatible servers (DeepSeek, Qwen3 on llama.cpp/vLLM/Ollama, OpenRouter) stream
  `reasoning_content`: shown and stored, never sent back (those APIs reject or ignore it).
- Anthropic streams `thinking` blocks with a signature (and `redacted_thinking` blocks holding
  opaque data): within a tool-use turn they must go back exactly as received, or the API answers
  400; from earlier turns the API drops them itself.
Both are kept on the message as a `Reasoning`; which parts are sent is decided per request, by the
provider the request goes to. No I/O, no third-party imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

BlockType = Literal["thinking", "redacted_thinking"]
T = TypeVar("T")


@dataclass(frozen=True)
class ThinkingBlock:
    """One Anthropic thinking block, byte for byte as the API sent it."""

    type: BlockType
    thinking: str = ""
    """The thinking text (empty for a redacted block)."""
    signature: str = ""
    """The API's signature over the thinking; must come back unchanged."""
    data: str = ""
    """A redacted block's opaque payload."""

    def to_anthropic(self) -> dict[str, Any]:
        if self.type == "redacted_thinking":
            return {"type": "redacted_thinking", "data": self.data}
        return {"type": "thinking", "thinking": self.thinking, "signature": self.signature}

    @classmethod
    def from_anthropic(cls, data: Mapping[str, Any]) -> ThinkingBlock | None:
        """A block from the API's (or litellm's) dict; None for anything else."""
        kind = data.get("type")
        if kind == "redacted_thinking":
            return cls("redacted_thinking", data=str(data.get("data") or ""))
        if kind == "thinking":
            return cls("thinking", str(data.get("thinking") or ""), str(data.get("signature") or ""))
        return None


@dataclass(frozen=True)
class Reasoning:
    """The reasoning of one assistant message."""

    text: str = ""
    """What the user reads: the streamed reasoning text (all thinking blocks' text, in order)."""
    blocks: tuple[ThinkingBlock, ...] = ()
    """Anthropic's blocks, verbatim, for sending back within a tool-use turn."""
    tokens: int = 0
    """Reasoning tokens the provider reported for this reply (an estimate when it gave none)."""
    duration: float = 0.0
    """Seconds from the first reasoning delta to the first answer delta (or the reply's end)."""

    @property
    def empty(self) -> bool:
        return not self.text and not self.blocks

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "blocks": [block.to_anthropic() for block in self.blocks],
            "tokens": self.tokens,
            "duration": round(self.duration, 3),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Reasoning:
        blocks = (ThinkingBlock.from_anthropic(b) for b in data.get("blocks") or () if isinstance(b, Mapping))
        return cls(
            text=str(data.get("text") or ""),
            blocks=tuple(b for b in blocks if b is not None),
            tokens=int(data.get("tokens") or 0),
            duration=float(data.get("duration") or 0.0),
        )


EFFORTS = ("minimal", "low", "medium", "high")
"""`[model] reasoning_effort`, as OpenAI's `reasoning_effort` names them."""
EFFORT_BUDGETS = {"minimal": 1024, "low": 4096, "medium": 10_000, "high": 32_000}
"""Anthropic's thinking budget for an effort when no `thinking_budget_tokens` is set (1 024 is the
API's minimum; "high" is what Claude Code gives its hardest thinking)."""


@dataclass(frozen=True)
class ReasoningSettings:
    """`[model] reasoning_effort` and `thinking_budget_tokens`: how hard a reasoning model thinks. Both unset: the provider's default."""

    effort: str | None = None
    """minimal / low / medium / high (OpenAI-compatible `reasoning_effort`; for Anthropic it picks
    a thinking budget), or None."""
    thinking_budget_tokens: int = 0
    """Anthropic extended thinking: tokens the model may think per reply (≥ 1 024); 0 = from
    `effort`, or off when that is unset too."""

    @property
    def enabled(self) -> bool:
        return self.effort is not None or self.thinking_budget_tokens > 0

    def thinking_budget(self) -> int:
        """Anthropic's budget_tokens for these settings (0 = thinking off)."""
        if self.thinking_budget_tokens > 0:
            return max(self.thinking_budget_tokens, 1024)
        return EFFORT_BUDGETS.get(self.effort or "", 0)

    def describe(self) -> str:
        if not self.enabled:
            return "off (the provider's default)"
        parts = [f"effort {self.effort}"] if self.effort else []
        if self.thinking_budget_tokens:
            parts.append(f"thinking budget {self.thinking_budget_tokens:,} tokens")
        return ", ".join(parts)


def tool_turn(messages: Sequence[T], role: Callable[[T], str]) -> list[int]:
    """Indexes of the assistant messages of the tool-use turn a request continues, oldest first
    (empty when it starts a new turn). Walks back from the end: only the turn is visited.

    Anthropic merges consecutive user and tool messages into one user turn; when the last one
    holds tool results, the assistant message before it belongs to the turn in progress, and so
    on back. A new prompt after a call's (repaired or cancelled) result joins that user turn, so
    the turn is still in progress for the API: its first assistant message must carry its
    thinking blocks."""
    found: list[int] = []
    index = len(messages) - 1
    while index >= 0:
        results = False
        while index >= 0 and role(messages[index]) != "assistant":
            results = results or role(messages[index]) == "tool"
            index -= 1
        if not results:
            break
        while index >= 0 and role(messages[index]) == "assistant":
            found.append(index)
            index -= 1
    return found[::-1]
