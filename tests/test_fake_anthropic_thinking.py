"""The local Anthropic server is strict about extended thinking the way the real API is: if it
accepted a tool-use turn without its thinking block, or with an altered one, the loop tests would
prove nothing. Plain HTTP here (httpx), so these run in milliseconds."""

from __future__ import annotations

import json

import httpx
import pytest

from testkit.anthropic_rules import sign
from testkit.fake_anthropic import FakeAnthropic, Reply

THINKING = {"type": "enabled", "budget_tokens": 1024}


@pytest.fixture
def server():
    with FakeAnthropic() as fake:
        yield fake


def post(server: FakeAnthropic, **body) -> httpx.Response:
    body = {"model": "claude-sonnet-4-5", "max_tokens": 2048, **body}
    return httpx.post(
        f"{server.base_url}/v1/messages",
        json=body,
        headers={"anthropic-version": "2023-06-01"},
        timeout=10,
    )


def events(response: httpx.Response) -> list[dict]:
    return [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]


def streamed_blocks(response: httpx.Response) -> list[dict]:
    """The content blocks of a streamed reply, assembled as a client does."""
    blocks: dict[int, dict] = {}
    for event in events(response):
        if event["type"] == "content_block_start":
            blocks[event["index"]] = dict(event["content_block"])
        elif event["type"] == "content_block_delta":
            block, delta = blocks[event["index"]], event["delta"]
            if delta["type"] == "thinking_delta":
                block["thinking"] += delta["thinking"]
            elif delta["type"] == "signature_delta":
                block["signature"] += delta["signature"]
            elif delta["type"] == "text_delta":
                block["text"] += delta["text"]
            elif delta["type"] == "input_json_delta":
                block["input"] = json.loads(delta["partial_json"])
    return [blocks[i] for i in sorted(blocks)]


def error_of(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    return body["error"]["message"]


USER = {"role": "user", "content": "look"}


def tool_turn(first: list[dict]) -> list[dict]:
    """user → assistant(first + tool_use) → tool_result: a request continuing a tool-use turn."""
    use = {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}
    return [USER, {"role": "assistant", "content": [*first, use]}, {"role": "user", "content": [result]}]


class TestStreaming:
    def test_thinking_streams_first_with_a_signature_derived_from_the_text(self, server):
        """thinking_delta pieces, one signature_delta, then the text; output counts the thinking."""
        server.enqueue(Reply(reasoning="Let me think about this carefully.", text="Done."))
        response = post(server, messages=[USER], stream=True, thinking=THINKING)
        blocks = streamed_blocks(response)
        assert [b["type"] for b in blocks] == ["thinking", "text"]
        assert blocks[0]["thinking"] == "Let me think about this carefully."
        assert blocks[0]["signature"] == sign(blocks[0]["thinking"])
        deltas = [e["delta"]["type"] for e in events(response) if e["type"] == "content_block_delta"]
        assert deltas.count("signature_delta") == 1 and deltas.count("thinking_delta") > 1
        output = [e for e in events(response) if e["type"] == "message_delta"][0]["usage"]["output_tokens"]
        plain = FakeAnthropic()
        with plain:
            plain.enqueue(Reply(text="Done."))
            alone = [
                e for e in events(post(plain, messages=[USER], stream=True)) if e["type"] == "message_delta"
            ]
        assert output > alone[0]["usage"]["output_tokens"]

    def test_redacted_blocks_follow_and_no_thinking_without_the_request_asking(self, server):
        """Redacted blocks carry sealed data; a request without `thinking` gets no thinking."""
        server.enqueue(
            Reply(reasoning="hm", redacted_thinking=("secret",), text="ok"), Reply(reasoning="hm", text="ok")
        )
        blocks = streamed_blocks(post(server, messages=[USER], stream=True, thinking=THINKING))
        assert [b["type"] for b in blocks] == ["thinking", "redacted_thinking", "text"]
        assert "secret" not in blocks[1]["data"]
        assert [b["type"] for b in streamed_blocks(post(server, messages=[USER], stream=True))] == ["text"]


class TestRejections:
    def test_tool_use_turn_without_its_thinking_block_is_rejected(self, server):
        """The real API's 400 and wording, pointing at the assistant message that lacks it."""
        message = error_of(post(server, messages=tool_turn([]), thinking=THINKING))
        assert message.startswith("messages.1.content.0.type: Expected `thinking` or `redacted_thinking`")
        assert "but found `tool_use`" in message and "disable `thinking`" in message

    def test_the_turn_is_judged_by_its_first_assistant_message(self, server):
        """Later steps of the turn may go without thinking (the model thinks once per turn)."""
        messages = tool_turn([{"type": "thinking", "thinking": "t", "signature": sign("t")}])
        use = {"type": "tool_use", "id": "toolu_2", "name": "ls", "input": {}}
        result = {"type": "tool_result", "tool_use_id": "toolu_2", "content": "b"}
        messages += [{"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}]
        assert post(server, messages=messages, thinking=THINKING).status_code == 200
        messages[1] = {"role": "assistant", "content": [messages[1]["content"][1]]}
        assert "messages.1.content.0.type" in error_of(post(server, messages=messages, thinking=THINKING))

    def test_altered_thinking_or_signature_is_rejected_even_without_thinking_enabled(self, server):
        """Text changed, signature changed, redacted data changed: each is a 400."""
        good = {"type": "thinking", "thinking": "plan", "signature": sign("plan")}
        assert post(server, messages=tool_turn([good]), thinking=THINKING).status_code == 200
        for bad in (
            {**good, "thinking": "plan!"},
            {**good, "signature": sign("other")},
            {"type": "redacted_thinking", "data": "c2VjcmV0.forged"},
        ):
            message = error_of(post(server, messages=tool_turn([bad])))
            assert message.startswith("messages.1.content.0: Invalid `")

    def test_a_new_turn_needs_no_thinking_block(self, server):
        """Earlier turns' assistant messages may lack thinking: the API drops those itself."""
        messages = [
            *tool_turn([]),
            {"role": "assistant", "content": "done"},
            {"role": "user", "content": "next"},
        ]
        assert post(server, messages=messages, thinking=THINKING).status_code == 200

    def test_budget_rules(self, server):
        """budget_tokens ≥ 1024 and max_tokens above it, as the API requires."""
        small = error_of(post(server, messages=[USER], thinking={"type": "enabled", "budget_tokens": 512}))
        assert "greater than or equal to 1024" in small
        over = error_of(post(server, messages=[USER], max_tokens=1024, thinking=THINKING))
        assert over.startswith("`max_tokens` must be greater than `thinking.budget_tokens`")
