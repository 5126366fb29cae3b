"""Stored sessions as the picker lists them (this workspace's first, then the rest)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.frontends.session_tree import indented, tree_order
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

    latest = await services.store.sessions.latest_prompts([info.id for info in infos])
    return [
        SessionRow(
            id=info.id,
            title=indented(info.title or "(untitled)", depth)  # sub-agents under their parent
            + (f" ⑂ {info.forked_from}" if info.forked_from else "")
            + _now(info.title, latest.get(info.id)),
            updated_at=info.updated,
            messages=info.message_count,
            tokens=info.tokens,
            model=info.model,
        )
        for info, depth in tree_order(infos)
    ]


def _now(title: str | None, latest: str | None) -> str:
    """The session's latest request beside its title when it is another one: two sessions
    that began with the same words are told apart by where they went."""
    return f" · now: {latest}" if latest and latest != title else ""
