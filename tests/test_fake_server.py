"""The test server is strict the way OpenAI is: if it accepted anything, agent tests would prove
nothing. Plain HTTP here (httpx), no litellm, so these run in milliseconds."""

from __future__ import annotations

import json

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from testkit import FakeOpenAI, Reply
from testkit.openai_shapes import pairing_error, split_text


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


def post(server: FakeOpenAI, body: dict, **headers: str) -> httpx.Response:
    return httpx.post(f"{server.base_url}/chat/completions", json=body, headers=headers, timeout=10)


def chat(*messages: dict, **extra) -> dict:
    return {"model": "fake-model", "messages": list(messages), **extra}


def call(cid: str, name: str = "bash", args: str = "{}") -> dict:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


USER = {"role": "user", "content": "run it"}


def asks(*ids: str) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [call(i) for i in ids]}


def result(cid: str) -> dict:
    return {"role": "tool", "tool_call_id": cid, "content": "ok"}


def sse(response: httpx.Response) -> list[dict | str]:
    out: list[dict | str] = []
    for block in response.text.split("\n\n"):
        if block.startswith("data: "):
            data = block[len("data: ") :]
            out.append(data if data == "[DONE]" else json.loads(data))
    return out


class TestPairing:
    def test_paired_calls_accepted(self, server):
        """Every call answered, in any order, is a valid request."""
        body = chat(USER, asks("a", "b"), result("b"), result("a"), {"role": "user", "content": "go"})
        assert post(server, body).status_code == 200

    def test_missing_result_rejected(self, server):
        """A call whose result never comes is OpenAI's 400, naming the call id."""
        r = post(server, chat(USER, asks("a", "b"), result("a"), {"role": "user", "content": "x"}))
        assert r.status_code == 400
        err = r.json()["error"]
        assert err["type"] == "invalid_request_error"
        assert "did not have response messages: b" in err["message"]

    def test_orphan_tool_message_rejected(self, server):
        """A tool message that answers no preceding call is rejected."""
        r = post(server, chat(USER, result("zzz")))
        assert r.status_code == 400
        assert "must be a response to a preceeding message with 'tool_calls'" in r.text

    def test_duplicate_result_rejected(self, server):
        """Exactly one result per call: a second answer to the same id is an orphan."""
        assert post(server, chat(USER, asks("a"), result("a"), result("a"))).status_code == 400

    def test_trailing_tool_calls_rejected(self, server):
        """A history ending in an assistant message with tool calls is rejected."""
        r = post(server, chat(USER, asks("a")))
        assert r.status_code == 400
        assert r.json()["error"]["param"] == "messages.[1].role"

    def test_rejected_requests_are_recorded(self, server):
        """What was refused is still in `requests`, so a test can see what was sent."""
        post(server, chat(USER, asks("a")))
        assert server.requests[0]["messages"][1]["tool_calls"][0]["id"] == "a"


@st.composite
def conversations(draw):
    messages: list[dict] = [USER]
    n = 0
    for _ in range(draw(st.integers(0, 5))):
        ids = [f"c{n + i}" for i in range(draw(st.integers(1, 3)))]
        n += len(ids)
        messages.append(asks(*ids))
        messages += [result(i) for i in draw(st.permutations(ids))]
        messages.append({"role": "user", "content": "next"})
    return messages


class TestPairingProperties:
    @settings(max_examples=60, deadline=None)
    @given(conversations(), st.data())
    def test_removing_any_tool_message_breaks_pairing(self, messages, data):
        """A well-paired history passes; dropping any one tool result or call message fails."""
        assert pairing_error(messages) is None
        victims = [i for i, m in enumerate(messages) if m["role"] == "tool" or m.get("tool_calls")]
        if victims:
            i = data.draw(st.sampled_from(victims))
            assert pairing_error(messages[:i] + messages[i + 1 :]) is not None


