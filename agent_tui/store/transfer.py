"""Export a session (transcript, snapshots, stored outputs, background commands, the session it
was forked from, the parent session of a sub-agent's) to one JSON file, and import it.

The file is written as it is read, an output chunk at a time, so exporting a session with a
huge output never holds it whole; outputs are kept byte for byte (a part is `{"text": …}` when it
is valid UTF-8, `{"base64": …}` otherwise). Ids are kept on import, so refs inside the transcript
still resolve. The file is created 0600: it holds whatever the session held.
"""

from __future__ import annotations

import base64
import json
import os
import sqlite3
import zlib
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from agent_tui.base.messages import Message
from agent_tui.store.chunks import CHUNK_SIZE, decompress
from agent_tui.store.conversation_index import ConversationIndex
from agent_tui.store.db import Database
from agent_tui.store.errors import StoreError
from agent_tui.store.models import SessionInfo
from agent_tui.store.writer import INSERT_CHUNK, Assembler, finish_blob, pack, slices

FORMAT = "agent-tui-session"
VERSION = 1
_BLOB_COLUMNS = ("id", "tool_name", "tool_call_id", "created", "last_accessed", "access_count")
_BACKGROUND_COLUMNS = ("shell_id", "command", "ref", "started", "ended", "state", "exit_code", "told")
"""A background command's row: an imported session resumed is told which ended with it, and
numbers its next command after them (store/background_log.py)."""


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _part(raw: bytes) -> dict[str, str]:
    try:
        return {"text": raw.decode("utf-8")}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(raw).decode("ascii")}


async def _write_rows(db: Database, out: TextIO, sql: str, params: tuple[Any, ...], shape: Any) -> None:
    last, first = 0, True
    while True:
        rows = await db.fetchall(sql, (*params, last))
        if not rows:
            return
        for row in rows:
            last = row[0]
            out.write(("" if first else ",") + _dump(shape(row)))
            first = False


async def export_session(db: Database, info: SessionInfo, path: Path) -> Path:
    path = path.expanduser()
    tmp = path.with_name(path.name + ".partial")
    fd = os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            fork = await db.fetchone("SELECT forked_at FROM sessions WHERE id = ?", (info.id,))
            session = asdict(info) | {"forked_at": fork[0] if fork else None}
            out.write(f'{{"format":"{FORMAT}","version":{VERSION},"session":{_dump(session)}')
            background = await db.fetchall(
                f"SELECT {', '.join(_BACKGROUND_COLUMNS)} FROM background_commands "
                "WHERE session_id = ? ORDER BY started, shell_id",
                (info.id,),
            )
            out.write(
                ',"background":' + _dump([dict(zip(_BACKGROUND_COLUMNS, r, strict=True)) for r in background])
            )
            out.write(',"messages":[')
            await _write_rows(
                db,
                out,
                "SELECT id, seq, tokens, created, json FROM messages WHERE session_id = ? "
                "AND id > ? ORDER BY id LIMIT 500",
                (info.id,),
                lambda r: {"seq": r[1], "tokens": r[2], "created": r[3], "message": json.loads(r[4])},
            )
            out.write('],"snapshots":[')
            await _write_rows(
                db,
                out,
                "SELECT id, token_count, through_seq, created, messages FROM "
                "session_snapshots WHERE session_id = ? AND id > ? ORDER BY id LIMIT 20",
                (info.id,),
                lambda r: {
                    "token_count": r[1],
                    "through_seq": r[2],
                    "created": r[3],
                    "messages": json.loads(r[4]),
                },
            )
            out.write('],"blobs":[')
            blobs = await db.fetchall(
                f"SELECT {', '.join(_BLOB_COLUMNS)} FROM tool_result_blobs "
                "WHERE session_id = ? AND complete = 1 ORDER BY created, rowid",
                (info.id,),
            )
            for index, blob in enumerate(blobs):
                head = _dump(dict(zip(_BLOB_COLUMNS, blob, strict=False)))
                out.write(("," if index else "") + head[:-1] + ',"parts":[')
                seq = 0
                while True:
                    rows = await db.fetchall(
                        "SELECT seq, codec, data FROM blob_chunks WHERE blob_id = ? AND seq >= ? "
                        "ORDER BY seq LIMIT 16",
                        (blob[0], seq),
                    )
                    if not rows:
                        break
                    for seq, codec, data in rows:
                        out.write(("," if seq else "") + _dump(_part(decompress(codec, data))))
                    seq += 1
                out.write("]}")
            out.write("]}\n")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror}") from exc
    except ValueError as exc:
        raise StoreError(f"{path} is not a session export (invalid JSON: {exc})") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise StoreError(f"{path} is not an agent-tui session export")
    if data.get("version") != VERSION:
        raise StoreError(
            f"{path} is export version {data.get('version')}; this agent-tui reads version {VERSION}"
        )
    return data


