"""One grep engine: `grep_result` on a stored output and on a transcript range pick the same lines.

The context window (lines held back before a match, lines shown after it, overlaps merged) is
`store/grep.py`'s `ContextWindow`; the transcript's grep feeds it each message's lines.
"""

from __future__ import annotations

import re

import pytest

from agent_tui.base.messages import user
from agent_tui.store import open_store
from agent_tui.store.grep import ContextWindow

TEXT = "\n".join(
    [
        "start",
        "beta one",
        "x",
        "y",
        "z",
        "w",
        "beta two",
        "beta three",
        "q",
        "r",
        "s",
        "t",
        "u",
        "beta four",
        "end",
    ]
)


@pytest.fixture
async def store(tmp_path):
    opened = await open_store(tmp_path / "agent.db")
    yield opened
    await opened.close()


def picked(lines: list[str]) -> list[tuple[str, str]]:
    """(':' or '-', text) of grep output lines in either format (`N:line`, `#1 user: line`), `--` dropped."""
    out = []
    for line in lines:
        found = re.match(r"#1 user(?P<a>[:-]) (?P<t>.*)$", line)
        if found:
            out.append((found["a"], found["t"]))
            continue
        found = re.match(r"(?P<n>\d+)(?P<a>[:-])(?P<t>.*)$", line)
        if found:
            out.append((found["a"], found["t"]))
    return out


@pytest.mark.parametrize("context", [0, 1, 2, 3])
async def test_output_and_transcript_pick_the_same_lines(store, context):
    """The same text grepped as a stored output and as a transcript message shows the same
    matches and context lines, in the same order, for every context width."""
    session = await store.sessions.create("/p", "m")
    await store.sessions.append(session.id, [user(TEXT)])
    ref = await store.results.offload(session.id, "bash", "c1", TEXT)
    as_output = await store.results.grep(ref.id, "beta", context=context)
    as_transcript = await store.transcript.grep("m_1", "beta", context=context, session_id=session.id)
    output_lines = as_output.splitlines()[1:]
    transcript_lines = as_transcript.splitlines()[1:]
    assert picked(output_lines) == picked(transcript_lines)
    assert [a for a, _ in picked(transcript_lines)].count(":") == 4


async def test_transcript_grep_stops_at_the_match_cap(store):
    """max_matches caps the match lines shown, also when the next match is a context line of
    the last one counted (it used to show one match line past the cap)."""
    session = await store.sessions.create("/p", "m")
    await store.sessions.append(session.id, [user("beta\nbeta\nx\nbeta")])
    text = await store.transcript.grep("m_1", "beta", context=1, session_id=session.id, max_matches=1)
    assert [line for line in text.splitlines() if line.startswith("#1 user:")] == ["#1 user: beta"]
    assert "1 matching lines" in text and "[more matches exist" in text


def test_window_holds_context_until_a_match_and_merges_overlaps():
    """Fed line by line, the window shows the lines before a match only once it comes, the lines
    after it, and a line shared by two windows once."""
    window = ContextWindow(1)
    shown = []
    for number, line in enumerate(["a", "hit", "b", "hit", "c", "d", "e"], start=1):
        shown += window.feed(number, line, line == "hit")
    assert shown == [(1, "a", False), (2, "hit", True), (3, "b", False), (4, "hit", True), (5, "c", False)]


async def test_negative_context_is_no_context(store):
    """A negative context width shows the matches alone, on an output and on a transcript alike."""
    session = await store.sessions.create("/p", "m")
    await store.sessions.append(session.id, [user(TEXT)])
    ref = await store.results.offload(session.id, "bash", "c1", TEXT)
    as_output = (await store.results.grep(ref.id, "beta", context=-2)).splitlines()[1:]
    as_transcript = (
        await store.transcript.grep("m_1", "beta", context=-2, session_id=session.id)
    ).splitlines()[1:]
    assert picked(as_output) == picked(as_transcript)
    assert [a for a, _ in picked(as_transcript)] == [":"] * 4
