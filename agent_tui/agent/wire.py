"""The wire-validity step: whatever the history holds, what goes to the provider is a history
every provider and every strict chat template accepts.

A session could break for good on things the history legitimately holds: a tool call whose
result never came (agent-tui was killed mid-tool), a call cut off by the output limit
(`{"path": "x", "content": "abc`, which llama.cpp's server answers with 500 on every later
request), two user turns in a row (an interruption note, then the next message; Gemma's template
rejects that), a lone surrogate from an undecodable file name. Two pure steps fix that:

- `repairs` finds what the transcript itself must gain (a result for every unanswered call, as
  `[interrupted: …]`); the session appends those, so the transcript stays append-only and says
  what happened.
- `WireView` maps the history to the messages actually sent: every call directly followed by
  its results, orphans dropped, consecutive user turns merged, arguments always a JSON object,
  text always valid UTF-8. It returns the very same message objects where nothing changes (and
  the same replacement objects from one request to the next), so the request builder's per-message
  cache keeps working and the provider's prompt cache keeps its prefix.

Failed sends (`kind="unsent"` markers) are dropped from what resume loads by `without_unsent`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

from agent_tui.base.errors_text import one_line
from agent_tui.base.messages import Message, ToolCall, tool_result
from agent_tui.base.same_prefix import same_prefix
from agent_tui.base.utf8 import clean_text

INTERRUPTED_TOOL = "[interrupted: agent-tui stopped before this tool finished]"
"""The result a call gets when agent-tui stopped (was killed) before the tool finished."""
MISSING_RESULT = "[no result: this call's result was lost]"
"""What the wire shows for a call whose result is nowhere in the history (never stored)."""
UNSENT_PREFIX = "unsent_"
"""A failed send's marker has the id `unsent_<id of the message that was not sent>`."""


def valid_arguments(arguments: str) -> str:
    """Tool-call arguments as a JSON object text: as they are when they parse to an object,
    `{}` when empty, else wrapped as `{"_invalid_arguments": "<the text>"}`."""
    if not arguments.strip():
        return "{}"
    try:
        value = json.loads(arguments)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return arguments
    return json.dumps({"_invalid_arguments": arguments}, ensure_ascii=False)


def arguments_complete(call: ToolCall) -> bool:
    """Whether the call's arguments are one whole JSON object (empty counts as `{}`)."""
    return valid_arguments(call.arguments) is call.arguments or not call.arguments.strip()


def unanswered_calls(history: Sequence[Message]) -> list[ToolCall]:
    """Calls that no tool message anywhere in the history answers, oldest first."""
    answered = {m.tool_call_id for m in history if m.role == "tool"}
    return [
        call for m in history if m.role == "assistant" for call in m.tool_calls if call.id not in answered
    ]


def repairs(history: Sequence[Message]) -> list[Message]:
    """What the transcript must gain for the history to be answerable: one interrupted result
    per unanswered call (each once: a call id seen twice is answered once)."""
    return _interrupted(unanswered_calls(history))


def _interrupted(calls: Sequence[ToolCall]) -> list[Message]:
    out: list[Message] = []
    seen: set[str] = set()
    for call in calls:
        if call.id not in seen:
            seen.add(call.id)
            out.append(tool_result(call, INTERRUPTED_TOOL, outcome="cancelled"))
    return out


def unsent_marker(message: Message, reason: str) -> Message:
    """The transcript's record that `message` failed to send (resume leaves both out)."""
    text = one_line(reason, 300)
    return Message(
        role="user", content=f"[not sent: {text}]", kind="unsent", id=f"{UNSENT_PREFIX}{message.id}"
    )


def without_unsent(history: Sequence[Message]) -> list[Message]:
    """The history without failed sends and their markers."""
    failed = {m.id[len(UNSENT_PREFIX) :] for m in history if m.kind == "unsent"}
    if not failed:
        return list(history)
    return [m for m in history if m.kind != "unsent" and m.id not in failed]


class Scan:
    """`repairs` and the check for failed sends, kept up to date as the history grows: before
    every request the session asks both of a history that is usually the last one plus a few
    messages, so only those are scanned (the rest is checked to be the very same objects, as in
    WireView); a history that was rewritten is scanned afresh."""

    def __init__(self) -> None:
        self._start_over()

    def _start_over(self) -> None:
        self._seen: list[Message] = []
        self._answered: set[str | None] = set()
        self._calls: list[ToolCall] = []
        """The calls of the scanned messages no tool message answered, oldest first."""
        self._unsent = False

    def _update(self, history: Sequence[Message]) -> None:
        if same_prefix(history, self._seen) < len(self._seen):
            self._start_over()
        tail = history[len(self._seen) :]
        if not tail:
            return
        self._seen.extend(tail)
        self._answered.update(m.tool_call_id for m in tail if m.role == "tool")
        self._calls.extend(call for m in tail if m.role == "assistant" for call in m.tool_calls)
        self._calls = [call for call in self._calls if call.id not in self._answered]
        self._unsent = self._unsent or any(m.kind == "unsent" for m in tail)

    def repairs(self, history: Sequence[Message]) -> list[Message]:
        """The same as `repairs(history)`."""
        self._update(history)
        return _interrupted(self._calls)

    def has_unsent(self, history: Sequence[Message]) -> bool:
        """Whether `without_unsent(history)` would leave anything out."""
        self._update(history)
        return self._unsent


