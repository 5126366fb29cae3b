"""Cost from litellm's price data: cached input priced apart, unknown never shown as 0."""

from __future__ import annotations

from agent_tui.agent import events as ev
from agent_tui.factory import build_services
from agent_tui.llm.cost import cost_of, format_cost, prices_for
from agent_tui.llm.model_info import lookup
from agent_tui.messages import TokenUsage
from agent_tui.testing.fake_openai import Reply
from tests.agent_fixtures import collect, make_config, of_type, server, workspace  # noqa: F401


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
    async def test_usage_events_carry_unknown_cost_for_a_local_server(self, server, workspace,
                                                                      tmp_path):
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
