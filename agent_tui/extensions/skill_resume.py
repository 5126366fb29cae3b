"""Loaded skills outlive the process: a resumed session has the skills it had loaded.

A loaded skill lives in the system prompt, not in the history, so neither the snapshot nor the
transcript replay brings it back by itself. What the transcript does hold, for good (it is
append-only, compaction never removes rows), is each loading: the `skill` tool's result, and for
`/skill NAME` a note the model reads too. On resume those are read back in order and the skills
turned on again; one that is gone (its file deleted, the folder no longer trusted) is said once.
A loading inside a branch the user rewound away does not count: a rewind turns such a skill off at
once (`realign_after_rewind`) and resume leaves it off.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_tui.base.messages import Message
from agent_tui.store.branches import discarded_branches

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.store import Store

NOTE_PREFIX = "[/skill] "
_LOADED = re.compile(r"^(?:\[/skill\] )?Skill ([A-Za-z0-9][A-Za-z0-9_.:-]*) loaded\b")


def loaded_line(name: str, by_user: bool = False) -> str:
    """The sentence that says a skill was loaded: the `skill` tool's result opens with it, and
    `/skill` records it as a note (`by_user`); resume reads them back."""
    who = " by the user" if by_user else ""
    text = f"Skill {name} loaded{who}: its instructions are now in your system prompt (# Skill: {name})."
    return NOTE_PREFIX + text if by_user else text


def _name(message: Message) -> str | None:
    text = message.content or ""
    if message.role == "tool" and message.name == "skill":
        match = _LOADED.match(text)
    elif message.role == "user" and message.kind == "note" and text.startswith(NOTE_PREFIX):
        match = _LOADED.match(text)
    else:
        return None
    return match.group(1) if match else None


async def loaded_names(store: Store, session_id: str) -> list[str]:
    """The skills this session's transcript says were loaded, in loading order, leaving out
    loadings in a branch a rewind discarded."""
    rows = await store.db.fetchall(
        "SELECT seq, json FROM messages WHERE session_id = ? AND role IN ('tool', 'user') "
        "AND json LIKE '%Skill % loaded%' ORDER BY seq",
        (session_id,),
    )
    discarded = await discarded_branches(store.db, session_id) if rows else []
    names: list[str] = []
    for seq, raw in rows:
        if any(branch.holds(int(seq)) for branch in discarded):
            continue
        try:
            name = _name(Message.loads(raw))
        except (ValueError, TypeError, KeyError):
            continue
        if name is not None and name not in names:
            names.append(name)
    return names


async def restore(session: AgentSession) -> None:
    """Turn the session's loaded skills back on (resume)."""
    if session.store is None:
        return
    for name in await loaded_names(session.store, session.session_id):
        try:
            session.prompts.activate_skill(name)
        except ValueError:
            session.tell_later(  # said at the start of the next turn, as repairs are
                [
                    f"skill {name}, loaded earlier in this session, is not available now "
                    "(its file is gone or the folder is not trusted); it is not in the prompt"
                ]
            )


async def realign_after_rewind(session: AgentSession) -> list[str]:
    """After a rewind of the conversation: turn off the skills only the discarded branch loaded
    (the session would otherwise keep instructions the user went back before). Returns them."""
    if session.store is None:
        return []
    kept = set(await loaded_names(session.store, session.session_id))
    active = session.prompts.user_prompts.active
    off = [name for name in active if name not in kept]
    for name in off:
        session.prompts.deactivate_skill(name)
    return off


async def load_by_hand(session: AgentSession, name: str) -> None:
    """`/skill NAME`: turn it on and record that in the transcript (ValueError when unknown)."""
    session.prompts.activate_skill(name)
    await session.add_note(loaded_line(name, by_user=True))
