"""The values every layer passes around: messages, tool calls, result refs and token usage.

Plain frozen dataclasses with lossless round-trips to the OpenAI chat format (what litellm takes)
and to JSON (what the store keeps). No I/O, no third-party imports.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from agent_tui.base.images import ImageAttachment
from agent_tui.base.reasoning import Reasoning

Role = Literal["system", "user", "assistant", "tool"]
Kind = Literal["chat", "summary", "retain", "note", "attachment", "unsent"]

ROLES: tuple[str, ...] = ("system", "user", "assistant", "tool")
KINDS: tuple[str, ...] = ("chat", "summary", "retain", "note", "attachment", "unsent")

Outcome = Literal["ok", "error", "denied", "not_run", "cancelled"]
"""How a tool call ended: it ran (ok / error), the user or the policy refused it (denied), it was
answered without running (not_run: cut off, or after a denial ended the turn), or it was stopped
(cancelled)."""
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)


def new_id(prefix: str = "m") -> str:
    """A collision-free id: 12 hex characters of a random UUID behind a short prefix."""
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asked for."""

    id: str
    """Provider-assigned call id; the tool result answers it by `tool_call_id`."""
    name: str
    """Tool name as registered (MCP tools are `server__tool`)."""
    arguments: str = "{}"
    """Arguments as the JSON text the model produced (kept verbatim: it may not parse)."""

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a dict; `{}` for empty text, ValueError for text that is not an object."""
        if not self.arguments.strip():
            return {}
        value = json.loads(self.arguments)
        if not isinstance(value, dict):
            raise ValueError("tool arguments must be a JSON object")
        return value

    def to_openai(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }

    @classmethod
    def from_openai(cls, data: Mapping[str, Any]) -> ToolCall:
        fn = data.get("function") or {}
        return cls(id=data["id"], name=fn.get("name", ""), arguments=fn.get("arguments") or "")


@dataclass(frozen=True)
class ResultRef:
    """The handle to a whole tool output kept in the blob store."""

    id: str
    """Short id the model passes back (`read_result(ref_id=...)`)."""
    byte_size: int
    """Size of the whole stored output in bytes."""
    line_count: int
    """Number of lines of the whole stored output."""
    tool_name: str
    """Tool that produced it."""
    session_id: str | None = None
    """Session that owns the blob (lets a ref resolve across sessions as a URI)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "byte_size": self.byte_size,
            "line_count": self.line_count,
            "tool_name": self.tool_name,
            "session_id": self.session_id,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ResultRef:
        return cls(
            id=data["id"],
            byte_size=int(data["byte_size"]),
            line_count=int(data["line_count"]),
            tool_name=data["tool_name"],
            session_id=data.get("session_id"),
        )


