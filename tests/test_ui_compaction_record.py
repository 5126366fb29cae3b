"""The chat's compaction line opens that compaction's record (issue 44 item 2): per strategy what
it cleared (refs) and summarised (ranges), what stayed, the summary and the tokens; Enter reads the
chosen item back into view, `p` pins it back into the context. An 80 × 24 snapshot of the view."""

from __future__ import annotations

from agent_tui.context.compaction.record import CompactionRecord, StrategyRecord
from agent_tui.context.compaction.result import CompactResult
from agent_tui.frontends.tui.screens.blobs import BlobsScreen
from agent_tui.frontends.tui.screens.compaction_record import RecordScreen
from agent_tui.frontends.tui.widgets.compaction_item import CompactionItem
from tests.support import snapshots as part1
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import screen_text, settle, until
from tests.support.ui_session_fixtures import loop_app, run_turns, send

fixed_workspace = part1.fixed_workspace
sandbox_off = part1.sandbox_off


class TestPilot:
    async def test_the_line_opens_the_record_which_reads_and_pins_an_item(
        self, agent_server, tmp_path, loop_workspace
    ):
        """Three turns of tool output, /compact: a click on the line opens the record listing each
        output it cleared or took out and the summarised range; Enter on an item shows its stored text; `p` pins it;
        `o` opens it in the blob browser, whose Escape comes back to the record. (A window where the
        ~1 800-token pin fits its tenth of the window: a 16k one refuses it, and says why.)"""
        config = make_config(
            agent_server, tmp_path / "record.db", window=24_576, tools={"allow": ["bash:sh gen.sh"]}
        )
        app = loop_app(config, loop_workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await run_turns(pilot, 3)
            await send(pilot, "/compact")
            item = app.query(CompactionItem).last()
            record = item.entry.compaction.record
            assert record is not None and record.refs()
            await pilot.click(item)
            await until(pilot, lambda: isinstance(app.screen, RecordScreen), what="the record view")
            text = screen_text(app)
            named = [*record.refs(), *(r for s in record.strategies for r, _ in s.labels)]
            assert any(r.startswith("m_") for r in named) and any(r.startswith("r_") for r in named)
            for ref in named:
                assert ref in text
            assert f"{item.entry.compaction.tokens_before:,}".replace(",", " ") in text
            assert "The user listed rows" in text  # the summary it wrote
            screen = app.screen
            ref = next(r for s in record.strategies for r, _ in s.labels)
            screen.select(ref)
            await pilot.press("enter")
            await until(pilot, lambda: "row" in str(screen.preview_text), what="the output read back")
            await pilot.press("p")
            await until(pilot, lambda: app.view.session.side.state.pins, what="the pin")
            pin = app.view.session.side.state.pins[-1]
            assert ref in pin.source and "row" in pin.text
            await pilot.press("o")  # the blob browser at the output, over the record
            await until(pilot, lambda: isinstance(app.screen, BlobsScreen), what="the blob browser")
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, RecordScreen), what="back to the record")
            await pilot.press("escape")
            assert not isinstance(app.screen, RecordScreen)

    async def test_a_line_without_a_record_is_a_plain_notice(self, loop_config, loop_workspace):
        """Nothing to compact: the line says so and opens nothing."""
        app = loop_app(loop_config, loop_workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/compact")
            assert not app.query(CompactionItem)


def synthetic() -> CompactResult:
    """A fixed record (refs, a range, a summary), so the snapshot never varies."""
    record = CompactionRecord(
        (
            StrategyRecord(
                "tool_clearing",
                cleared=("r_0123456789", "r_abcdef0123"),
                tokens_before=14_200,
                tokens_after=9_100,
                labels=(
                    ("r_0123456789", "bash: sh gen.sh (12 KB, 400 lines)"),
                    ("r_abcdef0123", "read_file: src/cart.py (6 KB, 180 lines)"),
                ),
            ),
            StrategyRecord(
                "summarization", replaced="m_1-14", dropped=14, tokens_before=9_100, tokens_after=3_900
            ),
        ),
        kept=4,
        summary="The user asked to fix the cart total; gen.sh lists the rows; cart.py sums them twice.",
    )
    return CompactResult(
        tokens_before=14_200,
        tokens_after=3_900,
        messages_before=18,
        messages_after=5,
        strategies=("tool_clearing", "summarization"),
        duration=0.01,
        summary_model=None,
        reached_target=True,
        reason="",
        applied=True,
        record=record,
    )


class TestSnapshot:
    def test_record_view(self, snap_compare, server, tmp_path, fixed_workspace):
        """80 × 24: the record of a compaction that cleared two outputs and summarised 14 messages."""
        app = part1.resumed_app(make_config(server, tmp_path / "s.db"), fixed_workspace)

        async def run_before(pilot):
            await part1.ready(pilot)
            pilot.app.push_screen(RecordScreen(synthetic(), pilot.app.view.session))
            await until(pilot, lambda: isinstance(pilot.app.screen, RecordScreen), what="the record view")
            await pilot.pause()

        assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))
