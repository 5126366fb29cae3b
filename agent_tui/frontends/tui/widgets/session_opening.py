"""What a tab shows when it opens a session: the transcript to load, the title, the services
under another model. Plain functions over the store and the config (no widgets), used by
`TabOpener.open_session` (tab_opening.py) and `/model`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_tui.base.errors_text import one_line
from agent_tui.base.titles import title_from
from agent_tui.frontends.tui import transcript
from agent_tui.frontends.tui.compaction_line import compaction_line
from agent_tui.frontends.tui.resumed_diffs import with_diffs
from agent_tui.frontends.tui.transcript import NoticeEntry
from agent_tui.llm.models import switched_model

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.base.messages import Message
    from agent_tui.compose.factory import AppServices
    from agent_tui.frontends.tui.transcript import Entry

log = logging.getLogger(__name__)


async def entries_to_show(services: AppServices, session: AgentSession) -> list[Entry]:
    """The whole transcript (what the user saw), not the compacted history the model gets; a
    notice at the end says when the two differ."""

    history = session.history
    said = compacted_notice(history)
    shown: Sequence[Message] = history
    lines: dict[int, list[Entry]] = {}
    if said is not None or session.side.earlier_compactions:
        try:
            shown = await services.store.sessions.transcript(session.session_id)
            lines = await compaction_lines(services, session.session_id)
        except Exception:
            log.warning("could not read the transcript of %s", session.session_id, exc_info=True)
            said, shown = None, history
    entries = transcript.entries_from_history(shown, lines)
    entries = await with_diffs(entries, shown, services.store, session.session_id, session.workspace)
    if said is not None:
        entries.append(NoticeEntry(said))
    return entries


async def compaction_lines(services: AppServices, session_id: str) -> dict[int, list[Entry]]:
    """The chat line of each stored compaction, by the index of the transcript message it came
    after (when it was stored: a compaction adds no message of its own to the transcript)."""
    import bisect
    import json

    # lazy: start-up (the compaction package loads behind the first frame, frontends/tui/warmup.py)
    from agent_tui.context.compaction.result import CompactResult

    stored = await services.store.side.compactions(session_id)
    if not stored:
        return {}
    times = await services.store.sessions.times(session_id)
    lines: dict[int, list[Entry]] = {}
    for created, record in stored:
        result = CompactResult.from_json(json.loads(record))
        line = NoticeEntry(compaction_line(result, None), compaction=result)
        lines.setdefault(bisect.bisect_right(times, created) - 1, []).append(line)
    return lines


def compacted_notice(history: Sequence[Message]) -> str | None:
    """What a resumed chat says about the compacted history the model gets, naming only what
    is there (a summary only when one exists); None when nothing was compacted."""
    kinds: set[str] = {m.kind for m in history}
    if any(m.kind == "note" and (m.content or "").startswith("[Context note: ") for m in history):
        kinds.add("dropped")
    cleared = any(m.role == "tool" and (m.content or "").startswith("[tool output trimmed") for m in history)
    parts = []
    if "summary" in kinds:
        parts.append("a summary of the turns above")
    elif "dropped" in kinds or "retain" in kinds:
        parts.append("a note in place of the older turns (no summary)")
    if cleared:
        parts.append("older tool outputs cleared to refs")
    if not parts and "retain" not in kinds:
        return None
    return f"Compacted earlier: the model sees {' and '.join(parts)} (/context shows what it holds)."


async def read_only(services: AppServices, session_id: str) -> tuple[list[Entry], str]:
    """A stored session shown without a model: its entries and its title."""
    history = await services.store.sessions.transcript(session_id)
    info = await services.store.sessions.get(session_id)
    title = (info.title if info else None) or title_from(history) or "session"

    entries = transcript.entries_from_history(history, await compaction_lines(services, session_id))
    return await with_diffs(entries, history, services.store, session_id, services.workspace), title


def with_model(services: AppServices, name: str) -> tuple[AppServices, list[str]]:
    """The services with `name` as the model (/model), and the [model] keys that stay behind
    because the new model is not on the configured server."""
    config = services.config
    model, left = switched_model(config.model, name)
    return dataclasses.replace(services, config=dataclasses.replace(config, model=model)), left


def error_line(error: BaseException | None) -> str:
    """A worker's failure as one line for the chat (its class name when it says nothing)."""
    return one_line(error or "", 160) or type(error).__name__
