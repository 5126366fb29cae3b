"""The one SQLite connection a Store uses: safe opening, pragmas, and serialised access.

Opening never damages what is at the path: a file that is not SQLite, or an SQLite file of
another program, is reported (naming the path) before anything is written to it. The folder is
created 0700 and the file 0600 — transcripts and tool outputs often hold secrets.

All statements go through one aiosqlite connection, i.e. one thread. An asyncio lock around
every use keeps a transaction's statements together: without it, a read from another tab could
run between an append's BEGIN and COMMIT and see rows that are then rolled back.

Background work that may take long (the recall indexer) gets a second connection (`side`), so
its statements never queue on the turn's thread; it waits for `until_idle` before each write so
a step's own writes rarely meet its lock (WAL lets reads go on meanwhile).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from agent_tui.runtime import paths
from agent_tui.store.chunks import inflate_text
from agent_tui.store.conversation_index import ConversationIndex
from agent_tui.store.errors import CorruptDatabase, StoreError
from agent_tui.store.health import quick_check
from agent_tui.store.schema import APPLICATION_ID, MIGRATIONS, migrate, user_version

log = logging.getLogger(__name__)

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 10_000
"""How long a write waits for another process holding the write lock."""

T = TypeVar("T")


class Database:
    """A connection plus the lock that serialises its use."""

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self.lock = asyncio.Lock()
        self.last_used = 0.0
        """time.monotonic() when the connection was last taken or given back."""
        self._side: Database | None = None
        self._side_opening = asyncio.Lock()

    async def side(self) -> Database:
        """A second connection to the same file for background work (opened on first use)."""
        async with self._side_opening:
            if self._side is None:
                conn = await aiosqlite.connect(str(self.path), isolation_level=None)
                try:
                    await conn.create_function("agent_tui_text", 2, inflate_text, deterministic=True)
                    await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                    await conn.execute("PRAGMA synchronous = NORMAL")
                except BaseException:
                    await conn.close()
                    raise
                self._side = Database(conn, self.path)
            return self._side

    async def until_idle(self, quiet: float, hurry: asyncio.Event) -> None:
        """Return once this connection has been unused for `quiet` seconds (or `hurry` is set)."""
        while not hurry.is_set():
            waited = time.monotonic() - self.last_used
            if not self.lock.locked() and waited >= quiet:
                return
            try:
                await asyncio.wait_for(hurry.wait(), max(quiet - waited, 0.01))
            except TimeoutError:
                pass

    @asynccontextmanager
    async def _held(self) -> AsyncIterator[None]:
        async with self.lock:
            self.last_used = time.monotonic()
            try:
                yield
            finally:
                self.last_used = time.monotonic()

    @asynccontextmanager
    async def write(self) -> AsyncIterator[aiosqlite.Connection]:
        """An IMMEDIATE transaction, committed on success and rolled back on any error.

        A statement handed to the connection's thread runs even if its caller is cancelled
        meanwhile (closing a screen cancels its workers): a BEGIN that ran after its caller was
        cancelled must be rolled back before the lock is released, or every later write would
        fail with "cannot start a transaction within a transaction"."""
        async with self._held():
            try:
                await self._shielded("BEGIN IMMEDIATE")
            except asyncio.CancelledError:
                await self._rollback(quiet=True)
                raise
            try:
                yield self.conn
            except BaseException:
                await self._rollback()
                raise
            else:
                await self._shielded("COMMIT")

    async def transact(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work` run on the connection's thread inside one IMMEDIATE transaction: committed when
        it returns, rolled back when it raises. One trip to the thread, where `write` makes one
        per statement — and each trip back is a turn of the event loop in which the TUI may
        repaint (10-20 ms) before the caller goes on: an append on a step's path made eight.

        Once handed over, the transaction runs to its end even if the caller is cancelled, and
        the lock is held until it has (a cancelled append is then stored, not half-done)."""

        def run(conn: sqlite3.Connection) -> T:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = work(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:  # a failed COMMIT (a full disk) leaves it open
                    conn.execute("ROLLBACK")
                raise
            return result

        async with self._held():
            task = asyncio.ensure_future(_on_its_thread(self.conn, run))
            task.add_done_callback(_retrieved)
            try:
                return await asyncio.shield(task)
            except asyncio.CancelledError:
                await asyncio.wait([task])  # the lock is not given back mid-transaction
                raise

    async def _shielded(self, sql: str) -> None:
        """Run `sql` to its end even if the caller is cancelled while it runs."""
        task = asyncio.ensure_future(self.conn.execute(sql))
        task.add_done_callback(_retrieved)
        await asyncio.shield(task)

    async def _rollback(self, quiet: bool = False) -> None:
        try:
            # Queued behind anything still running, and run even if cancelled again.
            await self._shielded("ROLLBACK")
        except sqlite3.Error:
            if not quiet:  # quiet: the BEGIN may have failed, leaving nothing to roll back
                log.exception("rollback failed in %s", self.path)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection, while no transaction of another task is half done."""
        async with self._held():
            yield self.conn

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        """The rows of one statement, in one trip to the thread (a cursor's execute, fetch and
        close are three, and opening a tab reads a dozen times: see `transact`)."""
        args = tuple(params)
        async with self._held():
            return await _on_its_thread(self.conn, lambda conn: _rows(conn, sql, args, all_rows=True))

    async def fetchone(self, sql: str, params: Iterable[Any] = ()) -> Any:
        """The first row of one statement (or None), in one trip to the thread."""
        args = tuple(params)
        async with self._held():
            return await _on_its_thread(self.conn, lambda conn: _rows(conn, sql, args, all_rows=False))

    def file_bytes(self) -> int:
        """Size on disk: the main file plus its write-ahead log."""
        total = 0
        for suffix in ("", "-wal"):
            try:
                total += os.stat(f"{self.path}{suffix}").st_size
            except OSError:
                pass
        return total

    async def close(self) -> None:
        async with self._side_opening:
            if self._side is not None:
                await self._side.close()
                self._side = None
        async with self.lock:
            await self.conn.close()


async def _on_its_thread(conn: aiosqlite.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    """`work(sqlite3 connection)` on aiosqlite's thread, the one that may use that connection.
    aiosqlite has no public call for this: `_execute` and `_conn` are its private hooks, used here
    alone (tests/test_store_trips.py fails loudly if an upgrade moves them)."""
    result: T = await conn._execute(lambda: work(conn._conn))  # type: ignore[no-untyped-call] # private, untyped
    return result


def _rows(conn: sqlite3.Connection, sql: str, args: tuple[Any, ...], *, all_rows: bool) -> Any:
    cursor = conn.execute(sql, args)
    try:
        return cursor.fetchall() if all_rows else cursor.fetchone()
    finally:
        cursor.close()


def _retrieved(task: asyncio.Future[Any]) -> None:
    """A shielded statement whose caller was cancelled: its error has no one to go to."""
    if not task.cancelled() and task.exception() is not None:
        log.debug("statement finished after its caller was cancelled: %s", task.exception())


def _prepare_location(path: Path) -> None:
    """Check what is at `path` before SQLite touches it; create folder 0700 and file 0600."""
    if path.is_dir():
        raise StoreError(f"{path} is a directory; pass --db with a file path")
    parent = path.parent
    if not parent.exists():
        try:
            parent.mkdir(parents=True, mode=0o700)
            os.chmod(parent, 0o700)
        except OSError as exc:
            raise StoreError(f"cannot create the folder {parent}: {exc.strerror}") from exc
    elif parent == paths.data_dir():
        paths.ensure_private_dir(parent)
    if path.exists():
        try:
            with open(path, "rb") as handle:
                header = handle.read(len(SQLITE_HEADER))
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror}") from exc
        if header and header != SQLITE_HEADER:
            raise CorruptDatabase(
                f"{path} is not an SQLite database (corrupt, or another program's file); "
                "nothing was changed — move it aside or pass --db with another path"
            )
        return
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)
    except FileExistsError:
        pass
    except OSError as exc:
        raise StoreError(f"cannot create {path}: {exc.strerror}") from exc


async def _check_identity(conn: aiosqlite.Connection, path: Path) -> bool:
    """True for a fresh file; raise for an SQLite file that is damaged or not agent-tui's."""
    try:
        async with conn.execute("PRAGMA application_id") as cur:
            row = await cur.fetchone()
            app_id = row[0] if row is not None else 0
        async with conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        ) as cur:
            tables = [row[0] for row in await cur.fetchall()]
        version = await user_version(conn)
    except sqlite3.DatabaseError as exc:
        raise CorruptDatabase(
            f"{path} is damaged ({exc}); nothing was changed — move it aside or restore a "
            "backup, or pass --db with another path"
        ) from exc
    if app_id not in (0, APPLICATION_ID) or (app_id == 0 and tables and version == 0):
        raise CorruptDatabase(
            f"{path} is an SQLite database of another program, not agent-tui's; nothing was "
            "changed — pass --db with another path"
        )
    return not tables and version == 0


