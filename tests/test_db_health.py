"""A really damaged database page: opening refuses in one line naming `db check` and
`db recover`; `db check` lists the problems; `db recover` salvages every readable session into
a new file that opens and resumes. (Before, `integrity_check` reported the page and everything
carried on silently until some read failed.)"""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.base.messages import assistant, user
from agent_tui.store import CorruptDatabase, open_store

SESSIONS = 6
PER_SESSION = 60


async def build(path: Path) -> list[str]:
    store = await open_store(path)
    try:
        ids = []
        for s in range(SESSIONS):
            info = await store.sessions.create("/proj", "m", title=f"session {s}")
            ids.append(info.id)
            for i in range(PER_SESSION // 2):
                await store.sessions.append(
                    info.id,
                    [user(f"question {s}.{i} " + "x" * 300), assistant(f"answer {s}.{i} " + "y" * 300)],
                )
            await store.results.offload(info.id, "bash", f"c{s}", f"output of session {s}\n" * 50)
        return ids
    finally:
        await store.close()


def damage_a_messages_leaf(path: Path) -> int:
    """Overwrite one leaf page of the messages table with random bytes; return its number."""
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'messages'").fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    node = data[(root - 1) * page_size : root * page_size]
    assert node[0] == 0x05, "messages must span several pages (an interior root)"
    cells = int.from_bytes(node[3:5], "big")
    pointer = int.from_bytes(node[12 + 2 * (cells // 2) : 14 + 2 * (cells // 2)], "big")
    leaf = int.from_bytes(node[pointer : pointer + 4], "big")  # a child page in the middle
    rng = random.Random(7)
    data[(leaf - 1) * page_size : leaf * page_size] = bytes(rng.randrange(256) for _ in range(page_size))
    path.write_bytes(bytes(data))
    return leaf


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        timeout=120,
    )


@pytest.fixture
def damaged(tmp_path) -> Path:
    path = tmp_path / "agent.db"
    asyncio.run(build(path))
    damage_a_messages_leaf(path)
    return path


class TestDamagedDatabase:
    async def test_open_refuses_with_the_way_out(self, damaged):
        """quick_check on open: one line naming the file, db check and db recover."""
        before = damaged.read_bytes()
        with pytest.raises(CorruptDatabase) as err:
            await open_store(damaged)
        message = str(err.value)
        assert "\n" not in message and str(damaged) in message
        assert "agent-tui db check" in message and "agent-tui db recover" in message
        assert damaged.read_bytes() == before  # nothing written to the damaged file

    def test_run_on_a_damaged_database_is_one_line(self, damaged, tmp_path):
        out = cli("run", "hi", "--model", "openai/x", "--db", str(damaged), cwd=tmp_path)
        assert out.returncode == 1
        assert len(out.stderr.strip().splitlines()) == 1 and "db recover" in out.stderr

    def test_db_check_lists_the_problems(self, damaged, tmp_path):
        out = cli("db", "check", "--db", str(damaged), cwd=tmp_path)
        assert out.returncode == 1 and "damaged" in out.stdout and "db recover" in out.stdout
        healthy = tmp_path / "ok.db"
        asyncio.run(build(healthy))
        good = cli("db", "check", "--db", str(healthy), cwd=tmp_path)
        assert good.returncode == 0 and good.stdout.strip() == f"{healthy}: ok"

    def test_recover_salvages_sessions_into_a_new_file(self, damaged, tmp_path):
        """Every session and all readable messages land in a healthy new file that opens,
        lists, resumes and searches; the damaged file is untouched."""
        target = tmp_path / "saved.db"
        before = damaged.read_bytes()
        out = cli("db", "recover", "--db", str(damaged), "--to", str(target), cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        assert (
            f"recovered {SESSIONS} sessions" in out.stdout
            and "unreadable rows (skipped): messages" in out.stdout
        )
        assert damaged.read_bytes() == before
        assert cli("db", "check", "--db", str(target), cwd=tmp_path).returncode == 0

        async def inspect() -> tuple[int, int, str]:
            store = await open_store(target)
            try:
                sessions = await store.sessions.list()
                total = 0
                for info in sessions:
                    total += len(await store.sessions.transcript(info.id))
                refs = await store.results.list_blobs(None, None, 100)
                text = await store.results.get_text(refs[0].ref.id)
                return len(sessions), total, text
            finally:
                await store.close()

        count, messages, text = asyncio.run(inspect())
        assert count == SESSIONS
        assert SESSIONS * PER_SESSION * 0.8 < messages < SESSIONS * PER_SESSION  # one page lost
        assert text.startswith("output of session")

    def test_recover_refuses_to_overwrite(self, damaged, tmp_path):
        target = tmp_path / "exists.db"
        target.write_text("")
        out = cli("db", "recover", "--db", str(damaged), "--to", str(target), cwd=tmp_path)
        assert out.returncode == 1 and "already exists" in out.stderr
