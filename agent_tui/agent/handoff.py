"""Hand-off: start a fresh session from this one instead of compacting it in place (Amp's
`/handoff`; codex #31106 asks for it before auto-compaction).

The new session opens with a summary written for the goal the user names, the pins and the task
list (copied beside its conversation), and refs into the old session: its stored outputs resolve
by their short ids (the new session continues the old one, as a fork does) and its whole
transcript by a `ctx://…/messages:1-N` range, so `read_result` and `recall` reach everything the
old session held. Front ends open the new session; the old one stays as it was.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from agent_tui.base.messages import Message
from agent_tui.context.compaction import build_instructions
from agent_tui.context.compaction.ref_labels import labels_of, listing_cap, omitted_count, ref_listing
from agent_tui.context.compaction.shape import collect_refs
from agent_tui.context.compaction.summary_prompt import SummaryFailed, summarise_history
from agent_tui.store.forks import continue_from
from agent_tui.store.refs import build_uri

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.store import Store

log = logging.getLogger(__name__)

SUMMARY_TOKENS = 2000
GOAL_NOTE = (
    "This summary opens a NEW session that continues the work (a hand-off), not a compaction: "
    "write what the next session needs to reach this goal — decisions, state, files, open "
    "problems, next steps: {goal}"
)


async def hand_off(store: Store, session: AgentSession, goal: str = "") -> str:
    """The id of a new session seeded from `session` for `goal` (its turns not run yet)."""
    goal = goal.strip() or "carry on with the current work"
    history = list(session.history)
    summary = await _summary(session, history, goal)
    info = await store.sessions.create(
        str(session.workspace), session.model, title=f"{session.shown_title or 'session'} (hand-off)"
    )

    await continue_from(store.db, info.id, session.session_id)
    await session.side.save()  # the pins and task list as they are now
    await store.side.copy(session.session_id, info.id)
    last = await store.sessions.last_sequence(session.session_id)
    transcript = build_uri(str(session.workspace), session.session_id, f"messages:1-{last}")
    refs = collect_refs(history)
    counter = session.meter.counter
    listing = ref_listing(refs, labels_of(history), counter, listing_cap(20_000), omitted_count(history))
    seed = (
        f"[Hand-off from session {session.session_id} ({session.shown_title or 'untitled'}) for: {goal}]\n"
        f'Its whole transcript stays readable: read_result(ref_id="{transcript}") pages through '
        'it; recall(query="…") searches it.'
    )
    if listing:
        seed += "\nIts stored outputs (read_result(ref_id=…) brings one back):\n" + listing
    messages = [
        Message(role="user", content=seed, kind="retain"),
        Message(
            role="assistant",
            content=f"[Summary of session {session.session_id}, for the hand-off]\n{summary}",
            kind="summary",
        ),
    ]
    await store.sessions.append(info.id, messages)
    return info.id


async def _summary(session: AgentSession, history: list[Message], goal: str) -> str:
    """The summary for `goal` by the session's summariser (its fallback next); a plain note
    when neither can write one (the refs still reach everything)."""
    compactor = session.compactor
    instructions = build_instructions(session.config.compaction, GOAL_NOTE.format(goal=goal))
    for summarizer in (compactor.summarizer, compactor.fallback):
        if summarizer is None or not history:
            continue
        try:
            retain, summary = await summarise_history(
                summarizer,
                history,
                instructions=instructions,
                max_tokens=SUMMARY_TOKENS,
                window=compactor.summary_window(
                    session.limits.context_window - session.limits.max_output_tokens,
                    session.meter.calibration,
                ),
                counter=session.meter.counter,
                progress=lambda _label: None,
            )
        except SummaryFailed as exc:
            log.warning("hand-off summary failed: %s", exc)
            continue
        return f"{retain.strip()}\n{summary.strip()}".strip()
    return "(No summary could be written; the transcript and outputs below hold everything.)"