def _bytes_of(part: dict[str, str]) -> bytes:
    if "text" in part:
        return part["text"].encode("utf-8", "surrogatepass")
    return base64.b64decode(part["base64"], validate=True)


async def _imported_time(conn: Any, project: str, claimed: float) -> float:
    """An export is someone else's file: its times are clamped to now, and to before the newest
    session already in its folder, so an import never becomes what `--continue` picks there
    (continue it by id: `agent-tui -r ID`)."""
    import time

    async with conn.execute("SELECT max(updated) FROM sessions WHERE project = ?", (project,)) as cur:
        row = await cur.fetchone()
    newest = row[0] if row and row[0] is not None else None
    when = min(claimed, time.time())
    return min(when, float(newest) - 0.001) if newest is not None else when


async def import_session(db: Database, path: Path, index: ConversationIndex) -> str:
    """Insert the exported session; return its id. Refuses ids already in the database."""
    data = _load(path.expanduser())
    try:
        session = data["session"]
        session_id = session["id"]
        messages = data["messages"]
        async with db.write() as conn:
            async with conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)) as cur:
                if await cur.fetchone():
                    raise StoreError(
                        f"session {session_id} already exists in {db.path}; "
                        "delete it first to import this copy"
                    )
            updated = await _imported_time(conn, session["project"], float(session["updated"]))
            await conn.execute(
                "INSERT INTO sessions (id, title, project, model, created, updated, "
                "message_count, tokens, forked_from, forked_at, cost, cost_unknown, parent_session_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    session.get("title"),
                    session["project"],
                    session.get("model"),
                    min(float(session["created"]), updated),
                    updated,
                    len(messages),
                    sum(m.get("tokens") or 0 for m in messages),
                    session.get("forked_from"),
                    session.get("forked_at"),
                    session.get("cost") or 0.0,
                    1 if "cost" in session and session["cost"] is None else 0,  # None: a price was unknown
                    session.get("parent_id"),  # a sub-agent's session: the one whose `task` started it
                ),
            )
            await conn.executemany(
                f"INSERT INTO background_commands (session_id, {', '.join(_BACKGROUND_COLUMNS)}) "
                f"VALUES (?{', ?' * len(_BACKGROUND_COLUMNS)})",
                [
                    (session_id, *(row.get(c, 0 if c == "told" else None) for c in _BACKGROUND_COLUMNS))
                    for row in data.get("background", [])
                ],
            )
            await conn.executemany(
                "INSERT INTO messages (session_id, seq, message_id, role, kind, json, tokens, "
                "created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        session_id,
                        m["seq"],
                        m["message"]["id"],
                        m["message"]["role"],
                        m["message"].get("kind", "chat"),
                        _dump(m["message"]),
                        m.get("tokens"),
                        m["created"],
                    )
                    for m in messages
                ],
            )
            await index.add(conn, session_id, [(m["seq"], Message.from_json(m["message"])) for m in messages])
            for snap in data.get("snapshots", []):
                await conn.execute(
                    "INSERT INTO session_snapshots (session_id, messages, token_count, "
                    "through_seq, created) VALUES (?, ?, ?, ?, ?)",
                    (
                        session_id,
                        _dump(snap["messages"]),
                        snap["token_count"],
                        snap["through_seq"],
                        snap["created"],
                    ),
                )
            for blob in data.get("blobs", []):
                await _import_blob(conn, session_id, blob)
    except StoreError:
        raise
    except (AttributeError, KeyError, TypeError, ValueError, zlib.error) as exc:
        raise StoreError(f"{path} is not a valid session export ({type(exc).__name__}: {exc})") from exc
    except sqlite3.IntegrityError as exc:
        raise StoreError(f"{path} holds ids already in {db.path} ({exc}); nothing was imported") from exc
    return str(session_id)


async def _import_blob(conn: Any, session_id: str, blob: dict[str, Any]) -> None:
    await conn.execute(
        "INSERT INTO tool_result_blobs (id, session_id, tool_name, tool_call_id, complete, "
        "created, last_accessed, access_count) VALUES (?, ?, ?, ?, 0, ?, ?, ?)",
        (
            blob["id"],
            session_id,
            blob["tool_name"],
            blob.get("tool_call_id"),
            blob["created"],
            blob.get("last_accessed"),
            blob.get("access_count") or 0,
        ),
    )
    data = b"".join(_bytes_of(part) for part in blob.get("parts", []))
    done = Assembler(blob["id"])
    for start, end in slices(data):
        await conn.executemany(INSERT_CHUNK, done.rows(pack(data, start, end, CHUNK_SIZE)))
    await finish_blob(conn, done)
