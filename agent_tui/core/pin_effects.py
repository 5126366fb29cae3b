"""/pin, /unpin and /handoff for every front end (core/commands.py registers them): what is
kept beside the conversation, and carrying it to a new session.

`/pin TEXT` pins the text; `/pin r_…:L3-9` pins those lines of a stored output and `/pin m_12`
the text of transcript message 12 (`m_12-30`: those messages; what the chat's tool lines and the compaction record name),
so what is pinned is the stored original, not a view. `/unpin ID` removes a pin, the model's too.
`/handoff [goal]` (agent/handoff.py) makes the new session where the front end cannot open it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_tui.context.side_state import PinBudgetFull
from agent_tui.core.command_effects import require
from agent_tui.core.replies import Reply, Unavailable
from agent_tui.store import StoreError

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.core.command_host import CommandHost

OUTPUT_LINES = re.compile(r"^(r_[0-9a-f]{10})(?::L(\d+)(?:-(\d+))?)?$")
MESSAGE = re.compile(r"^m_(\d+)(?:-(\d+))?$")
MAX_PINNED_LINES = 200


async def _source_text(session: AgentSession, argument: str) -> tuple[str, str] | None:
    """(text, source) when `argument` names stored lines or a message; None for plain text."""
    store = session.store
    lines = OUTPUT_LINES.match(argument)
    message = MESSAGE.match(argument)
    if store is None or not (lines or message):
        return None

    try:
        if lines:
            ref, first = lines.group(1), int(lines.group(2) or 1)
            last = int(lines.group(3) or lines.group(2) or MAX_PINNED_LINES)
            count = min(max(last - first + 1, 1), MAX_PINNED_LINES)
            text = "\n".join(await store.results.read_lines(ref, first, count, session.session_id))
            return text, f"{ref} lines {first}-{first + count - 1}"
        assert message is not None
        first, last = int(message.group(1)), int(message.group(2) or message.group(1))
        text = await store.transcript.read(f"m_{first}-{last}", session_id=session.session_id)
        return text, f"message {first}" if first == last else f"messages {first}-{last}"
    except StoreError as exc:
        raise Unavailable(f"Nothing pinned: {exc}") from None


async def pin(host: CommandHost, argument: str) -> Reply:
    session = require(host)
    text = argument.strip()
    if not text:
        return Reply("/pin", text=pins_text(session) or "No pins. /pin TEXT keeps TEXT in every request.")
    found = await _source_text(session, text)
    body, source = found if found is not None else (text, "")
    try:
        pinned = await session.side.pin(body, source=source)
    except PinBudgetFull as exc:
        return Reply("/pin", text=str(exc), level="warning")
    except ValueError as exc:
        return Reply("/pin", text=f"Nothing pinned: {exc}", level="warning")
    where = f" from {source}" if source else ""
    return Reply(
        "/pin",
        text=f"Pinned {pinned.id}{where} ({pinned.tokens} tokens; "
        f"{session.side.state.pin_tokens()} of {session.side.state.pin_budget} used). /unpin {pinned.id} removes it.",
    )


async def unpin(host: CommandHost, argument: str) -> Reply:
    session = require(host)
    wanted = argument.strip()
    if not wanted:
        return Reply("/unpin", text=pins_text(session) or "No pins.", tail="/unpin ID removes one.")
    removed = await session.side.unpin(wanted)
    if removed is None:
        known = ", ".join(p.id for p in session.side.state.pins) or "none"
        return Reply("/unpin", text=f"No pin {wanted} (pins: {known}).", level="warning")
    return Reply("/unpin", text=f"Unpinned {removed.id}: {removed.text[:80]}")


def pins_text(session: AgentSession) -> str:
    return "\n".join(session.side.state.describe_lines())


async def handoff(host: CommandHost, argument: str) -> Reply:
    """/handoff [goal] where the front end cannot open the new session itself (`run`, an
    editor): the session is made and named, to continue with `-s ID`."""
    from agent_tui.agent.handoff import hand_off  # lazy: start-up

    session = require(host)
    services = host.services
    if services is None or session.store is None:
        raise Unavailable("Hand-off needs the session store, which is not open.")
    new_id = await hand_off(services.store, session, argument)
    return Reply(
        "/handoff",
        text=f"Handed off to a new session {new_id}: a summary for the goal, the pins, the task list "
        f'and refs into {session.session_id}. Continue it with `agent-tui run -s {new_id} "…"` '
        f"(or `-r {new_id}`).",
    )
