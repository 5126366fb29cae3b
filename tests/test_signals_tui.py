"""The real TUI in a real pseudo-terminal, signalled while a turn runs or a modal is open, and
with its terminal gone: it exits 143 / 129 within seconds, the running command's group dies
and the interruption is saved. (Before, a TUI whose terminal went away could sit for ever with
its main thread blocked on Textual's writer queue; SIGTERM's Python handler never ran.)"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from agent_tui.tools.bash import _group_alive
from testkit.fake_openai import Reply
from tests.support.cli import flags
from tests.support.signals import Terminal, kill_group, read_fifo


@pytest.fixture
def tui_setup(server, workspace, tmp_path, isolated_home):
    fifo, marker = workspace / "started", workspace / "X"  # the sandbox empties /tmp outside it
    os.mkfifo(fifo)
    (workspace / "run.sh").write_text(f"echo $$ > {fifo}; (sleep 15; touch {marker})\n")
    config = isolated_home / "config"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('[tools]\nallow = ["bash:sh run.sh"]\n')
    return fifo, marker


def saved_interruption(db: Path) -> bool:
    from agent_tui.store import open_store

    async def check() -> bool:
        store = await open_store(db)
        try:
            sessions = await store.sessions.list()
            history = await store.sessions.load_for_resume(sessions[0].id)
            return any("cancelled by the user" in str(m.content) for m in history)
        finally:
            await store.close()

    return asyncio.run(check())


class TestTuiSignals:
    @pytest.mark.parametrize("how", ["SIGTERM", "hang-up"])
    def test_running_command_dies_with_the_tui(
        self, server, workspace, tmp_path, isolated_home, tui_setup, how
    ):
        """A turn runs `(sleep 15; touch X)`: SIGTERM (terminal still there) exits 143, a
        closed terminal exits 129; the group is dead and the cancelled call saved."""
        fifo, marker = tui_setup
        db = tmp_path / "t.db"
        server.enqueue(Reply(tool_calls=[("bash", {"command": "sh run.sh"})]))
        term = Terminal(flags(server, db), workspace, isolated_home)
        pgid = None
        try:
            term.wait_for("Ask anything")
            term.type("go\r")
            pgid = int(read_fifo(fifo, term.proc))
            if how == "SIGTERM":
                term.proc.send_signal(signal.SIGTERM)
            else:
                term.hang_up()
            code = term.proc.wait(timeout=30)
            assert code == (143 if how == "SIGTERM" else 129)
            assert not _group_alive(pgid) and not marker.exists()
        finally:
            term.close()
            if pgid:
                kill_group(pgid)
        assert saved_interruption(db)

    def test_sigterm_with_the_approval_modal_open(
        self, server, workspace, tmp_path, isolated_home, tui_setup
    ):
        """A command waiting for approval (modal open): SIGTERM still exits 143 promptly."""
        db = tmp_path / "m.db"
        server.enqueue(Reply(tool_calls=[("bash", {"command": "echo needs-approval-zq"})]))
        term = Terminal(flags(server, db), workspace, isolated_home)
        try:
            term.wait_for("Ask anything")
            term.type("go\r")
            term.wait_for("needs-approval-zq")
            term.proc.send_signal(signal.SIGTERM)
            assert term.proc.wait(timeout=30) == 143
        finally:
            term.close()
