"""Sizes and counts are written one way everywhere (tool lines, tools, UI, CLI tables)."""

from __future__ import annotations

from agent_tui.base import units
from agent_tui.context import compaction, views
from agent_tui.frontends.tui import formatting


class TestUnits:
    def test_sizes(self):
        """Exact bytes below 1 KB; one decimal below 10 units; whole units above."""
        assert [units.human_size(n) for n in (0, 512, 1023)] == ["0 B", "512 B", "1023 B"]
        assert units.human_size(9_626) == "9.4 KB"
        assert units.human_size(49_050) == "48 KB"
        assert units.human_size(3_250_585) == "3.1 MB"
        assert units.human_size(125_829_120) == "120 MB"
        assert units.human_size(1_288_490_189) == "1.2 GB"
        assert units.human_size(5 * 2**50) == "5242880 GB"

    def test_tokens(self):
        """At a glance: a decimal below 10k (none when it is .0), whole k above, then M."""
        got = [units.short_tokens(n) for n in (950, 8_000, 8_240, 9_406, 117_000, 1_000_000, 1_200_000)]
        assert got == ["950", "8k", "8.2k", "9.4k", "117k", "1M", "1.2M"]

    def test_counts(self):
        """Digits are grouped by spaces."""
        assert [units.grouped(n) for n in (7, 1180, 102_851, 1_000_000)] == [
            "7",
            "1 180",
            "102 851",
            "1 000 000",
        ]

    def test_one_formatter_for_the_ui_and_the_core(self):
        """The UI's figures and the core's are the same functions, so they cannot drift."""
        assert formatting.size is units.human_size and formatting.count is units.grouped
        assert formatting.tokens is units.short_tokens is compaction.format_tokens
        assert views.omitted_marker(1180) == "[… 1 180 lines omitted …]"
