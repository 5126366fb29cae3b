"""Token counting: tiktoken offline, a heuristic when it will not load, cached per message.

Counting must be cheap enough to run on every keystroke of the meter: each message is counted
once (the cache is keyed on the frozen Message itself), and a conversation that only grew since
the last call costs only its new messages (`ConversationTally`). The provider's reported prompt
tokens then calibrate these estimates (`Calibration`), so the meter tracks the provider's own
tokenizer rather than tiktoken's.
"""

from __future__ import annotations

import json
import logging
import operator
import os
import threading
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.base.images import image_tokens, provider_rule

if TYPE_CHECKING:
    from agent_tui.base.messages import Message

log = logging.getLogger(__name__)

MESSAGE_OVERHEAD = 4
"""Tokens each message costs beyond its text (role, separators), as OpenAI documents."""
REPLY_PRIMING = 3
"""Tokens every request spends priming the reply."""
TOOL_CALL_OVERHEAD = 8
TOOL_SCHEMA_OVERHEAD = 8

_O200K_PREFIXES = ("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o")


def encoding_name_for(model: str | None) -> str:
    """o200k_base for OpenAI's newer families, cl100k_base as the approximation for the rest."""
    base = (model or "").rsplit("/", 1)[-1].lower()
    return "o200k_base" if base.startswith(_O200K_PREFIXES) else "cl100k_base"


def _point_tiktoken_at_litellm_files() -> None:
    """tiktoken downloads its BPE files unless told where a copy is; litellm ships two."""
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        return
    import importlib.util

    spec = importlib.util.find_spec("litellm")
    if spec and spec.origin:
        folder = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
        if folder.is_dir():
            os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)


_encoders: dict[str, Callable[[str], int] | None] = {}
_encoders_lock = threading.Lock()


def preload(model: str | None) -> None:
    """Load the tokenizer for `model` in a daemon thread, so the first count (the meter at
    launch, the first request's measure) finds it ready instead of loading it on the UI loop."""
    name = encoding_name_for(model)
    if name not in _encoders:
        threading.Thread(target=_load_encoder, args=(name,), name="tokenizer", daemon=True).start()


def _load_encoder(name: str) -> Callable[[str], int] | None:
    if name in _encoders:
        return _encoders[name]
    with _encoders_lock:  # a count racing the preload waits for it rather than loading twice
        return _load_encoder_locked(name)


def _load_encoder_locked(name: str) -> Callable[[str], int] | None:
    if name not in _encoders:
        try:
            _point_tiktoken_at_litellm_files()
            import tiktoken

            enc = tiktoken.get_encoding(name)
            encode = enc.encode_ordinary
            _encoders[name] = lambda text: len(encode(text))
        except Exception as exc:  # noqa: BLE001 - any failure means: use the heuristic
            log.warning("tiktoken %s unavailable (%s); using the heuristic estimate", name, exc)
            _encoders[name] = None
    return _encoders[name]


def heuristic_count(text: str) -> int:
    """≈ 4 chars/token for mostly ASCII text, ≈ 2.5 when over 30% is not ASCII (Thai, CJK)."""
    if not text:
        return 0
    non_ascii = len(text) - len(text.encode("ascii", "ignore"))
    per_token = 2.5 if non_ascii > 0.3 * len(text) else 4.0
    return max(1, round(len(text) / per_token))