@dataclass(frozen=True)
class Message:
    """One chat message, in the shape litellm takes plus what context management needs."""

    role: Role
    """system / user / assistant / tool."""
    content: str | None = None
    """Text; None for an assistant message that only calls tools."""
    tool_calls: tuple[ToolCall, ...] = ()
    """Calls an assistant message makes; each must be answered by one tool message."""
    tool_call_id: str | None = None
    """For a tool message: the call it answers."""
    name: str | None = None
    """For a tool message: the tool's name."""
    kind: Kind = "chat"
    """chat, or what compaction made it: summary / retain / note; attachment for pasted files;
    unsent marks (in the transcript only) a message whose send failed."""
    output_ref: ResultRef | None = None
    """For a tool message whose output was stored whole: where the rest lives."""
    id: str = field(default_factory=new_id)
    """Stable identity inside agent-tui (never sent to the provider)."""
    reasoning: Reasoning | None = None
    """For an assistant message of a reasoning model: what it thought first. Never part of
    `to_openai()`; the request builder sends Anthropic's blocks back where the API needs them."""
    images: tuple[ImageAttachment, ...] = ()
    """For a user message: pictures sent after the text as content parts (agent_tui/base/images.py)."""
    outcome: Outcome | None = None
    """For a tool message: how its call ended. None in rows stored before agent-tui kept it
    (agent_tui/base/tool_outcome.py reads those by their text)."""

    def __hash__(self) -> int:
        # Messages key every per-message cache (token counts, wire dicts) and are looked up on
        # each step; hashing all fields every time made the loop's cost grow with history.
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(
                (
                    self.id,
                    self.role,
                    self.content,
                    self.tool_calls,
                    self.tool_call_id,
                    self.name,
                    self.kind,
                    self.output_ref,
                    self.reasoning,
                    self.images,
                    self.outcome,
                )
            )
            object.__setattr__(self, "_hash", cached)
        return cached

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI chat-completions dict (only the keys the provider understands)."""
        data: dict[str, Any] = {"role": self.role}
        if self.role == "assistant" and self.tool_calls:
            data["content"] = self.content
            data["tool_calls"] = [call.to_openai() for call in self.tool_calls]
        else:
            data["content"] = self.content if self.content is not None else ""
        if self.images:
            text = [{"type": "text", "text": self.content}] if self.content else []
            data["content"] = text + [image.to_openai_part() for image in self.images]
        if self.role == "tool":
            data["tool_call_id"] = self.tool_call_id
            if self.name is not None:
                data["name"] = self.name
        elif self.name is not None:
            data["name"] = self.name
        return data

    @classmethod
    def from_openai(cls, data: Mapping[str, Any], **extra: Any) -> Message:
        """Build from an OpenAI-format dict; `extra` sets kind, id or output_ref."""
        content = data.get("content")
        if isinstance(content, list):  # content parts: keep the text of each
            content = "".join(part.get("text", "") for part in content if isinstance(part, Mapping))
        calls = tuple(ToolCall.from_openai(c) for c in data.get("tool_calls") or ())
        return cls(
            role=data["role"],
            content=content,
            tool_calls=calls,
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
            **extra,
        )

    def to_json(self) -> dict[str, Any]:
        """Everything, for storage: the OpenAI keys plus id, kind and output_ref."""
        return {
            "id": self.id,
            "role": self.role,
            "content": self.content,
            "tool_calls": [c.to_openai() for c in self.tool_calls],
            "tool_call_id": self.tool_call_id,
            "name": self.name,
            "kind": self.kind,
            "output_ref": self.output_ref.to_json() if self.output_ref else None,
            **({"reasoning": self.reasoning.to_json()} if self.reasoning is not None else {}),
            **({"images": [image.to_json() for image in self.images]} if self.images else {}),
            **({"outcome": self.outcome} if self.outcome is not None else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Message:
        ref = data.get("output_ref")
        reasoning = data.get("reasoning")
        return cls(
            role=data["role"],
            content=data.get("content"),
            tool_calls=tuple(ToolCall.from_openai(c) for c in data.get("tool_calls") or ()),
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
            kind=data.get("kind", "chat"),
            output_ref=ResultRef.from_json(ref) if ref else None,
            id=data["id"],
            reasoning=Reasoning.from_json(reasoning) if isinstance(reasoning, Mapping) else None,
            images=tuple(ImageAttachment.from_json(item) for item in data.get("images") or ()),
            outcome=_outcome(data.get("outcome")),
        )

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def loads(cls, text: str) -> Message:
        return cls.from_json(json.loads(text))

    def with_content(self, content: str | None) -> Message:
        """A copy with new content and a new id (so per-message token caches never go stale)."""
        return replace(self, content=content, id=new_id())


def system(text: str) -> Message:
    return Message(role="system", content=text)


def user(text: str, kind: Kind = "chat", images: tuple[ImageAttachment, ...] = ()) -> Message:
    return Message(role="user", content=text, kind=kind, images=images)


def assistant(text: str | None, tool_calls: tuple[ToolCall, ...] = ()) -> Message:
    return Message(role="assistant", content=text, tool_calls=tool_calls)


def tool_result(
    call: ToolCall, content: str, ref: ResultRef | None = None, *, outcome: Outcome | None = None
) -> Message:
    return Message(
        role="tool", content=content, tool_call_id=call.id, name=call.name, output_ref=ref, outcome=outcome
    )


def _outcome(value: Any) -> Outcome | None:
    """A stored code, or None for a row without one (or with a code this version does not know)."""
    for known in OUTCOMES:
        if value == known:
            return known
    return None


@dataclass(frozen=True)
class TokenUsage:
    """What the provider reported for one call. `input` excludes the cached parts."""

    input: int = 0
    """Uncached prompt tokens."""
    output: int = 0
    """Completion tokens."""
    cache_creation: int = 0
    """Prompt tokens written to the provider's cache (Anthropic)."""
    cache_read: int = 0
    """Prompt tokens served from the provider's cache."""
    reasoning: int = 0
    """Of `output`, the tokens spent reasoning (as the provider reported them)."""

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_creation + self.cache_read

    @property
    def prompt_tokens(self) -> int:
        """Everything the request held, cached or not: what anchors the budget."""
        return self.input + self.cache_creation + self.cache_read

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            self.input + other.input,
            self.output + other.output,
            self.cache_creation + other.cache_creation,
            self.cache_read + other.cache_read,
            self.reasoning + other.reasoning,
        )

    @classmethod
    def from_litellm(cls, usage: Any) -> TokenUsage:
        """From litellm's Usage (object or dict). litellm's `prompt_tokens` includes the cached
        parts, so the uncached input is what remains after taking them out."""

        def get(obj: Any, key: str) -> Any:
            if obj is None:
                return None
            if isinstance(obj, Mapping):
                return obj.get(key)
            return getattr(obj, key, None)

        prompt = int(get(usage, "prompt_tokens") or 0)
        output = int(get(usage, "completion_tokens") or 0)
        creation = int(get(usage, "cache_creation_input_tokens") or 0)
        read = int(get(usage, "cache_read_input_tokens") or 0)
        if not read:
            read = int(get(get(usage, "prompt_tokens_details"), "cached_tokens") or 0)
        uncached = max(prompt - read - creation, 0)
        reasoning = int(get(get(usage, "completion_tokens_details"), "reasoning_tokens") or 0)
        return cls(
            input=uncached, output=output, cache_creation=creation, cache_read=read, reasoning=reasoning
        )

    def to_json(self) -> dict[str, int]:
        return {
            "input": self.input,
            "output": self.output,
            "cache_creation": self.cache_creation,
            "cache_read": self.cache_read,
            "reasoning": self.reasoning,
            "total": self.total,
        }
