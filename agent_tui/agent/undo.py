"""Checkpoints around file edits, and `/undo` that puts the files of the last turns back.

A file changed outside the agent since its last checkpoint (its content no longer hashes to what
the agent wrote) is not overwritten unless `force` is given: undo says which and why instead.
A restore writes through the same wall as `write_file` (tools/workspace.py `confine` and
`write_confined`): a checkpointed path whose folder became a symlink out of the workspace is
left alone, and a protected path (`.git/…`, rules and config files) is put back only with `force`.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.store.errors import SessionNotFound
from agent_tui.tools.protected import protected_reason
from agent_tui.tools.workspace import PathError, confine, remove_confined, write_confined

if TYPE_CHECKING:
    from agent_tui.store import Store
    from agent_tui.store.checkpoints import Checkpoint

log = logging.getLogger(__name__)


def sha256_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


@dataclass
class UndoReport:
    restored: list[str] = field(default_factory=list)
    """Files put back (or removed, when the turn had created them)."""
    refused: list[tuple[str, str]] = field(default_factory=list)
    """(file, why) for files left alone."""
    turns: int = 0

    def describe(self, workspace: Path | None = None) -> str:
        def show(path: str) -> str:
            p = Path(path)
            return str(p.relative_to(workspace)) if workspace and p.is_relative_to(workspace) else path

        if not self.turns:
            return "Nothing to undo: no file changes recorded in this session."
        parts = []
        if self.restored:
            parts.append(
                f"Restored {len(self.restored)} file(s) from {self.turns} turn(s): "
                + ", ".join(show(p) for p in self.restored)
            )
        for path, why in self.refused:
            parts.append(f"Left {show(path)} alone: {why}")
        return "\n".join(parts) or "Nothing was restored."


class Checkpointer:
    """Captures a file's content before an edit and records the change after it."""

    def __init__(self, store: Store, session_id: str) -> None:
        self.store = store
        self.session_id = session_id
        self.turn_seq = 0
        """Transcript sequence of the user message of the running turn (set by `start_turn`)."""

    def start_turn(self, turn_seq: int) -> None:
        """Edits from now on belong to the turn whose user message has this sequence number,
        so /undo puts them back together."""
        self.turn_seq = turn_seq

    async def before(self, tool_name: str, path: Path, call_id: str) -> str | None:
        """Store the current content; returns the blob id (None when the file is new)."""
        if not path.is_file():
            return None
        ref = await self.store.results.offload(
            self.session_id, f"checkpoint:{tool_name}", call_id, path.read_bytes()
        )
        return ref.id

    async def after(self, path: Path, before_ref: str | None) -> None:
        after = sha256_of(path)
        if after is None:
            return
        await self.store.checkpoints.record(self.session_id, self.turn_seq, str(path), before_ref, after)


def _unsafe(workspace: Path, path_text: str) -> str | None:
    """Why restoring `path_text` would cross a wall, or None: outside the workspace now (a folder
    on the way became a link), or a protected path that needs the user's insistence (`force`)."""

    try:
        confine(workspace, path_text)
    except PathError as exc:
        return f"outside the workspace now: {exc}"
    why = protected_reason(workspace, path_text)
    return f"a protected path ({why}); use /undo --force to put it back" if why else None


async def undo(store: Store, session_id: str, turns: int = 1, *, force: bool = False) -> UndoReport:
    """Restore the files changed by the last `turns` turns with changes, newest first."""
    report = UndoReport()

    try:
        workspace: Path | None = Path((await store.sessions.get(session_id)).project)
    except SessionNotFound:
        workspace = None  # an unknown session has no checkpoints either
    for turn_seq in (await store.checkpoints.turns(session_id))[: max(1, turns)]:
        report.turns += 1
        checkpoints = await store.checkpoints.for_turn(session_id, turn_seq)
        done: list[int] = []
        # Per file: the first checkpoint has the content before the turn, the last what it left.
        by_path: dict[str, list[Checkpoint]] = {}
        for cp in checkpoints:
            by_path.setdefault(cp.path, []).append(cp)
        for path_text, cps in by_path.items():
            why = _unsafe(workspace, path_text) if workspace is not None else None
            if why is not None and (force is False or why.startswith("outside")):
                report.refused.append((path_text, why))
                continue
            path = Path(path_text)
            current = sha256_of(path)
            if current != cps[-1].after_sha and not force:
                report.refused.append(
                    (path_text, "changed outside the agent since; use /undo --force to overwrite it")
                )
                continue
            first = cps[0]
            try:
                if workspace is None:
                    raise PathError("the session's workspace is unknown")
                if first.before_ref is None:
                    remove_confined(workspace, path)
                else:
                    data = await store.results.get_bytes(first.before_ref, session_id=session_id)
                    write_confined(workspace, path, data)
            except PathError as exc:  # the wall held: a folder on the way became a link
                report.refused.append((path_text, f"could not restore ({exc})"))
                continue
            except Exception as exc:
                log.exception("undo of %s failed", path)
                report.refused.append((path_text, f"could not restore ({exc})"))
                continue
            report.restored.append(path_text)
            done.extend(cp.id for cp in cps)
        await store.checkpoints.mark_undone(done)
    return report
