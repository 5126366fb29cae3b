"""Issue 32's command-line bugs, through `python -m agent_tui` in a subprocess: `sessions list`
fits 80 columns, a command group named alone lists (or helps) and exits 0."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys

import pytest

from agent_tui.base.messages import user
from agent_tui.store import open_store
from tests.support.pty_run import on_a_pty

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


@pytest.fixture
def seeded_db(tmp_path):
    """One session in a long project folder with a long title and model."""
    db = tmp_path / "agent.db"

    async def seed() -> str:
        store = await open_store(db)
        try:
            s = await store.sessions.create(
                "/home/someone/src/projects/shop-frontend", "anthropic/claude-sonnet-4-5"
            )
            await store.sessions.append(
                s.id, [user("fix the failing cart tests in the shop, all of them")], [12]
            )
            ref = await store.results.offload(s.id, "bash", "c1", "row\n" * 300)
            assert ref is not None
            return s.id
        finally:
            await store.close()

    return db, asyncio.run(seed())


class TestListsAt80Columns:
    @pytest.mark.parametrize(
        ("group", "headers"),
        [
            ("sessions", ["id", "title", "project", "model", "messages", "tokens", "cost", "updated"]),
            ("blobs", ["ref", "tool", "size", "lines", "session", "last read", "reads"]),
        ],
    )
    def test_ids_and_headers_stay_whole(self, seeded_db, group, headers):
        """`sessions list` at 80 columns wrapped ids (`s_c1563` / `ca6896a`) and headers."""
        db, session_id = seeded_db
        env = {**os.environ, "COLUMNS": "80", "LINES": "24"}
        text = ANSI.sub(
            "", on_a_pty([sys.executable, "-m", "agent_tui", group, "list", "--db", str(db)], env)
        )
        lines = [line for line in text.splitlines() if line.strip()]
        assert all(len(line) <= 80 for line in lines), text
        header = next(line for line in lines if line.split()[:1] == [headers[0]])
        for name in headers:
            assert re.search(rf"(^|\s){re.escape(name)}(\s|$)", header), (name, header)
        assert any(session_id in line for line in lines), text
        assert len([line for line in lines if "─" not in line]) == 3  # title, header, one row


class TestGroupAlone:
    def test_sessions_alone_lists(self, seeded_db, tmp_path):
        """`agent-tui sessions` alone printed help and exited 2; it lists, as `trust` does."""
        db, session_id = seeded_db
        from agent_tui.runtime import paths

        paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
        paths.user_config_file().write_text(f'[store]\ndb = "{db}"\n')
        result = cli("sessions", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert session_id in result.stdout
        blobs = cli("blobs", cwd=tmp_path)
        assert blobs.returncode == 0, blobs.stderr
        assert session_id in blobs.stdout

    @pytest.mark.parametrize(
        ("group", "expected"), [("config", "model.name"), ("db", "check"), ("trust", "")]
    )
    def test_every_group_alone_exits_0(self, tmp_path, group, expected):
        """No command group answers its bare name with a usage error."""
        result = cli(group, cwd=tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr
        assert expected in result.stdout
