"""The provider's search across requests (issue 45, web search): the `server_tool_use` and
`web_search_tool_result` blocks of a reply go back, verbatim with their sealed
`encrypted_content`, in every later request — within the turn, in the next turn and after a
resume — and a reply the server paused (`stop_reason: pause_turn`) is sent back so the server can
finish it, instead of ending the turn. End to end through the real headless `run` against the
local Anthropic server, which refuses altered or unpaired search blocks as the API does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.runtime import paths
from testkit.anthropic_rules import seal
from testkit.fake_anthropic import FakeAnthropic
from testkit.fake_openai import Reply
from tests.support.cli import run_cli

KEY = "sk-ant-test-dummy"
SOURCES = [("Textual 1.0 released", "https://textual.example/blog/1-0")]


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropic(api_key=KEY) as fake:
        yield fake


@pytest.fixture(autouse=True)
def search_on() -> None:
    file = paths.user_config_file()
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text("[web]\nsearch = true\n")


def run(server: FakeAnthropic, cwd: Path, prompt: str, *more: str) -> list[dict]:
    args = ["run", prompt, "--json", "--yes", "--sandbox", "off", *more]
    args += [
        "--model",
        "anthropic/claude-sonnet-4-5",
        "--api-base",
        server.base_url,
        "--db",
        str(cwd / "s.db"),
    ]
    done = run_cli(args, cwd)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def search_blocks(message: dict) -> list[dict]:
    content = message.get("content")
    kinds = ("server_tool_use", "web_search_tool_result")
    return [p for p in content if p.get("type") in kinds] if isinstance(content, list) else []


def sent_back(body: dict) -> list[dict]:
    """The search blocks a request carries, in order."""
    return [b for m in body["messages"] if m["role"] == "assistant" for b in search_blocks(m)]


def assert_the_search(blocks: list[dict]) -> None:
    use, result = blocks
    assert use["type"] == "server_tool_use" and use["input"] == {"query": "textual release"}
    assert result["type"] == "web_search_tool_result" and result["tool_use_id"] == use["id"]
    url = "https://textual.example/blog/1-0"
    assert result["content"][0]["encrypted_content"] == seal(url)


def test_the_search_goes_back_in_the_next_request_of_the_turn(server, tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n")
    server.enqueue(
        Reply(
            text="Let me look.",
            web_searches=[("textual release", SOURCES)],
            tool_calls=[("glob", {"pattern": "*.txt"})],
        ),
        Reply(text="Textual 1.0 is out."),
    )
    events = run(server, tmp_path, "what is new in textual?")
    assert len(server.requests) == 2
    assert_the_search(sent_back(server.requests[1]))
    assert events[-1]["type"] == "turn_finished" or any(e["type"] == "turn_finished" for e in events)


def test_the_search_goes_back_in_the_next_turn_after_a_resume(server, tmp_path):
    server.enqueue(Reply(text="Textual 1.0 is out.", web_searches=[("textual release", SOURCES)]))
    run(server, tmp_path, "what is new in textual?")
    server.enqueue(Reply(text="It was released in December."))
    run(server, tmp_path, "when?", "--continue")
    assert_the_search(sent_back(server.requests[1]))
    assistant = [m for m in server.requests[1]["messages"] if m["role"] == "assistant"]
    assert [p["type"] for p in assistant[0]["content"]][-1] == "text"  # the answer after its sources


def test_a_paused_reply_is_sent_back_for_the_server_to_finish(server, tmp_path):
    server.enqueue(
        Reply(web_searches=[("textual release", SOURCES)], finish_reason="pause_turn"),
        Reply(text="Textual 1.0 is out."),
    )
    events = run(server, tmp_path, "what is new in textual?")
    assert len(server.requests) == 2
    last = server.requests[1]["messages"][-1]
    assert last["role"] == "assistant"  # the paused reply itself, nothing after it
    assert_the_search(search_blocks(last))
    searches = [e for e in events if e["type"] == "tool_call_started"]
    assert [e["call"]["name"] for e in searches] == ["web_search"]
    texts = "".join(e.get("text", "") for e in events if e["type"] == "text_delta")
    assert "Textual 1.0 is out." in texts
    finished = [e for e in events if e["type"] == "turn_finished"]
    assert finished and finished[-1]["stop_reason"] == "done"


def test_the_searches_a_message_sends_back_are_on_the_meter():
    from dataclasses import replace

    from agent_tui.base.messages import assistant
    from agent_tui.base.tokens import TokenCounter

    counter = TokenCounter()
    plain = assistant("Textual 1.0 is out.")
    result = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": "page " * 400}
    searched = replace(plain, server_blocks=(json.dumps(result),))
    assert counter.count_message(searched) >= counter.count_message(plain) + 400


def test_with_the_search_turned_off_the_old_searches_stay_home(server, tmp_path):
    server.enqueue(Reply(text="Textual 1.0 is out.", web_searches=[("textual release", SOURCES)]))
    run(server, tmp_path, "what is new in textual?")
    paths.user_config_file().write_text("[web]\nsearch = false\n")
    server.enqueue(Reply(text="It was released in December."))
    run(server, tmp_path, "when?", "--continue")  # the API refuses search blocks without the tool
    assert sent_back(server.requests[1]) == []
    assistant = [m for m in server.requests[1]["messages"] if m["role"] == "assistant"]
    assert assistant[0]["content"][0]["text"] == "Textual 1.0 is out."
