"""Opening the database: location, permissions, pragmas, migrations, refusing foreign files."""

from __future__ import annotations

import sqlite3
import stat

import pytest

from agent_tui.runtime import paths
from agent_tui.store import CorruptDatabase, NewerSchema, open_store
from agent_tui.store.schema import MIGRATIONS


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


class TestLocation:
    async def test_default_path_in_data_dir(self):
        """Without a path the store opens paths.default_db_path()."""
        store = await open_store()
        try:
            assert store.path == paths.default_db_path()
            assert store.path.is_file()
        finally:
            await store.close()

    async def test_folder_0700_and_file_0600(self, tmp_path):
        """A new database gets a private folder and a private file (WAL files follow)."""
        path = tmp_path / "new" / "deeper" / "agent.db"
        store = await open_store(path)
        try:
            session = await store.sessions.create("/p", "m")
            await store.sessions.append(session.id, [])
            assert mode(path.parent) == 0o700
            assert mode(path) == 0o600
            wal = path.with_name(path.name + "-wal")
            assert wal.exists() and mode(wal) == 0o600
        finally:
            await store.close()

    async def test_loose_file_permissions_tightened(self, tmp_path):
        """Reopening an existing database that someone made world-readable makes it 0600."""
        path = tmp_path / "agent.db"
        await (await open_store(path)).close()
        path.chmod(0o644)
        await (await open_store(path)).close()
        assert mode(path) == 0o600


class TestPragmas:
    async def test_wal_foreign_keys_busy_timeout(self, tmp_path):
        """The connection runs in WAL mode with foreign keys on and a busy timeout."""
        store = await open_store(tmp_path / "a.db")
        try:
            conn = store.db.conn
            assert (await (await conn.execute("PRAGMA journal_mode")).fetchone())[0] == "wal"
            assert (await (await conn.execute("PRAGMA foreign_keys")).fetchone())[0] == 1
            assert (await (await conn.execute("PRAGMA busy_timeout")).fetchone())[0] >= 1000
            assert (await (await conn.execute("PRAGMA auto_vacuum")).fetchone())[0] == 2
        finally:
            await store.close()


class TestMigrations:
    async def test_version_and_names_recorded(self, tmp_path):
        """user_version counts the applied migrations, whose names are recorded."""
        path = tmp_path / "a.db"
        await (await open_store(path)).close()
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
            names = [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY applied, rowid")]
        assert names == [name for name, _ in MIGRATIONS]

    async def test_reopen_keeps_data(self, tmp_path):
        """Opening an up-to-date database again applies nothing and keeps its rows."""
        path = tmp_path / "a.db"
        store = await open_store(path)
        created = await store.sessions.create("/p", "m", "kept")
        await store.close()
        store = await open_store(path)
        try:
            assert (await store.sessions.get(created.id)).title == "kept"
        finally:
            await store.close()

    async def test_newer_schema_is_a_clear_error(self, tmp_path):
        """A file from a newer agent-tui is refused with a message naming path and versions."""
        path = tmp_path / "a.db"
        await (await open_store(path)).close()
        with sqlite3.connect(path) as conn:
            conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 3}")
        with pytest.raises(NewerSchema) as err:
            await open_store(path)
        assert str(path) in str(err.value) and "newer agent-tui" in str(err.value)


class TestForeignFiles:
    async def test_non_sqlite_file_untouched(self, tmp_path):
        """A text file at the path is reported by path and left byte for byte as it was."""
        path = tmp_path / "agent.db"
        original = b"not a database at all\n" * 100
        path.write_bytes(original)
        with pytest.raises(CorruptDatabase) as err:
            await open_store(path)
        assert str(path) in str(err.value)
        assert path.read_bytes() == original
        assert not path.with_name("agent.db-wal").exists()

    async def test_corrupt_sqlite_file_untouched(self, tmp_path):
        """An SQLite header over garbage pages is reported as damaged, and not modified."""
        path = tmp_path / "agent.db"
        original = b"SQLite format 3\x00" + bytes(range(256)) * 64
        path.write_bytes(original)
        with pytest.raises(CorruptDatabase) as err:
            await open_store(path)
        assert str(path) in str(err.value)
        assert path.read_bytes() == original

    async def test_other_programs_sqlite_untouched(self, tmp_path):
        """An SQLite database of another program is refused rather than migrated into."""
        path = tmp_path / "other.db"
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE notes (body TEXT)")
        before = path.read_bytes()
        with pytest.raises(CorruptDatabase) as err:
            await open_store(path)
        assert "another program" in str(err.value) and str(path) in str(err.value)
        assert path.read_bytes() == before

    async def test_empty_file_becomes_a_database(self, tmp_path):
        """A zero-byte file (e.g. made by `touch`) is initialised normally."""
        path = tmp_path / "agent.db"
        path.touch()
        store = await open_store(path)
        await store.close()
        assert path.read_bytes().startswith(b"SQLite format 3\x00")
