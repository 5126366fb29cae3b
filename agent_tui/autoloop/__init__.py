"""Autonomous loop mode (`agent-tui loop GOAL`): iterations on one goal until it is met.

    runner = LoopRunner(session, goal, config.loop)
    async for event in runner.run():      # loop events plus each turn's agent events
        ...
    runner.records, runner.memory.summary, runner.reason

The package holds no UI: the `loop` command renders its events (agent_tui.frontends.cli.loop_cmd).
"""

from __future__ import annotations

from agent_tui.autoloop.allocation import Allocation, plan
from agent_tui.autoloop.records import IterationRecord, LoopSummary
from agent_tui.autoloop.runner import LoopRunner

__all__ = ["Allocation", "IterationRecord", "LoopRunner", "LoopSummary", "plan"]
