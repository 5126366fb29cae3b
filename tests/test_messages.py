"""Messages round-trip losslessly to the OpenAI format and to JSON; usage sums as designed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agent_tui.base.messages import Message, ResultRef, TokenUsage, ToolCall

text = st.text(max_size=200)
ident = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=12)
calls = st.builds(ToolCall, id=ident, name=ident, arguments=text)
refs = st.builds(
    ResultRef,
    id=ident,
    byte_size=st.integers(0, 10**9),
    line_count=st.integers(0, 10**7),
    tool_name=ident,
    session_id=st.none() | ident,
)


@st.composite
def messages(draw):
    role = draw(st.sampled_from(["system", "user", "assistant", "tool"]))
    if role == "assistant":
        tool_calls = tuple(draw(st.lists(calls, max_size=3)))
        content = draw(st.none() | text) if tool_calls else draw(text)
        return Message(role=role, content=content, tool_calls=tool_calls)
    if role == "tool":
        return Message(
            role=role,
            content=draw(text),
            tool_call_id=draw(ident),
            name=draw(ident),
            output_ref=draw(st.none() | refs),
        )
    return Message(
        role=role, content=draw(text), kind=draw(st.sampled_from(["chat", "summary", "retain", "note"]))
    )


class TestRoundTrip:
    @given(messages())
    def test_json_round_trip_is_lossless(self, msg):
        """Every field, including id, kind and output_ref, survives JSON."""
        assert Message.loads(msg.dumps()) == msg

    @given(messages())
    def test_openai_round_trip_keeps_what_the_provider_sees(self, msg):
        """to_openai → from_openai gives back the same wire dict."""
        wire = msg.to_openai()
        again = Message.from_openai(wire, kind=msg.kind, id=msg.id, output_ref=msg.output_ref)
        assert again.to_openai() == wire
        assert again == Message(**{**msg.__dict__, "content": again.content})

    def test_openai_shape_of_a_tool_call(self):
        """Assistant tool calls use the function format litellm takes."""
        call = ToolCall("c1", "bash", '{"command": "ls"}')
        wire = Message(role="assistant", content=None, tool_calls=(call,)).to_openai()
        assert wire == {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command": "ls"}'},
                }
            ],
        }


class TestUsage:
    def test_total_is_the_sum_of_the_four_parts(self):
        u = TokenUsage(input=10, output=5, cache_creation=3, cache_read=7)
        assert u.total == 25 and u.prompt_tokens == 20

    def test_from_litellm_openai_cached_tokens(self):
        """OpenAI reports cached tokens inside prompt_tokens; input is what remains."""
        u = TokenUsage.from_litellm(
            {"prompt_tokens": 100, "completion_tokens": 9, "prompt_tokens_details": {"cached_tokens": 60}}
        )
        assert (u.input, u.cache_read, u.output, u.prompt_tokens) == (40, 60, 9, 100)

    def test_from_litellm_anthropic_cache_fields(self):
        u = TokenUsage.from_litellm(
            {
                "prompt_tokens": 150,
                "completion_tokens": 1,
                "cache_creation_input_tokens": 50,
                "cache_read_input_tokens": 90,
            }
        )
        assert (u.input, u.cache_creation, u.cache_read) == (10, 50, 90)
