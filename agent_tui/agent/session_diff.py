"""What a session changed in the workspace, as unified diffs: `/diff`.

The checkpoints `/undo` keeps already say, per file, what it held before the session's first edit
of it (a stored blob, or nothing when the session created it); the diff is that against the file
as it is now. Undone turns are left out (their files are back).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.store import Store


@dataclass(frozen=True)
class FileDiff:
    path: str
    """As recorded (absolute)."""
    diff: str
    """Unified diff, '' when the file is back as it was."""
    added: int
    removed: int


def _lines(data: bytes | None) -> list[str]:
    if data is None:
        return []
    return data.decode("utf-8", "replace").splitlines(keepends=True)


async def session_diff(store: Store, session_id: str, workspace: Path) -> list[FileDiff]:
    """One diff per file the session's edits touched (oldest checkpoint of each = its before)."""
    before: dict[str, str | None] = {}
    for turn in sorted(await store.checkpoints.turns(session_id)):
        for cp in await store.checkpoints.for_turn(session_id, turn):
            before.setdefault(cp.path, cp.before_ref)
    diffs = []
    for path_text, ref in before.items():
        old = await store.results.get_bytes(ref, session_id=session_id) if ref else None
        path = Path(path_text)
        try:
            new: bytes | None = path.read_bytes()
        except FileNotFoundError:
            new = None
        try:
            shown = str(path.relative_to(workspace))
        except ValueError:
            shown = path_text
        lines = list(
            difflib.unified_diff(
                _lines(old),
                _lines(new),
                fromfile="/dev/null" if old is None else f"a/{shown}",
                tofile="/dev/null" if new is None else f"b/{shown}",
            )
        )
        added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
        removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
        text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
        diffs.append(FileDiff(shown, text, added, removed))
    return diffs
