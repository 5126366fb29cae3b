"""The compaction strategies are one ordered tuple (context/compaction/strategies.py) that the
chain, /context's savings and table, the chat line and the config iterate: a strategy added there
without its `[compaction]` switch, or a switch without its strategy, fails here."""

from __future__ import annotations

import dataclasses

from agent_tui.base.messages import assistant, user
from agent_tui.base.tokens import TokenCounter
from agent_tui.config import CompactionSettings
from agent_tui.context.compaction import STRATEGIES, compact, estimate_savings
from agent_tui.policy import trust


def test_every_strategy_has_its_switch_and_every_switch_its_strategy():
    """`[compaction] <name> = true|false` exists for each strategy (a project may set it), and the
    config has no strategy switch (`Strategy N…`) that names no strategy."""
    fields = {f.name: f for f in dataclasses.fields(CompactionSettings)}
    switches = {name for name, f in fields.items() if f.metadata["spec"].help.startswith("Strategy")}
    assert switches == {strategy.name for strategy in STRATEGIES}
    for strategy in STRATEGIES:
        assert fields[strategy.name].type in ("bool", bool)
        assert f"compaction.{strategy.name}" in trust.HARMLESS


def test_one_strategy_needs_a_model_and_the_order_is_cheapest_first():
    """The summary is the one model strategy; clearing and pruning come before it, truncation after."""
    assert [s.name for s in STRATEGIES if s.needs_model] == ["summarization"]
    names = [s.name for s in STRATEGIES]
    assert names.index("tool_clearing") < names.index("summarization") < names.index("truncation")


async def test_savings_and_results_speak_of_the_declared_strategies():
    """The savings estimate has one figure per strategy; a compaction's result lists the ones that
    ran by name and labels them as declared."""
    counter = TokenCounter()
    settings = CompactionSettings(summarization=False)
    history = [m for i in range(40) for m in (user(f"question {i} " * 30), assistant(f"answer {i} " * 30))]
    savings = await estimate_savings(
        history, counter=counter, settings=settings, target_tokens=2_000, fixed_tokens=100
    )
    assert list(savings) == [s.name for s in STRATEGIES]
    _, result = await compact(
        history, counter=counter, settings=settings, target_tokens=2_000, fixed_tokens=100
    )
    declared = {s.name: s.label for s in STRATEGIES}
    assert result.applied and result.strategies
    assert result.labels == tuple(declared[name] for name in result.strategies)
