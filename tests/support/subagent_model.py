"""A scripted model for sub-agent tests, for both local servers (OpenAI-compatible, Anthropic).

The parent and its children share one server; a request is a child's when its system prompt
holds the sub-agent preamble. The parent follows `parent` (a function of the request); each child
follows `child`. Only the request bodies decide, so concurrent children need no ordering.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from typing import Any

from agent_tui.agent.subagents import CHILD_PROMPT
from testkit.fake_openai import Reply

Body = dict[str, Any]


def is_child(body: Body) -> bool:
    head = json.dumps(body.get("system", "")) + json.dumps(body["messages"][:1])
    return CHILD_PROMPT[:40] in head


def is_summary(body: Body) -> bool:
    return not body.get("tools") and "<conversation>" in json.dumps(body)


def after_tool(body: Body) -> bool:
    """The request answers a tool result (the model's calls ran)."""
    last = body["messages"][-1]
    if last.get("role") == "tool":
        return True
    content = last.get("content")
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )


def tool_results(body: Body) -> list[str]:
    """The text of every tool result of the newest step (both wire formats)."""
    out: list[str] = []
    for message in reversed(body["messages"]):
        if message.get("role") == "tool":
            out.append(str(message.get("content")))
            continue
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content
        ):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    inner = block.get("content")
                    out.append(inner if isinstance(inner, str) else json.dumps(inner))
            continue
        break
    return list(reversed(out))


def first_user_text(body: Body) -> str:
    for message in body["messages"]:
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return ""


def newest_user_text(body: Body) -> str:
    """The newest message the user typed (tool results and notes on the Anthropic wire are user
    messages too: skipped)."""
    for message in reversed(body["messages"]):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
            if texts and not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
                return " ".join(texts)
    return ""


def steps(body: Body) -> int:
    """Assistant messages in the request: how many model calls the session made before it."""
    return sum(1 for m in body["messages"] if m.get("role") == "assistant")


class Model:
    """Routes each request to the parent's or a child's script, recording both."""

    def __init__(
        self,
        parent: Callable[[Body], Reply],
        child: Callable[[Body], Reply],
        summary: Callable[[Body], Reply] | None = None,
    ) -> None:
        self.parent = parent
        self.child = child
        self.summary = summary or (
            lambda body: Reply(text="<retain></retain><summary>earlier work</summary>")
        )
        self.parent_requests: list[Body] = []
        self.child_requests: list[Body] = []
        self.lock = threading.Lock()

    def __call__(self, body: Body) -> Reply:
        if is_summary(body):
            return self.summary(body)
        if is_child(body):
            with self.lock:
                self.child_requests.append(body)
            return self.child(body)
        with self.lock:
            self.parent_requests.append(body)
        return self.parent(body)


class Gate:
    """Holds each of `count` first requests until all have arrived (or `limit` seconds pass):
    they were in flight at once exactly when `met` is True. Syncs on arrivals, not on delays."""

    def __init__(self, count: int, limit: float = 30.0) -> None:
        self.count = count
        self.limit = limit
        self._seen = 0
        self._lock = threading.Lock()
        self._all = threading.Event()
        self.met = False

    def arrive(self) -> None:
        with self._lock:
            self._seen += 1
            if self._seen == self.count:
                self._all.set()
        if self._all.wait(self.limit):
            self.met = True


URI = re.compile(r"ctx://\S+?/(s_[0-9a-f]{12})/messages:1-\d+")
SHORT = re.compile(r"s_[0-9a-f]{12}/m_1-\d+")
REF = re.compile(r"ref=(r_[0-9a-f]{10})")