class TokenCounter:
    """Counts text, messages and tool schemas for one model; caches per message and schema."""

    def __init__(self, model: str | None = None, *, use_tiktoken: bool = True, lazy: bool = False) -> None:
        self.model = model
        self.encoding_name = encoding_name_for(model)
        self._use_tiktoken = use_tiktoken
        self.lazy = lazy
        """Count with the heuristic until tiktoken has been loaded by someone (`load_soon`,
        `wait_exact`), instead of loading it on the first count: the first request of a session
        is far from every threshold and need not wait ~0.3 s of CPU for an exact figure."""
        self.generation = 0
        """Bumped when a lazy counter switches from the heuristic to tiktoken: totals cached
        outside it (ConversationTally, the meter's calibration) are stale."""
        self._encode: Callable[[str], int] | None = None
        self._loaded = False
        self._message_cache: dict[Message, int] = {}
        self._schema_cache: dict[int, tuple[Any, int]] = {}
        self._text_cache: dict[str, int] = {}

    @property
    def exact(self) -> bool:
        """True when tiktoken is in use, False on the heuristic."""
        self._ensure_loaded()
        return self._encode is not None

    @property
    def provisional(self) -> bool:
        """A lazy counter still on the heuristic because tiktoken is not loaded yet."""
        self._ensure_loaded()
        return not self._loaded

    def current_generation(self) -> int:
        """`generation`, after switching to tiktoken if a thread finished loading it."""
        self._ensure_loaded()
        return self.generation

    def load_soon(self) -> None:
        """Start loading tiktoken in a thread; counts switch to it once it is there."""
        if self._use_tiktoken and not self._loaded:
            preload(self.model)

    def wait_exact(self) -> None:
        """Load tiktoken now (or wait for the loading thread) and count exactly from here on."""
        if not self._loaded:
            self._switch(_load_encoder(self.encoding_name) if self._use_tiktoken else None)

    def _ensure_loaded(self) -> None:
        if self._loaded:
            return
        if not self._use_tiktoken:
            self._switch(None)
        elif not self.lazy:
            self._switch(_load_encoder(self.encoding_name))
        elif self.encoding_name in _encoders:  # loaded by a thread meanwhile: exact from now on
            self._switch(_encoders[self.encoding_name])

    def _switch(self, encode: Callable[[str], int] | None) -> None:
        self._encode = encode
        self._loaded = True
        if self.lazy:  # what was counted so far is the heuristic's
            self._message_cache.clear()
            self._schema_cache.clear()
            self._text_cache.clear()
            self.generation += 1

    def count_text(self, text: str | None) -> int:
        if not text:
            return 0
        self._ensure_loaded()
        if self._encode is None:
            return heuristic_count(text)
        try:
            return self._encode(text)
        except Exception:  # noqa: BLE001 - e.g. special-token text: fall back, never fail
            return heuristic_count(text)

    def count_cached_text(self, text: str) -> int:
        """For text that recurs every turn (prompt sections): counted once."""
        n = self._text_cache.get(text)
        if n is None:
            n = self._text_cache[text] = self.count_text(text)
        return n

    def count_message(self, message: Message) -> int:
        n = self._message_cache.get(message)
        if n is None:
            n = MESSAGE_OVERHEAD + self.count_text(message.content)
            for call in message.tool_calls:
                n += TOOL_CALL_OVERHEAD + self.count_text(call.name)
                n += self.count_text(call.arguments)
            if message.name:
                n += 1 + self.count_text(message.name)
            if message.images:
                rule = provider_rule(self.model)
                n += sum(image_tokens(image, rule) for image in message.images)
            self._message_cache[message] = n
        return n

    def count_messages(self, messages: Sequence[Message]) -> int:
        return sum(map(self.count_message, messages))

    def count_tool_schema(self, schema: dict[str, Any]) -> int:
        """Tokens one tool definition costs in the request (cached by the dict's identity)."""
        hit = self._schema_cache.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1]
        n = TOOL_SCHEMA_OVERHEAD + self.count_text(json.dumps(schema, separators=(",", ":")))
        self._schema_cache[id(schema)] = (schema, n)  # holding the dict keeps its id unique
        return n

    def count_tools(self, schemas: Sequence[dict[str, Any]]) -> int:
        return sum(map(self.count_tool_schema, schemas))

    def forget(self) -> None:
        """Drop cached counts (after compaction the caller rebuilds rather than patches)."""
        self._message_cache.clear()


