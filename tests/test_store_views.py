"""The pure view formatting: head and tail around an omission marker, and the footer."""

from __future__ import annotations

from agent_tui.context.views import (
    CUT_MARK,
    OutputTotals,
    cut_line,
    fit_head_tail,
    inline_view,
    render_view,
    render_whole,
    split_lines,
)


class TestCutLine:
    def test_short_line_kept(self):
        """A line within the limit comes back unchanged and not marked as cut."""
        assert cut_line("abc", 3) == ("abc", False)

    def test_long_line_cut_with_mark(self):
        """A line past the limit keeps its first characters and gains the cut mark."""
        assert cut_line("abcdef", 3) == ("abc" + CUT_MARK, True)


class TestFitHeadTail:
    def test_tail_never_repeats_head(self):
        """With few lines, the tail stops before lines the head already shows."""
        lines = ["a", "b", "c"]
        head, tail, cut = fit_head_tail(lines, lines, 3, 10_000, 100)
        assert head == ["a", "b", "c"] and tail == [] and cut == 0

    def test_each_side_keeps_one_line_even_over_budget(self):
        """A budget smaller than one line still shows the first and the last line."""
        lines = ["x" * 50, "y" * 50, "z" * 50]
        head, tail, _ = fit_head_tail(lines, lines, 3, 10, 100)
        assert head == ["x" * 50] and tail == ["z" * 50]


class TestRenderView:
    def test_head_tail_marker_and_footer(self):
        """An output over the size shows head, `[… N lines omitted …]`, tail and a footer
        naming the tool, sizes, the ref and how to read and search the rest."""
        lines = [f"line {i}" for i in range(1, 1001)]
        totals = OutputTotals("bash", 8_000, 1000, "r_0123456789")
        text = render_view(lines[:100], lines[-100:], totals, 200, 2000)
        body = text.splitlines()
        assert body[0] == "line 1"
        assert any(line.startswith("[… ") and "lines omitted …]" in line for line in body)
        assert body[-2] == "line 1000"
        footer = body[-1]
        assert "bash output: 1000 lines, 8000 bytes" in footer
        assert "r_0123456789" in footer
        assert 'read_result(ref_id="r_0123456789", offset=' in footer
        assert 'grep_result(ref_id="r_0123456789", pattern=' in footer

    def test_omitted_count_is_exact(self):
        """The marker counts exactly the lines not shown."""
        lines = [str(i) for i in range(1, 10_001)]
        totals = OutputTotals("bash", 48_894, 10_000, "r_0123456789")
        text = render_view(lines[:500], lines[-500:], totals, 100, 2000)
        body = text.splitlines()
        marker = next(line for line in body if line.startswith("[… "))
        shown = len(body) - 2
        omitted = int(marker.split(" lines")[0][3:].replace(" ", ""))
        assert shown + omitted == 10_000


class TestInlineView:
    def test_small_output_whole_without_footer(self):
        """An output within the size comes back whole, with no footer."""
        assert inline_view("a\nb\n", 100, 50, "bash") == "a\nb"

    def test_store_down_view_says_middle_was_dropped(self):
        """The fallback view has no ref and says the middle could not be stored."""
        text = "".join(f"row {i}\n" for i in range(5000))
        view = inline_view(text, 300, 2000, "bash")
        assert view.startswith("row 0\n") and "row 4999" in view
        assert "could not be stored" in view and "ref" not in view
        assert len(view.encode()) < 600

    def test_cut_lines_counted_in_footer(self):
        """A short output with over-long lines is shown whole, cut lines counted in a footer."""
        view = render_whole(["x" * 30, "ok"], OutputTotals("bash", 34, 2, "r_0123456789"), 10)
        assert view.splitlines()[0] == "x" * 10 + CUT_MARK
        assert "1 long lines cut at 10 characters" in view

    def test_empty_output(self):
        """An empty output says so instead of showing nothing."""
        assert render_whole([], OutputTotals("bash", 0, 0, None), 10) == "[bash: no output]"


class TestSplitLines:
    def test_final_newline_starts_no_line(self):
        """Lines are counted like the store counts them; CRLF endings are dropped."""
        assert split_lines("a\r\nb\n") == ["a", "b"]
        assert split_lines("a\n\nb") == ["a", "", "b"]
        assert split_lines("") == []
