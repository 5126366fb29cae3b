"""OpenAI's shape of the provider's own search (issue 45, web search): on the chat-completions API
(what agent-tui speaks to OpenAI, directly and through litellm) only the dedicated search models
(gpt-4o-search-preview, gpt-4o-mini-search-preview, gpt-5-search-api) search, asked with
`web_search_options`; their sources come back as `url_citation` annotations on the text. With
`[web] search` on, such a model is asked, its sources show as a web_search line with a ref, and
each request is priced as one search (the model searches before every answer) at litellm's
per-search figure for the model. Other models are not asked (OpenAI refuses the key there) and
`/tools` says why. Through the real headless `run` against the local OpenAI server, which refuses
`web_search_options` for a model that is not a search model, as OpenAI does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.runtime import paths
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.cli import run_cli

SEARCH_MODEL = "gpt-4o-search-preview"
SOURCES = [
    ("Textual 1.0 released", "https://textual.example/blog/1-0"),
    ("Changelog", "https://pypi.example/t"),
]


@pytest.fixture
def search_server():
    with FakeOpenAI(model_name=SEARCH_MODEL) as fake:
        yield fake


def config(tmp_path: Path, search: bool) -> None:
    file = paths.user_config_file()
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(f"[web]\nsearch = {'true' if search else 'false'}\n")
    (tmp_path / ".agent-tui.toml").write_text(
        "[model]\ninput_price_per_mtok = 1.0\noutput_price_per_mtok = 2.0\n"
    )


def run(server: FakeOpenAI, cwd: Path, model: str, *more: str) -> tuple[int, list[dict], str]:
    args = ["run", "what is new in textual?", "--json", "--yes", "--sandbox", "off", "--trust", *more]
    args += ["--model", f"openai/{model}", "--api-base", server.base_url, "--db", str(cwd / "s.db")]
    done = run_cli(args, cwd)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return done.returncode, lines, done.stderr + done.stdout[-2000:]


def test_a_search_model_is_asked_to_search_and_its_sources_are_a_tool_line(search_server, tmp_path):
    config(tmp_path, search=True)
    search_server.enqueue(Reply(text="Textual 1.0 is out.", web_searches=[("", SOURCES)]))
    code, events, err = run(search_server, tmp_path, SEARCH_MODEL)
    assert code == 0, err
    assert search_server.requests[0]["web_search_options"] == {}
    started = [e for e in events if e["type"] == "tool_call_started"]
    finished = [e for e in events if e["type"] == "tool_call_finished"]
    assert [e["call"]["name"] for e in started] == ["web_search"]
    assert "2 sources" in finished[0]["summary"] and "$0.025 a search" in finished[0]["summary"]
    assert "https://pypi.example/t" in finished[0]["view"] and finished[0]["ref"] is not None
    usage = [e for e in events if e["type"] == "usage"][0]
    assert usage["usage"]["web_searches"] == 1 and usage["cost"] >= 0.025


def test_search_off_asks_no_search(search_server, tmp_path):
    config(tmp_path, search=False)
    search_server.enqueue(Reply(text="Textual 1.0 is out.", web_searches=[("", SOURCES)]))
    code, events, err = run(search_server, tmp_path, SEARCH_MODEL)
    assert code == 0, err
    assert "web_search_options" not in search_server.requests[0]
    assert not [e for e in events if e["type"] == "tool_call_started"]


def test_a_model_that_cannot_search_is_not_asked(tmp_path):
    config(tmp_path, search=True)
    with FakeOpenAI(model_name="gpt-4o") as plain:
        plain.enqueue(Reply(text="I cannot search."))
        code, _, err = run(plain, tmp_path, "gpt-4o")
        assert code == 0, err  # the key would be refused: it is not sent
        assert "web_search_options" not in plain.requests[0]


def test_tools_says_which_models_search():
    from agent_tui.agent.web_search import why_not
    from agent_tui.config import Config
    from agent_tui.config.schema import WebSettings
    from agent_tui.llm.provider import Provider

    on = Config(web=WebSettings(search=True))
    searcher = Provider(f"openai/{SEARCH_MODEL}", api_base="http://127.0.0.1:9/v1")
    plain = Provider("openai/gpt-4o", api_base="http://127.0.0.1:9/v1")
    assert why_not(on, searcher) == "web search: the provider's own (the search model searches as it answers)"
    assert why_not(on, plain).startswith("web search: not offered (")
    assert "OpenAI search models" in why_not(on, plain)


def test_a_search_model_is_billed_a_search_even_when_it_cites_nothing(search_server, tmp_path):
    config(tmp_path, search=True)
    search_server.enqueue(Reply(text="It is sunny."))
    code, events, err = run(search_server, tmp_path, SEARCH_MODEL)
    assert code == 0, err
    usage = [e for e in events if e["type"] == "usage"][0]
    assert usage["usage"]["web_searches"] == 1 and usage["cost"] >= 0.025