class TestWindow:
    def test_prompt_at_window_accepted_one_over_rejected(self, server):
        """The window is exact: prompt == window passes, window - 1 gets the context error."""
        body = chat({"role": "user", "content": "word " * 300})
        prompt = server.prompt_tokens_of(body)
        server.window = prompt
        assert post(server, body).status_code == 200
        server.window = prompt - 1
        r = post(server, body)
        assert r.status_code == 400
        err = r.json()["error"]
        assert err["code"] == "context_length_exceeded"
        assert err["message"].startswith(f"This model's maximum context length is {prompt - 1} tokens.")

    def test_max_tokens_counts_against_window(self, server):
        """prompt + max_tokens over the window is rejected, with OpenAI's wording for it."""
        body = chat(USER, max_tokens=10)
        server.window = server.prompt_tokens_of(body) + 9
        r = post(server, body)
        assert r.status_code == 400
        assert "in the completion" in r.json()["error"]["message"]

    def test_tool_schemas_count(self, server):
        """Tool definitions are part of the prompt the server counts."""
        tool = {"type": "function", "function": {"name": "bash", "description": "x " * 200}}
        assert server.prompt_tokens_of(chat(USER, tools=[tool])) > server.prompt_tokens_of(chat(USER)) + 200


class TestIndependentCount:
    def test_server_counts_differently_from_the_client(self, server):
        """The server's tokenizer configuration is its own: for the same request it disagrees
        with the project's TokenCounter, so budget tests cannot pass by construction."""
        from agent_tui.base.messages import ToolCall, assistant, tool_result, user
        from agent_tui.base.tokens import TokenCounter

        call = ToolCall("call_1", "read_file", '{"path": "src/naïve_módulo.py"}')
        history = [
            user("Пожалуйста, посмотри модуль 数据处理 and explain the ünïcode handling " * 20),
            assistant(None, (call,)),
            tool_result(call, "def f():\n    return '€' * 3  # ✓\n" * 40),
            assistant("It repeats the euro sign three times. " * 10),
        ]
        body = chat(*(m.to_openai() for m in history))
        client = TokenCounter("fake-model").count_messages(history)
        assert server.prompt_tokens_of(body) != client

    def test_fake_servers_do_not_import_the_project_counter(self):
        """testkit's servers load without agent_tui.base.tokens."""
        import subprocess
        import sys

        code = (
            "import sys, testkit.fake_openai, testkit.fake_anthropic; "
            "print(sorted(m for m in sys.modules if m.startswith('agent_tui')))"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert out.stdout.strip() == "[]"


class TestStreamShape:
    def test_text_and_tool_call_deltas(self, server):
        """SSE in OpenAI's order: role, text pieces, call head then argument pieces, finish, usage."""
        server.enqueue(Reply(text="one two three four five", tool_calls=[("bash", {"cmd": "ls -la"})]))
        body = chat(USER, stream=True, stream_options={"include_usage": True})
        r = post(server, body)
        assert r.headers["content-type"] == "text/event-stream"
        events = sse(r)
        assert events[-1] == "[DONE]"
        chunks = [e for e in events if isinstance(e, dict)]
        assert all(c["object"] == "chat.completion.chunk" for c in chunks)
        deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
        assert deltas[0]["role"] == "assistant"
        texts = [d["content"] for d in deltas if d.get("content")]
        assert len(texts) > 1 and "".join(texts) == "one two three four five"
        call_deltas = [d["tool_calls"][0] for d in deltas if d.get("tool_calls")]
        head, *rest = call_deltas
        assert head["id"].startswith("call_") and head["function"]["name"] == "bash"
        assert len(rest) > 1 and all("id" not in d and d["index"] == 0 for d in rest)
        args = "".join(d["function"]["arguments"] for d in rest)
        assert json.loads(args) == {"cmd": "ls -la"}
        assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
        usage = chunks[-1]["usage"]
        assert chunks[-1]["choices"] == []
        assert usage["prompt_tokens"] == server.prompt_tokens_of(body)
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]

    def test_no_usage_chunk_unless_asked(self, server):
        """Without stream_options.include_usage no chunk carries usage."""
        chunks = [e for e in sse(post(server, chat(USER, stream=True))) if isinstance(e, dict)]
        assert all("usage" not in c for c in chunks)
        assert chunks[-1]["choices"][0]["finish_reason"] == "stop"

    def test_cached_tokens_reported(self, server):
        """Reply.cached_tokens appears as prompt_tokens_details.cached_tokens."""
        server.enqueue(Reply(text="hi", cached_tokens=4))
        events = sse(post(server, chat(USER, stream=True, stream_options={"include_usage": True})))
        assert events[-2]["usage"]["prompt_tokens_details"]["cached_tokens"] == 4

    def test_stream_options_without_stream_rejected(self, server):
        """stream_options on a non-streamed request is a 400, as on OpenAI."""
        assert post(server, chat(USER, stream_options={"include_usage": True})).status_code == 400

    def test_split_text_round_trips(self):
        """Streamed pieces join back to the exact text, whitespace included."""
        text = "  a  b\nc d\te  "
        assert "".join(split_text(text, 1)) == text and len(split_text(text, 1)) > 3

    def test_repeated_pieces_coalesce(self):
        """Filler text never yields identical consecutive chunks (litellm aborts on 100 of them)."""
        pieces = split_text("x " * 500 + "end", 1)
        assert "".join(pieces) == "x " * 500 + "end"
        assert all(a != b for a, b in zip(pieces, pieces[1:], strict=False))


