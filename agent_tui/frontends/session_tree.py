"""Sessions as a tree: each sub-agent's session right under the session that started it.

`sessions list` and the /resume picker show the tree; the store keeps a parent id per session
(agent/subagents.py). A child whose parent is not in the list stands on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.store.models import SessionInfo

INDENT = "  ↳ "


def tree_order(infos: Sequence[SessionInfo]) -> list[tuple[SessionInfo, int]]:
    """(session, depth) with the roots in the given order, each followed by its children
    (oldest first, recursively)."""
    present = {info.id for info in infos}
    children: dict[str, list[SessionInfo]] = {}
    for info in infos:
        if info.parent_id is not None and info.parent_id in present:
            children.setdefault(info.parent_id, []).append(info)
    out: list[tuple[SessionInfo, int]] = []

    def walk(info: SessionInfo, depth: int) -> None:
        out.append((info, depth))
        for child in sorted(children.get(info.id, ()), key=lambda c: c.created):
            walk(child, depth + 1)

    for info in infos:
        if info.parent_id is None or info.parent_id not in present:
            walk(info, 0)
    return out


def indented(title: str, depth: int) -> str:
    """A title as the tree shows it: a child's under its parent with `↳`."""
    return ("  " * (depth - 1) + INDENT + title) if depth else title