class ConversationTally:
    """The token total of a conversation that mostly grows at its end.

    Remembers the messages it last summed; when the new list starts with exactly those objects
    (an identity check at C speed), only the new tail is counted. Any other change — compaction,
    trimming a tool output in the middle — is a full recount from the per-message cache.
    """

    def __init__(self, counter: TokenCounter, role: str | None = None) -> None:
        self.counter = counter
        self.role = role
        """Count only messages of this role (e.g. "tool" for the tool-output budget)."""
        self._seen: list[Message] = []
        self._total = 0
        self._generation = counter.generation

    def _count(self, messages: Sequence[Message]) -> int:
        if self.role is None:
            return self.counter.count_messages(messages)
        return sum(self.counter.count_message(m) for m in messages if m.role == self.role)

    def total(self, messages: Sequence[Message]) -> int:
        generation = self.counter.current_generation()
        if self._generation != generation:  # the counter switched to tiktoken: recount
            self._generation = generation
            self._seen = []
        seen = self._seen
        n = len(seen)
        if n and len(messages) >= n and all(map(operator.is_, messages[:n], seen)):
            tail = messages[n:]
            if tail:
                self._total += self._count(tail)
                seen.extend(tail)
            return self._total
        self._seen = list(messages)
        self._total = self._count(messages)
        return self._total


class Calibration:
    """Anchors estimates to what the provider reported.

    After a call, the provider's `prompt_tokens` is the truth for what that request held. The next
    measurement is that figure plus the estimate of what was added since, scaled by the ratio
    reported/estimated observed on the last few calls. When the history was rewritten (compaction)
    the anchor no longer applies and the whole estimate is scaled instead.
    """

    def __init__(self, window: int = 5) -> None:
        self._ratios: deque[float] = deque(maxlen=window)
        self.anchor_reported: int | None = None
        self.anchor_estimate: int = 0
        self.anchor_first: Message | None = None
        self.anchor_last: Message | None = None
        self.anchor_length: int = 0
        self.marginal: float | None = None
        """reported/estimated for what was added between two anchored calls: new text's own
        ratio, which the whole-request average (dominated by the fixed prompt) hides."""

    @property
    def ratio(self) -> float:
        return sum(self._ratios) / len(self._ratios) if self._ratios else 1.0

    @property
    def calls(self) -> int:
        return len(self._ratios)

    def record(self, reported: int, estimate: int, conversation: Sequence[Message]) -> None:
        """Call after a provider reply: `estimate` is what we measured for that same request."""
        if reported <= 0 or estimate <= 0:
            return
        added = estimate - self.anchor_estimate
        if self._anchor_holds(conversation) and added >= 64:
            assert self.anchor_reported is not None
            marginal = (reported - self.anchor_reported) / added
            self.marginal = min(max(marginal, 0.25), 4.0)
        self._ratios.append(reported / estimate)
        self.anchor_reported = reported
        self.anchor_estimate = estimate
        self.anchor_length = len(conversation)
        self.anchor_first = conversation[0] if conversation else None
        self.anchor_last = conversation[-1] if conversation else None

    def seed(self, ratio: float) -> None:
        """Start from a ratio learned earlier (a pre-flight count, or the last session of this
        model): the first request is measured as the provider will count it."""
        if not self._ratios:
            self._ratios.append(ratio)

    def invalidate(self) -> None:
        """The history was rewritten: keep the ratio, drop the anchor."""
        self.anchor_reported = None

    def _anchor_holds(self, conversation: Sequence[Message]) -> bool:
        n = self.anchor_length
        if self.anchor_reported is None or len(conversation) < n:
            return False
        if n == 0:
            return True
        return conversation[0] is self.anchor_first and conversation[n - 1] is self.anchor_last

    def apply(self, estimate: int, conversation: Sequence[Message]) -> int:
        """The calibrated figure for a request whose raw estimate is `estimate`."""
        if self._anchor_holds(conversation):
            assert self.anchor_reported is not None
            added = estimate - self.anchor_estimate
            # Never below the average: underestimating is what overflows a window.
            scale = max(self.ratio, self.marginal or 0.0)
            return max(0, self.anchor_reported + round(added * scale))
        return round(estimate * self.ratio)