class TestProtocol:
    def test_non_streamed_completion(self, server):
        """A plain request gets a chat.completion with the text, calls and usage."""
        server.enqueue(Reply(text="done", tool_calls=[("read", {"path": "a"})]))
        data = post(server, chat(USER)).json()
        message = data["choices"][0]["message"]
        assert message["content"] == "done"
        assert json.loads(message["tool_calls"][0]["function"]["arguments"]) == {"path": "a"}
        assert data["choices"][0]["finish_reason"] == "tool_calls"
        assert data["usage"]["prompt_tokens"] == server.prompt_tokens_of(chat(USER))

    def test_models_endpoint(self, server):
        """GET /v1/models lists the served model."""
        data = httpx.get(f"{server.base_url}/models").json()
        assert [m["id"] for m in data["data"]] == ["fake-model"]

    def test_unknown_model_is_404(self, server):
        """A model the server does not serve is OpenAI's model_not_found."""
        r = post(server, {"model": "gpt-nope", "messages": [USER]})
        assert r.status_code == 404 and r.json()["error"]["code"] == "model_not_found"

    def test_wrong_key_is_401(self):
        """With api_key set, a request carrying another key gets invalid_api_key."""
        with FakeOpenAI(api_key="sk-right") as server:
            assert post(server, chat(USER), Authorization="Bearer sk-wrong").status_code == 401
            assert post(server, chat(USER), Authorization="Bearer sk-right").status_code == 200
            assert server.authorizations == ["Bearer sk-wrong", "Bearer sk-right"]

    def test_scripted_then_responder(self):
        """Queued replies go first, in order; then the responder answers, seeing the request."""
        seen: list[dict] = []

        def responder(request: dict) -> Reply:
            seen.append(request)
            return Reply(text=f"n={len(request['messages'])}")

        with FakeOpenAI(responder=responder) as server:
            server.enqueue(Reply(text="first"), Reply(text="second"))
            texts = [post(server, chat(USER)).json()["choices"][0]["message"]["content"] for _ in range(3)]
        assert texts == ["first", "second", "n=1"] and len(seen) == 1

    def test_rate_limit_has_retry_after(self, server):
        """A scripted 429 carries Retry-After and OpenAI's rate-limit body."""
        server.enqueue(Reply(status=429, retry_after=0.5))
        r = post(server, chat(USER))
        assert r.status_code == 429 and r.headers["retry-after"] == "0.5"
        assert r.json()["error"]["code"] == "rate_limit_exceeded"

    def test_dropped_connection(self, server):
        """drop_connection closes the socket with no response at all."""
        server.enqueue(Reply(drop_connection=True))
        with pytest.raises(httpx.TransportError):
            post(server, chat(USER))
