"""A provider retry is shown while it happens: the provider yields a typed retry event before
each wait, the turn relays it (`retrying` in `--json`, a stderr line in plain `run`) and the TUI's
working line says `retrying 2/3` until the reply arrives. The fake server answers 500 / 429 and
then 200, over real HTTP."""

from __future__ import annotations

import json
import threading

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.frontends.tui.widgets.status import WorkingLine
from agent_tui.llm.provider import Provider
from agent_tui.llm.stream import RetryWait, TextChunk
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config, of_type, run_agent_tui, server_flags
from tests.support.ui_helpers import make_app, screen_text, settle, until

HI = [{"role": "user", "content": "hi"}]
FLAKY = (Reply(status=500, retry_after=0), Reply(status=429, retry_after=0), Reply(text="made it"))


class TestProvider:
    async def test_each_wait_is_announced_before_the_next_try(self, server):
        """500 then 429 then 200: two RetryWait events (try 2 of 3, try 3 of 3, with the error's
        kind), then the text of the third try."""
        server.enqueue(*FLAKY)
        provider = Provider(server.litellm_model, api_base=server.base_url)
        events = [e async for e in provider.stream(HI)]
        waits = [e for e in events if isinstance(e, RetryWait)]
        assert [(w.attempt, w.tries, w.kind) for w in waits] == [(2, 3, "provider"), (3, 3, "rate_limit")]
        assert all(w.wait == 0 for w in waits)
        assert events.index(waits[-1]) < events.index(next(e for e in events if isinstance(e, TextChunk)))
        assert len(server.requests) == 3


class TestTurn:
    async def test_the_turn_relays_retries_as_typed_events(self, server, workspace, tmp_path):
        """The session turns each provider wait into a `retrying` event, in order, and the turn
        ends with the reply."""
        server.enqueue(*FLAKY)
        services = await build_services(make_config(server, tmp_path / "r.db"), workspace=workspace)
        try:
            session = await services.new_session()
            events = await collect(session.run_turn("hi"))
        finally:
            await services.close()
        retries = of_type(events, ev.Retrying)
        assert [(r.attempt, r.tries) for r in retries] == [(2, 3), (3, 3)]
        assert retries[0].to_json()["type"] == "retrying"
        assert events[-1].text == "made it"

    def test_json_and_plain_run(self, server, workspace, tmp_path):
        """`run --json` prints `retrying` lines before the text; plain `run` says it on stderr."""
        server.enqueue(*FLAKY)
        out = run_agent_tui(["run", "hi", "--json", *server_flags(server, tmp_path / "j.db")], workspace)
        assert out.returncode == 0, out.stderr
        events = [json.loads(line) for line in out.stdout.splitlines()]
        types = [e["type"] for e in events]
        retries = [e for e in events if e["type"] == "retrying"]
        assert [(e["attempt"], e["tries"], e["kind"]) for e in retries] == [
            (2, 3, "provider"),
            (3, 3, "rate_limit"),
        ]
        assert types.index("retrying") < types.index("text_delta")
        server.enqueue(*FLAKY)
        plain = run_agent_tui(["run", "hi", *server_flags(server, tmp_path / "p.db")], workspace)
        assert plain.returncode == 0, plain.stderr
        assert plain.stdout.strip() == "made it"
        assert "retrying 2/3" in plain.stderr and "retrying 3/3" in plain.stderr


class TestWorkingLine:
    @pytest.fixture
    def config(self, server, tmp_path):
        return make_config(server, tmp_path / "ui.db")

    async def test_working_line_says_retrying(self, server, config, workspace):
        """While the second try waits for its answer the working line reads `retrying 2/3`; the
        reply then streams as usual and the line goes with the turn."""
        answer = threading.Event()
        server.enqueue(Reply(status=500, retry_after=0), Reply(text="second try", hold=answer, hold_after=0))
        app = make_app(config, workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            prompt = app.view.prompt
            prompt.focus()
            prompt.set_text("hi")
            await pilot.press("enter")
            try:
                await until(pilot, lambda: len(server.requests) == 2, what="the second try")
                await until(pilot, lambda: "retrying 2/3" in screen_text(app), what="the retry on screen")
                assert app.query_one(WorkingLine).state == "retrying 2/3"
            finally:
                answer.set()
            await settle(pilot)
            assert "second try" in screen_text(app)
            assert not app.query_one(WorkingLine).display
