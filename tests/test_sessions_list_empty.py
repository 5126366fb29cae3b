"""`sessions list` hides sessions without a message (every TUI launch stores one), as /resume
does; `--all` shows them."""

from __future__ import annotations

import asyncio

import pytest
import typer
from typer.testing import CliRunner

from agent_tui.commands import sessions_cmd
from agent_tui.messages import assistant, user
from agent_tui.store import open_store

cli = typer.Typer()
cli.add_typer(sessions_cmd.app, name="sessions")


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def two_sessions(tmp_path):
    """A database with one session that has messages and one launch that never got any."""
    db = tmp_path / "s.db"

    async def seed():
        store = await open_store(db)
        try:
            used = await store.sessions.create("/work/proj", "openai/m", title="fix it")
            await store.sessions.append(used.id, [user("fix it"), assistant("fixed")])
            empty = await store.sessions.create("/work/proj", "openai/m")
            return used.id, empty.id
        finally:
            await store.close()

    used, empty = asyncio.run(seed())
    return db, used, empty


def test_list_hides_empty_sessions(two_sessions):
    """The empty session is not listed; the one with messages is."""
    db, used, empty = two_sessions
    result = run("sessions", "list", "--db", str(db))
    assert result.exit_code == 0, result.output
    assert used in result.output and empty not in result.output


def test_list_all_shows_empty_sessions(two_sessions):
    """--all lists the empty session too."""
    db, used, empty = two_sessions
    result = run("sessions", "list", "--all", "--db", str(db))
    assert result.exit_code == 0, result.output
    assert used in result.output and empty in result.output


def test_limit_counts_only_shown_sessions(two_sessions):
    """-n 1 shows the newest session with messages, not the newer empty one."""
    db, used, empty = two_sessions
    result = run("sessions", "list", "-n", "1", "--db", str(db))
    assert result.exit_code == 0, result.output
    assert used in result.output
