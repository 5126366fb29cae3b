"""Chunking: line-aligned chunks that know their line numbers, whatever the content."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.context.views import cut_line, split_lines
from agent_tui.store import open_store
from agent_tui.store.chunks import Chunker

content = st.lists(
    st.one_of(
        st.just(b"\n"),
        st.just(b"\r\n"),
        st.just(b"\xff"),
        st.just("é".encode()),
        st.binary(min_size=1, max_size=30),
    ),
    max_size=60,
).map(b"".join)


class TestChunker:
    @given(data=content, size=st.integers(1, 40), piece=st.integers(1, 50))
    def test_chunks_cover_the_bytes_with_correct_line_numbers(self, data, size, piece):
        """Chunks concatenate to the input; first/end line numbers match the newlines before."""
        chunker = Chunker(size)
        chunks = []
        for start in range(0, len(data), piece):
            chunks += chunker.feed(data[start : start + piece])
        chunks += chunker.finish()
        assert b"".join(c.data for c in chunks) == data
        for c in chunks:
            assert len(c.data) <= size
            assert c.first_line == data[: c.start_byte].count(b"\n") + 1
            assert c.end_line == data[: c.start_byte + len(c.data) - 1].count(b"\n") + 1
        assert chunker.line_count == len(split_lines(data.decode("latin-1")))

    def test_cut_after_newline_when_possible(self):
        """A chunk ends just after the last newline that fits."""
        chunker = Chunker(10)
        chunks = chunker.feed(b"abc\ndefgh\nijklmnop\n") + chunker.finish()
        assert [c.data for c in chunks] == [b"abc\ndefgh\n", b"ijklmnop\n"]


class TestStoredLines:
    @settings(max_examples=40, deadline=None)
    @given(data=content, size=st.integers(1, 40), start=st.integers(1, 30), count=st.integers(1, 30))
    def test_window_reads_match_split_lines(self, data, size, start, count):
        """read_lines over any chunking returns exactly the lines split from the input."""
        expected = [
            line.encode("latin-1").decode("utf-8", "replace") for line in split_lines(data.decode("latin-1"))
        ]

        async def run(folder: str) -> None:
            store = await open_store(Path(folder) / "a.db")
            try:
                store.results.chunk_size = size
                s = await store.sessions.create("/p", "m")
                ref = await store.results.offload(s.id, "t", None, data)
                assert ref.line_count == len(expected)
                assert await store.results.get_bytes(ref.id) == data
                if start <= len(expected):
                    got = await store.results.read_lines(ref.id, start, count)
                    assert got == expected[start - 1 : start - 1 + count]
                if expected:
                    whole = await store.results.read_lines(ref.id, 1, len(expected))
                    assert whole == expected
                    # Capped reads skip the middle of long lines yet keep every line.
                    short = await store.results.read_lines(ref.id, 1, len(expected), max_line_length=2)
                    assert short == [cut_line(line, 2)[0] for line in expected]
            finally:
                await store.close()

        with tempfile.TemporaryDirectory() as folder:
            asyncio.run(run(folder))


def reference_grep(lines: list[str], pattern: str, context: int) -> list[str]:
    """What grep -n (-C context) prints, computed line by line."""
    import re

    regex = re.compile(pattern)
    matches = {n for n, line in enumerate(lines, 1) if regex.search(line)}
    shown = sorted({j for m in matches for j in range(max(1, m - context), min(len(lines), m + context) + 1)})
    out, previous = [], 0
    for j in shown:
        if context and previous and j > previous + 1:
            out.append("--")
        out.append(f"{j}{':' if j in matches else '-'}{lines[j - 1]}")
        previous = j
    return out


class TestGrepAgainstReference:
    @settings(max_examples=40, deadline=None)
    @given(
        lines=st.lists(st.text(alphabet="abc é\r", max_size=12), min_size=1, max_size=120),
        pattern=st.sampled_from(["ab", "a.b", "^b", "c$", "é", "b c"]),
        context=st.integers(0, 3),
        size=st.integers(8, 64),
    )
    def test_grep_matches_line_by_line_reference(self, lines, pattern, context, size):
        """grep over tiny chunks (many batches) prints what a line-by-line grep prints,
        for literal and regex patterns, with and without context."""
        lines = [line.replace("\r", "") for line in lines]
        text = "\n".join(lines) + "\n"
        expected = reference_grep(lines, pattern, context)

        async def run(folder: str) -> list[str]:
            store = await open_store(Path(folder) / "a.db")
            try:
                store.results.chunk_size = size
                s = await store.sessions.create("/p", "m")
                ref = await store.results.offload(s.id, "t", None, text)
                out = await store.results.grep(ref.id, pattern, context, max_matches=10_000)
                return [] if out.startswith("[no line") else out.splitlines()[1:]
            finally:
                await store.close()

        with tempfile.TemporaryDirectory() as folder:
            assert asyncio.run(run(folder)) == expected
