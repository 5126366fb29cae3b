"""Cost from litellm's price data: cached input priced apart, unknown never shown as 0."""

from __future__ import annotations

from agent_tui.agent import events as ev
from agent_tui.base.messages import TokenUsage
from agent_tui.compose.factory import build_services
from agent_tui.llm.cost import cost_of, format_cost, prices_for
from agent_tui.llm.model_info import lookup
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config, of_type


class TestPrices:
    def test_known_model_prices_cached_input_apart(self):
        """gpt-4o from litellm's map: cached input tokens cost less than uncached ones."""
        prices = prices_for("gpt-4o")
        info = lookup("gpt-4o")
        assert prices.input == info.input_cost_per_token and prices.cache_read < prices.input
        usage = TokenUsage(input=1000, output=100, cache_read=4000)
        expected = 1000 * prices.input + 100 * prices.output + 4000 * prices.cache_read
        assert cost_of(usage, prices) == expected
        assert cost_of(usage, prices) < cost_of(TokenUsage(input=5000, output=100), prices)

    def test_local_model_is_unknown_not_zero(self):
        assert prices_for("openai/fake-model", "http://127.0.0.1:1/v1") is None
        assert prices_for("totally-unknown-model") is None
        assert format_cost(cost_of(TokenUsage(input=5), None)) == "unknown"


class TestInTheLoop:
    async def test_usage_events_carry_unknown_cost_for_a_local_server(self, server, workspace, tmp_path):
        svc = await build_services(make_config(server, tmp_path / "c.db"), workspace=workspace)
        try:
            server.enqueue(Reply(text="hi"))
            session = await svc.new_session()
            events = await collect(session.run_turn("hello"))
            usage = of_type(events, ev.UsageReported)[0]
            assert usage.cost is None and usage.session_cost is None
            assert session.cost_total is None
        finally:
            await svc.close()


class TestSessionCost:
    async def test_session_total_is_kept_and_unknown_sticks(self, tmp_path):
        """Known costs add up per session; one unknown price makes the total unknown."""
        from agent_tui.store import open_store

        store = await open_store(tmp_path / "c.db")
        try:
            a = await store.sessions.create("/p", "gpt-4o")
            await store.sessions.add_cost(a.id, 0.25)
            await store.sessions.add_cost(a.id, 0.5)
            assert (await store.sessions.get(a.id)).cost == 0.75
            await store.sessions.add_cost(a.id, None)
            assert (await store.sessions.get(a.id)).cost is None
        finally:
            await store.close()

    def test_sessions_list_says_unknown_for_a_local_model(self, server, workspace, tmp_path):
        from tests.support.cli import flags, run_cli

        db = tmp_path / "l.db"
        server.enqueue(Reply(text="hi"))
        assert run_cli(["run", "hello", *flags(server, db)], workspace).returncode == 0
        listing = run_cli(["sessions", "list", "--db", str(db)], workspace).stdout
        assert "\tunknown\t" in listing
