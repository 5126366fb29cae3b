"""Checkpoints around file edits, and `/undo` that puts the files of the last turns back.

A file changed outside the agent since its last checkpoint (its content no longer hashes to what
the agent wrote) is not overwritten unless `force` is given: undo says which and why instead.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

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


async def undo(store: Store, session_id: str, turns: int = 1, *, force: bool = False) -> UndoReport:
    """Restore the files changed by the last `turns` turns with changes, newest first."""
    report = UndoReport()
    for turn_seq in (await store.checkpoints.turns(session_id))[: max(1, turns)]:
        report.turns += 1
        checkpoints = await store.checkpoints.for_turn(session_id, turn_seq)
        done: list[int] = []
        # Per file: the first checkpoint has the content before the turn, the last what it left.
        by_path: dict[str, list[Checkpoint]] = {}
        for cp in checkpoints:
            by_path.setdefault(cp.path, []).append(cp)
        for path_text, cps in by_path.items():
            path = Path(path_text)
            current = sha256_of(path)
            if current != cps[-1].after_sha and not force:
                report.refused.append(
                    (path_text, "changed outside the agent since; use /undo --force to overwrite it")
                )
                continue
            first = cps[0]
            try:
                if first.before_ref is None:
                    path.unlink(missing_ok=True)
                else:
                    data = await store.results.get_bytes(first.before_ref, session_id=session_id)
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(data)
            except Exception as exc:
                log.exception("undo of %s failed", path)
                report.refused.append((path_text, f"could not restore ({exc})"))
                continue
            report.restored.append(path_text)
            done.extend(cp.id for cp in cps)
        await store.checkpoints.mark_undone(done)
    return report
