"""Stored sessions as the picker lists them (this workspace's first, then the rest)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.frontends.tui.screens.resume import SessionRow

if TYPE_CHECKING:
    from agent_tui.compose.factory import AppServices

LIMIT = 200


async def session_rows(services: AppServices, limit: int = LIMIT) -> list[SessionRow]:
    """The newest non-empty sessions, those of the current workspace first."""
    infos = await services.store.sessions.list(limit=limit)
    infos = [info for info in infos if info.message_count]  # nothing to resume in an empty one
    here = str(services.workspace)
    infos = sorted(infos, key=lambda info: (info.project != here, -info.updated))
    from agent_tui.frontends.session_tree import indented, tree_order

    return [
        SessionRow(
            id=info.id,
            title=indented(info.title or "(untitled)", depth)  # sub-agents under their parent
            + (f" ⑂ {info.forked_from}" if info.forked_from else ""),
            updated_at=info.updated,
            messages=info.message_count,
            tokens=info.tokens,
            model=info.model,
        )
        for info, depth in tree_order(infos)
    ]