def _tighten(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        try:
            os.chmod(f"{path}{suffix}", 0o600)
        except OSError:
            pass


async def open_database(path: Path, index: ConversationIndex | None = None) -> Database:
    """Open (creating and migrating as needed) the database at `path`. `index`: how a migration
    that rebuilds recall's index fills it (default: every call indexed; a fresh file has none)."""
    path = Path(path).expanduser().absolute()
    _prepare_location(path)
    try:
        conn = await aiosqlite.connect(str(path), isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open {path}: {exc}") from exc
    try:
        await conn.create_function("agent_tui_text", 2, inflate_text, deterministic=True)
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        fresh = await _check_identity(conn, path)
        if not fresh:
            await quick_check(conn, path)  # a damaged page: refuse, naming `db check` / `db recover`
        _tighten(path)
        if fresh:
            # Free pages can only be handed back to the file system (by GC) if this is set
            # before the first table exists.
            await conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
        await conn.execute("PRAGMA journal_mode = WAL")
        # NORMAL in WAL mode loses no committed transaction when the process dies; only a power
        # loss can drop the last few, and never corrupts the file.
        await conn.execute("PRAGMA synchronous = NORMAL")
        await conn.execute("PRAGMA foreign_keys = ON")
        await migrate(conn, path, index or ConversationIndex())
        _tighten(path)
    except sqlite3.OperationalError as exc:
        await conn.close()
        raise StoreError(f"cannot open {path}: {exc}") from exc
    except sqlite3.DatabaseError as exc:
        await conn.close()
        raise CorruptDatabase(
            f"{path} is damaged ({exc}); move it aside or pass --db with another path"
        ) from exc
    except BaseException:
        await conn.close()
        raise
    log.debug("opened %s (schema %d)", path, len(MIGRATIONS))
    return Database(conn, path)
