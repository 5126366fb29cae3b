"""/context: the component table, calibration, largest items, thresholds, the per-turn chart
with compactions marked, and what each strategy would free now — over sessions driven through
the real agent loop in the real app."""

from __future__ import annotations

from agent_tui.base.tokens import Calibration
from agent_tui.context.compaction import estimate_savings
from agent_tui.core.context_report import (
    CalibrationState,
    calibration_state,
    compaction_savings,
    largest_items,
)
from agent_tui.frontends.tui.screens.context_screen import ContextScreen
from agent_tui.frontends.tui.widgets.usage_chart import DASH, MARK, usage_chart
from tests.support.ui_helpers import screen_text, settle
from tests.support.ui_session_fixtures import loop_app, run_turns, send

SIZE = (120, 36)


async def open_context(pilot) -> ContextScreen:
    await send(pilot, "/context")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ContextScreen)
    return screen


class TestUsageChart:
    def test_compaction_is_a_mark_on_its_bar(self):
        """A compacted point carries ▼; the trigger row is dashed and labelled with its
        percent."""
        points = [(1, 0.3, False), (2, 0.7, False), (2, 0.2, True), (3, 0.4, False)]
        rows = usage_chart(points, width=40, height=5, trigger=0.95).plain.split("\n")
        assert len(rows) == 6
        # Few points: each bar is three columns wide; the mark sits on the third bar's middle.
        column = 5 + 2 * 3 + 1  # past the 5-cell axis and two bars
        assert [row[column] for row in rows[:-1]].count(MARK) == 1
        assert sum(row.count(MARK) for row in rows) == 1
        assert DASH in rows[0] and rows[0].endswith(" 95")
        assert rows[-1].endswith("turn 1–3")

    def test_newest_points_fill_the_width(self):
        """Past its width the chart keeps the newest points, one column each."""
        points = [(i, i / 100, False) for i in range(1, 101)]
        rows = usage_chart(points, width=20, height=4, trigger=0.95).plain.split("\n")
        assert all(len(row.rstrip()) <= 5 + 20 + 3 for row in rows[:-1])
        assert rows[-1].endswith("turn 81–100")
        assert "█" in rows[-2]  # high points reach the bottom row filled


class TestContextValues:
    def test_calibration_text(self):
        """Uncalibrated says so; calibrated compares the last report with its estimate."""
        assert "Not calibrated yet" in calibration_state(Calibration()).describe()
        text = CalibrationState(3, 1.05, None, 10_500, 10_000).describe()
        assert "10 500 reported vs 10 000 estimated (+5.0%)" in text and "last 3 calls" in text
        assert "rewritten" in CalibrationState(3, 1.05, None, None, 10_000).describe()


class TestContextScreen:
    async def test_mid_session(self, loop_config, loop_workspace):
        """After three turns: header figures, components, the largest items with their refs,
        the calibration against the provider's report, thresholds and the cost."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await run_turns(pilot, 3)
            session = app.view.session
            screen = await open_context(pilot)
            text = screen_text(app)
            budget = screen.report.budget
            assert (
                f"window {budget.total:,} · reserved output {budget.max_output_tokens:,}".replace(",", " ")
            ) in text
            for part in (
                "system prompt",
                "memories + skills",
                "tool descriptions",
                "conversation",
                "free",
                "Largest items",
                "If you compact now",
            ):
                assert part in text
            refs = [m.output_ref.id for m in session.history if m.output_ref]
            assert len(refs) == 3 and all(ref in text for ref in refs)
            assert "bash sh gen.sh" in text
            reported = session.meter.calibration.anchor_reported
            assert f"last call {reported:,} reported".replace(",", " ") in text
            assert "auto-compact at 95%" in text and "Session cost: unknown" in text
            await pilot.press("escape")
            assert not isinstance(app.screen, ContextScreen)

    async def test_chart_marks_the_compaction(self, loop_config, loop_workspace):
        """Turns, a /compact, more turns: one column per logged point, ▼ where it compacted."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await run_turns(pilot, 3)
            await send(pilot, "/compact")
            await run_turns(pilot, 2, start=4)
            log = app.view.session.compactor.history_log
            assert [c for _, _, c in log] == [False, False, False, True, False, False]
            assert log[3][1] < log[2][1], "the compaction shrank the context"
            await open_context(pilot)
            assert screen_text(app).count(MARK) == 2  # the legend and the one compaction

    async def test_says_how_many_earlier_messages_are_recoverable(self, loop_config, loop_workspace):
        """After a /compact that summarised turns away, /context counts the transcript messages
        outside the window and names the range that reads them back; before it, nothing."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=(120, 48)) as pilot:  # the records above push the footer down
            await settle(pilot)
            await run_turns(pilot, 3)
            await open_context(pilot)
            assert "Earlier messages" not in screen_text(app)
            await pilot.press("escape")
            await send(pilot, "/compact")
            await open_context(pilot)
            await app.workers.wait_for_complete()
            await settle(pilot)
            text = screen_text(app)
            assert "Earlier messages:" in text and "outside the window and recoverable" in text
            assert 'read_result("m_1-' in text

    async def test_savings_come_from_running_the_strategies(
        self,
        loop_config,
        loop_workspace,
    ):
        """What each strategy would free is what running it on the history frees (scaled like
        the table), and the session's history is left as it was."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await run_turns(pilot, 3)
            session = app.view.session
            before = list(session.history)
            screen = await open_context(pilot)
            assert screen.savings is not None
            assert all(a is b for a, b in zip(session.history, before, strict=True))
            meter = session.meter
            raw = meter.raw_parts(before, *session.request_parts)
            budget = screen.report.budget
            ratio = meter.calibration.ratio
            direct = await estimate_savings(
                before,
                counter=meter.counter,
                settings=session.config.compaction,
                target_tokens=int(budget.effective_window * 0.6 / ratio),
                fixed_tokens=sum(raw.values()) - raw["conversation"],
            )
            assert screen.savings == {k: max(0, round(v * ratio)) for k, v in direct.items()}
            assert screen.savings["tool_clearing"] > 1000
            assert screen.savings == await compaction_savings(session, budget)
            text = screen_text(app)
            freed = f"−{screen.savings['tool_clearing']:,}".replace(",", " ")
            assert "tool clearing" in text and freed in text and "(no LLM)" in text

    async def test_largest_items_are_the_tool_outputs(
        self,
        loop_config,
        loop_workspace,
    ):
        """The biggest messages are the three listings, labelled by command, with their refs."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await run_turns(pilot, 3)
            session = app.view.session
            items = largest_items(session.history, session.meter.counter)
            assert [i.role for i in items[:3]] == ["tool"] * 3
            assert {i.ref for i in items[:3]} == {m.output_ref.id for m in session.history if m.output_ref}
            assert items[0].label.startswith("bash sh gen.sh")
            assert items[0].tokens >= items[-1].tokens
