"""Hypothesis strategies for message histories damaged the ways a crash or an edit damages them."""

from __future__ import annotations

from hypothesis import strategies as st

from agent_tui.agent.wire import unsent_marker
from agent_tui.base.messages import Message, ToolCall, assistant, tool_result, user

call_ids = st.integers(min_value=0, max_value=5).map(lambda i: f"c{i}")


arguments = st.sampled_from(['{"path": "a"}', "", '{"path": "x", "content": "ab', "[1, 2]", "nul\udcff"])


texts = st.sampled_from(["hi", "", "bad\udcffname", "[interrupted by the user]"])


@st.composite
def damaged_histories(draw: st.DrawFn) -> list[Message]:
    history: list[Message] = []
    for _ in range(draw(st.integers(min_value=0, max_value=12))):
        kind = draw(st.sampled_from(("user", "note", "assistant", "calls", "result", "unsent")))
        if kind == "user":
            history.append(user(draw(texts)))
        elif kind == "note":
            history.append(Message(role="user", content=draw(texts), kind="note"))
        elif kind == "assistant":
            history.append(assistant(draw(st.sampled_from([None, "", "ok", "x\udcff"]))))
        elif kind == "calls":
            ids = draw(st.lists(call_ids, min_size=1, max_size=3))
            history.append(assistant(None, tuple(ToolCall(i, "bash", draw(arguments)) for i in ids)))
        elif kind == "result":
            history.append(tool_result(ToolCall(draw(call_ids), "bash"), draw(texts)))
        elif history:
            history.append(unsent_marker(history[-1], "connection refused"))
    return history
