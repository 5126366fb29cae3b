"""Web search through the provider's own server-side tool (issue 45 #2), end to end through the
real headless `run` against the local Anthropic server: the search's query and sources come out
as a tool call with a ref, the stored output holds the sources, and with `[web] search` off the
request offers no search tool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.runtime import paths
from agent_tui.store import open_store
from testkit.fake_anthropic import FakeAnthropic
from testkit.fake_openai import Reply
from tests.support.cli import run_cli

KEY = "sk-ant-test-dummy"
SOURCES = [
    ("Textual 1.0 released", "https://textual.example/blog/1-0"),
    ("Changelog", "https://pypi.example/textual"),
]


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropic(api_key=KEY) as fake:
        yield fake


def _user_config(text: str) -> None:
    file = paths.user_config_file()
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text)


def _run(server: FakeAnthropic, cwd: Path, db: Path) -> list[dict]:
    args = ["run", "what is new in textual?", "--json", "--yes", "--sandbox", "off"]
    args += ["--model", "anthropic/claude-sonnet-4-5", "--api-base", server.base_url, "--db", str(db)]
    done = run_cli(args, cwd)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def test_a_server_side_search_is_shown_as_a_tool_call_with_its_sources_and_a_ref(server, tmp_path):
    _user_config("[web]\nsearch = true\nsearch_max_uses = 3\n")
    server.enqueue(Reply(text="Textual 1.0 is out [1].", web_searches=[("textual release", SOURCES)]))
    events = _run(server, tmp_path, tmp_path / "s.db")

    offered = [t for t in server.requests[0]["tools"] if t.get("name") == "web_search"]
    assert offered == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}]
    started = [e for e in events if e["type"] == "tool_call_started"]
    finished = [e for e in events if e["type"] == "tool_call_finished"]
    assert [e["call"]["name"] for e in started] == ["web_search"]
    assert json.loads(started[0]["call"]["arguments"]) == {"query": "textual release"}
    done = finished[0]
    assert "2 sources" in done["summary"] and "cost unknown" in done["summary"]
    assert "https://textual.example/blog/1-0" in done["view"]
    ref = done["ref"]["id"]

    async def stored() -> str:
        store = await open_store(tmp_path / "s.db")
        try:
            return await store.results.get_text(ref)
        finally:
            await store.close()

    import asyncio

    text = asyncio.run(stored())
    assert "Textual 1.0 released" in text and "https://pypi.example/textual" in text
    assert any(e["type"] == "turn_finished" for e in events)


def test_search_off_offers_no_search_tool(server, tmp_path):
    _user_config("[web]\nsearch = false\n")
    server.enqueue(Reply(text="I cannot search.", web_searches=[("textual release", SOURCES)]))
    events = _run(server, tmp_path, tmp_path / "s.db")
    tools = server.requests[0].get("tools") or []
    assert not [t for t in tools if t.get("name") == "web_search"]
    assert not [e for e in events if e["type"] == "tool_call_started"]


def test_tools_says_where_the_search_is_offered_and_why_not(server):
    from agent_tui.agent.web_search import why_not
    from agent_tui.config import Config
    from agent_tui.config.schema import WebSettings
    from agent_tui.llm.provider import Provider

    on = Config(web=WebSettings(search=True, search_max_uses=2))
    anthropic = Provider("anthropic/claude-sonnet-4-5", api_base=server.base_url)
    local = Provider("openai/fake-model", api_base="http://127.0.0.1:9/v1")
    assert why_not(on, anthropic) == "web search: the provider's own (up to 2 per reply)"
    assert why_not(Config(), anthropic).startswith("web search: off ([web] search = true")
    assert why_not(on, local) == "web search: not offered (server search is Anthropic's API only)"


def test_a_search_the_provider_could_not_run_is_an_error_call(server, tmp_path):
    from agent_tui.llm.http_anthropic import _search

    failed = _search(
        {"tool_use_id": "srvtoolu_1", "content": {"type": "x", "error_code": "max_uses_exceeded"}}, ['{"q']
    )
    assert (failed.query, failed.sources, failed.error) == ("", (), "max_uses_exceeded")


async def test_the_tui_shows_the_search_as_a_tool_line(anthropic, workspace, tmp_path):
    """The app with a model on Anthropic's API: the search shows as a web_search line with its
    sources count, and the answer follows."""
    from tests.support.agent_fixtures import make_config
    from tests.support.ui_helpers import make_app, screen_text, send, settle, until

    anthropic.enqueue(Reply(text="Textual 1.0 is out.", web_searches=[("textual release", SOURCES)]))
    model = {"name": "anthropic/claude-sonnet-4-5", "context_window": 200_000}
    config = make_config(anthropic, tmp_path / "t.db", cwd=workspace, web={"search": True}, model=model)
    app = make_app(config, workspace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await send(pilot, "what is new in textual?")
        await until(pilot, lambda: "Textual 1.0 is out." in screen_text(app), what="the answer")
        shown = screen_text(app)
    assert "web_search" in shown and "2 sources" in shown
