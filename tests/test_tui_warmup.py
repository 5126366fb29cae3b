"""The real TUI on a pseudo-terminal: its idle prompt, meter and open session load no HTTP client
and no Markdown; the first key the user types loads them behind the prompt (issue 31, the CPU of
the TUI's first seconds)."""

from __future__ import annotations

import time

from agent_tui.runtime import instrument
from tests.support.cli import flags
from tests.support.signals import Terminal

TURN_ONLY = {"httpx", "httpcore", "h11", "anyio", "markdown_it"}


def _wait_for_mark(path, name: str, term: Terminal, timeout: float = 60) -> instrument.Event:
    deadline = time.monotonic() + timeout
    while True:
        found = [e for e in instrument.read_file(path) if e.name == name]
        if found:
            return found[0]
        if time.monotonic() > deadline or term.proc.poll() is not None:
            raise AssertionError(f"the TUI never marked {name}")
        time.sleep(0.05)  # polling a file the child appends to; no timing margin is asserted


class TestTurnWarmUp:
    def test_the_first_key_loads_what_a_turn_needs(
        self, server, workspace, tmp_path, isolated_home, monkeypatch
    ):
        """Until a key arrives nothing of the HTTP stack or Markdown is loaded; after it, both are."""
        marks = tmp_path / "marks.jsonl"
        monkeypatch.setenv("AGENT_TUI_INSTRUMENT", str(marks))
        term = Terminal(flags(server, tmp_path / "t.db"), workspace, isolated_home)
        try:
            term.wait_for("Ask anything")
            _wait_for_mark(marks, "chat_shown", term)  # the session is open, the meter drawn
            term.type("h")
            idle = _wait_for_mark(marks, "warm_turn_start", term)
            assert not set(idle.modules) & TURN_ONLY, sorted(set(idle.modules) & TURN_ONLY)
            assert "agent_tui" in idle.modules and "textual" in idle.modules
            warmed = _wait_for_mark(marks, "warm_turn_done", term)
            assert TURN_ONLY <= set(warmed.modules)
        finally:
            term.close()

    def test_a_message_on_the_command_line_loads_it_at_once(
        self, server, workspace, tmp_path, isolated_home, monkeypatch
    ):
        """`agent-tui "MESSAGE"` needs a turn at once: the stage starts without any key."""
        from testkit.fake_openai import Reply

        server.enqueue(Reply(text="zq-warm-done"))
        marks = tmp_path / "marks.jsonl"
        monkeypatch.setenv("AGENT_TUI_INSTRUMENT", str(marks))
        term = Terminal(["say hi", *flags(server, tmp_path / "t.db")], workspace, isolated_home)
        try:
            term.wait_for("zq-warm-done")
            assert _wait_for_mark(marks, "warm_turn_done", term)
        finally:
            term.close()