class WireView:
    """Maps a history to the messages the provider gets; see the module docstring.

    Each step's history is usually the last one plus a few messages, so the walk resumes where
    the last one stopped: the messages already walked are checked to be the very same objects
    (a C-speed identity scan), and only the new tail is mapped. Anything else — a compaction,
    an undo, a repair that answers a call the earlier walk found unanswered — walks afresh, so
    the result is always what a fresh walk of the whole history gives."""

    def __init__(self) -> None:
        self._memo: dict[tuple[str, ...], Message] = {}
        self._walked = _Walk()

    def _remember(self, key: tuple[str, ...], make: Message) -> Message:
        found = self._memo.get(key)
        # The same key with the same text keeps the first object (a synthetic message has a
        # fresh id each time it is made); a changed text (or reasoning) replaces it.
        if found is None or (found.content, found.tool_calls, found.reasoning, found.images) != (
            make.content,
            make.tool_calls,
            make.reasoning,
            make.images,
        ):
            found = self._memo[key] = make
        return found

    def __call__(self, history: Sequence[Message]) -> list[Message]:
        if len(self._memo) > 4 * len(history) + 1000:
            self._memo.clear()
        walk = self._walked
        if not walk.continues(history):
            walk = self._walked = _Walk()
        try:
            return self._walk(walk, history)
        except BaseException:
            self._walked = _Walk()  # a walk left half done is never resumed
            raise

    def _walk(self, walk: _Walk, history: Sequence[Message]) -> list[Message]:
        tail = history[len(walk.seen) :]
        walk.seen.extend(tail)
        for m in tail:
            if m.role == "tool" and m.tool_call_id is not None:
                walk.results.setdefault(m.tool_call_id, m)
        out, used = walk.out, walk.used
        for m in tail:
            if m.role == "tool":
                continue  # placed right after the call it answers, or an orphan: dropped
            m = self._clean(m)
            if m.role == "assistant" and m.tool_calls:
                m = self._with_valid_calls(m)
                previous = out[-1] if out else None
                if previous is not None and _mergeable(previous, m):
                    out[-1] = self._merge(previous, m)
                else:
                    out.append(m)
                here: set[str] = set()
                for call in m.tool_calls:
                    if call.id in here:
                        continue  # the same id twice in one reply: one result answers both
                    here.add(call.id)
                    found = walk.results.get(call.id) if call.id not in used else None
                    if found is None and call.id not in walk.results:
                        walk.unanswered.add(call.id)  # a result appended later changes this part
                    used.add(call.id)
                    if found is None:  # never answered, or its result went to an earlier call
                        synthetic = tool_result(call, MISSING_RESULT, outcome="not_run")
                        found = self._remember(("missing", m.id, call.id), synthetic)
                    out.append(self._clean(found))
                continue
            previous = out[-1] if out else None
            if previous is not None and _mergeable(previous, m):
                out[-1] = self._merge(previous, m)
                continue
            if m.role == "assistant" and m.content is None:
                m = self._remember(("empty", m.id), replace(m, content=""))
            out.append(m)
        return list(out)

    def _merge(self, previous: Message, m: Message) -> Message:
        """One turn of two: the texts joined, the later one's calls kept."""
        text = "\n\n".join(t for t in (previous.content, m.content) if t)
        merged = replace(
            m,
            content=text or ("" if not m.tool_calls else None),
            id=f"{previous.id}+{m.id}",
            images=previous.images + m.images,
        )
        return self._remember(("merge", previous.id, m.id), merged)

    def _clean(self, m: Message) -> Message:
        content = m.content
        if content is None or clean_text(content) is content:
            names = (m.name or "",) + tuple(c.name + c.arguments for c in m.tool_calls)
            if all(clean_text(n) is n for n in names):
                return m
        calls = tuple(
            replace(c, name=clean_text(c.name), arguments=clean_text(c.arguments)) for c in m.tool_calls
        )
        fixed = replace(
            m,
            content=None if content is None else clean_text(content),
            name=None if m.name is None else clean_text(m.name),
            tool_calls=calls,
        )
        return self._remember(("clean", m.id), fixed)

    def _with_valid_calls(self, m: Message) -> Message:
        valid = [valid_arguments(c.arguments) for c in m.tool_calls]
        if all(a is c.arguments for a, c in zip(valid, m.tool_calls, strict=True)):
            return m
        calls = tuple(replace(c, arguments=a) for a, c in zip(valid, m.tool_calls, strict=True))
        return self._remember(("args", m.id), replace(m, tool_calls=calls))


class _Walk:
    """How far WireView got: the messages walked, what they mapped to, and what a later message
    could still change (a call that had no result anywhere yet)."""

    def __init__(self) -> None:
        self.seen: list[Message] = []
        self.out: list[Message] = []
        self.results: dict[str, Message] = {}
        """The first result for each call id, anywhere in the walked messages."""
        self.used: set[str] = set()
        """Call ids whose result is already placed (one result answers one call)."""
        self.unanswered: set[str] = set()
        """Call ids that got MISSING_RESULT because no result existed when they were walked."""

    def continues(self, history: Sequence[Message]) -> bool:
        """Whether `history` is the walked messages, the very same objects, plus new ones that
        leave every mapped part as it is."""
        seen = self.seen
        if not seen or len(history) < len(seen) or same_prefix(history, seen) < len(seen):
            return False
        unanswered = self.unanswered
        return not unanswered or not any(
            m.role == "tool" and m.tool_call_id in unanswered for m in history[len(seen) :]
        )


def _mergeable(previous: Message, m: Message) -> bool:
    """Two turns of one side in a row that strict templates would reject."""
    if previous.role != m.role:
        return False
    if m.role == "user":
        return True
    return m.role == "assistant" and not previous.tool_calls
