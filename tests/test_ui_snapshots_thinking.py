"""SVG snapshot of a finished turn of a reasoning model, at 120 × 36: the folded, dimmed
`thought for … · … tokens` line above the reply, through the real loop against the local
OpenAI-compatible server streaming `reasoning_content`.

Everything on screen is fixed: the workspace path (the system prompt names it), the server's
replies and token counts, and the thinking clock (4.2 s between the first reasoning delta and
the first answer delta). `pytest --snapshot-update` rewrites it after a deliberate change.
"""

from __future__ import annotations

import itertools

from agent_tui.agent import step as step_module
from agent_tui.agent.reply import StreamedReply
from agent_tui.agent.thinking import ThinkingTrace
from testkit.fake_openai import Reply
from tests.support import snapshots as part1
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, send, settle

SIZE = (120, 36)
fixed_workspace = part1.fixed_workspace
sandbox_off = part1.sandbox_off  # autouse: the same picture with or without bubblewrap here
THOUGHT = (
    "The cart total is computed in src/cart.py. The test multiplies price by quantity, so the "
    "sum must do the same; everything else in the module looks right."
)
ANSWER = "The total ignored quantities: `sum(i.price * i.qty for i in items)` fixes it."


class TestThinkingSnapshot:
    def test_finished_turn_with_a_folded_thinking_block(
        self, snap_compare, server, tmp_path, fixed_workspace, monkeypatch
    ):
        """The reply's thinking folded to one dimmed line above it, with duration and tokens."""
        ticks = itertools.count(0.0, 4.2)
        monkeypatch.setattr(
            step_module,
            "StreamedReply",
            lambda: StreamedReply(thinking=ThinkingTrace(clock=lambda: next(ticks))),
        )
        server.enqueue(Reply(reasoning=THOUGHT, text=ANSWER))
        app = make_app(make_config(server, tmp_path / "s.db"), fixed_workspace)

        async def run_before(pilot):
            await part1.ready(pilot)
            await send(pilot, "why does test_total fail?")
            await settle(pilot)
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=SIZE)
