"""The session's history and its transcript: what enters them and how they are kept sendable.

Everything that changes a session's history lives here: appending (valid UTF-8 only), adopting
a new history from compaction, snapshots, the repairs that make a resumed or damaged history
sendable (agent/wire.py), a message too large for the window becoming a view, and a failed send
leaving the live history. The session owns one `SessionHistory` and calls it; nothing else writes
the history. It measures nothing itself: where the window matters, the session passes the budget.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.agent import events as ev
from agent_tui.agent import wire
from agent_tui.agent.attachments import PreparedPrompt, fit_prompt, paste_threshold, prepare_prompt
from agent_tui.agent.image_attach import takes_images
from agent_tui.agent.lost_writes import describe_lost
from agent_tui.base.messages import Message, user
from agent_tui.base.utf8 import clean_text

if TYPE_CHECKING:
    from agent_tui.config import Config
    from agent_tui.context.budget import BudgetMeter, ContextBudget
    from agent_tui.store import Store

log = logging.getLogger(__name__)


class SessionHistory:
    """A session's live history and the transcript it is kept in step with."""

    def __init__(
        self,
        *,
        session_id: str,
        meter: BudgetMeter,
        store: Store | None,
        messages: list[Message],
        workspace: Path,
    ) -> None:
        self.session_id = session_id
        self.meter = meter
        self.store = store
        self.messages = messages
        self.workspace = workspace
        self.pending_images: list[tuple[str, bytes]] = []
        """Pictures the next user message carries besides its `@` mentions (an editor's image
        blocks, frontends/acp/images.py): (name, bytes) each, taken by `prepare`."""
        self.scan = wire.Scan()
        """What `repair` asks before every request, kept up to date as the history grows."""
        self.unsaid: list[str] = []
        """Repairs made (and notices given) while no turn ran, said at the next one."""
        self._lost_writes: list[str] = []  # writes the store failed (agent/lost_writes.py)
        self._writing: asyncio.Future[list[int]] | None = None
        """The write `add_soon` started, until a later write of this history has waited for it."""

    async def add_note(self, text: str) -> None:
        """Tell the model something the user did outside a turn (e.g. /undo), in the history."""
        await self.add(Message(role="user", content=text, kind="note"))

    # -- persistence -----------------------------------------------------------------------

    async def settled(self) -> None:
        """Wait for the write `add_soon` started: every later write does first, so the
        transcript keeps its order (and the session's close, so nothing is left half-stored)."""
        if (writing := self._writing) is not None:
            await asyncio.shield(writing)
            if self._writing is writing:
                self._writing = None

    async def _persist(self, *messages: Message) -> list[int]:
        await self.settled()
        return await self._store(*messages)

    async def _store(self, *messages: Message) -> list[int]:
        if self.store is None or not messages:
            return []
        tokens = [self.meter.counter.count_message(m) for m in messages]
        try:
            return await self.store.sessions.append(self.session_id, list(messages), tokens)
        except Exception as exc:
            log.exception("could not persist %d message(s)", len(messages))
            self._lost_writes.append(describe_lost(messages, exc))  # said when the turn ends
            return []

    def take_lost_writes(self) -> list[str]:
        """What the store failed to save since last asked, one line each."""
        lost = list(self._lost_writes)
        self._lost_writes.clear()
        return lost

    async def add(self, *messages: Message) -> list[int]:
        """Append to the history and the transcript; the transcript's sequence numbers."""
        messages = tuple(_clean(m) for m in messages)
        self.messages.extend(messages)
        return await self._persist(*messages)

    def add_soon(self, message: Message, stored: Callable[[list[int]], None]) -> None:
        """Append to the history now and to the transcript meanwhile: the turn's message, whose
        request need not wait for the store's thread (each trip back is a turn of the event
        loop, where the TUI may repaint for 10-20 ms before the request leaves). `stored` gets
        its sequence numbers once written; a write that fails is a lost write, said at the turn's
        end. The write is its own task: a turn cancelled meanwhile still stores the message."""
        message = _clean(message)
        self.messages.append(message)

        async def write(earlier: asyncio.Future[list[int]] | None) -> list[int]:
            if earlier is not None:
                await asyncio.shield(earlier)
            seqs = await self._store(message)
            stored(seqs)
            return seqs

        self._writing = asyncio.ensure_future(write(self._writing))

    async def adopt(
        self, history: Sequence[Message], *, persist: Sequence[Message] = (), snapshot: bool = False
    ) -> None:
        """Replace the live history (compaction, trimming, a fresh loop iteration): every derived
        count is rebuilt, `persist` is appended to the transcript, and with `snapshot` the new
        history becomes what resume starts from."""
        self.messages = list(history)
        self.meter.history_rewritten()
        await self._persist(*persist)
        if snapshot:
            await self.save_snapshot()

    async def save_snapshot(self) -> None:
        """Make the live history what resume loads (the transcript after it is replayed on top)."""
        if self.store is None:
            return
        await self.settled()  # the snapshot's `through` counts what add_soon is still writing
        try:
            through = await self.store.sessions.last_sequence(self.session_id)
            tokens = self.meter.counter.count_messages(self.messages)
            await self.store.sessions.save_snapshot(self.session_id, list(self.messages), tokens, through)
        except Exception:
            log.exception("saving the snapshot failed; resume will replay the transcript")

    # -- repairs ---------------------------------------------------------------------------

    async def repair(self, *, in_turn: bool) -> list[str]:
        """Make the history answerable before it is sent (on resume and before every request):
        failed sends leave it, and every call without a result gets an interrupted one, appended
        to the transcript. Returns what is to be said to the user (also what earlier calls
        repaired while no turn was running); outside a turn it is kept for the next one."""
        said, self.unsaid = self.unsaid, []
        if self.scan.has_unsent(self.messages):
            await self.adopt(wire.without_unsent(self.messages))
        fixes = self.scan.repairs(self.messages)
        if fixes:
            await self.add(*fixes)
            said.append(
                f"{len(fixes)} tool call(s) had no result (agent-tui stopped while they ran); "
                "they are marked interrupted."
            )
        if not in_turn:
            self.unsaid, said = said, []
        return said

    async def fit_oversize(
        self, budget: ContextBudget, config: Config, room: int | None = None
    ) -> AsyncIterator[ev.AgentEvent]:
        """A user message that alone cannot fit the window (an older session, a huge paste sent
        before the window was known) is stored whole and replaced by a head+tail view with its ref.
        `room` (calibrated tokens) is tighter when a refused request must come back smaller."""
        room = budget.effective_window - budget.fixed if room is None else max(room, 64)
        counter = self.meter.counter
        # Counts are the counter's, the room is calibrated: a provider that makes more tokens of
        # the same text (its count of a refused request says so) leaves fewer of ours.
        ratio = max(self.meter.calibration.ratio, 1.0)
        changed = False
        history = list(self.messages)
        for i, message in enumerate(history):
            if (
                message.role != "user"
                or not message.content
                or counter.count_message(message) * ratio <= room
            ):
                continue
            fitted = await fit_prompt(
                message.content,
                room_tokens=int(room * 0.9 / ratio),
                store=self.store,
                session_id=self.session_id,
                max_line_length=config.tool_output.max_line_length,
            )
            history[i] = message.with_content(fitted.text)
            changed = True
            for note in fitted.notes:
                yield ev.Notice(note)
        if changed:
            await self.adopt(history, snapshot=True)

    async def prepare(
        self, prompt: str, as_is: bool, budget: ContextBudget, config: Config
    ) -> PreparedPrompt:
        """The user's message as it enters the history: attachments, a large paste offloaded
        (the threshold shrinks with the window), and never more than the window can hold."""
        prompt = clean_text(prompt)
        prepared = (
            PreparedPrompt(prompt)
            if as_is
            else await prepare_prompt(
                prompt,
                workspace=self.workspace,
                store=self.store,
                session_id=self.session_id,
                threshold=paste_threshold(config.agent.result_offload_threshold, budget.effective_window),
                max_line_length=config.tool_output.max_line_length,
                model=config.model.name,
                takes_images=takes_images(config.model.name),
                extra_images=self.pending_images,
            )
        )
        self.pending_images = []
        room = budget.effective_window - budget.fixed
        if self.meter.counter.count_message(user(prepared.text)) <= room:
            return prepared
        fitted = await fit_prompt(
            prepared.text,
            room_tokens=room,
            store=self.store,
            session_id=self.session_id,
            max_line_length=config.tool_output.max_line_length,
        )
        return PreparedPrompt(
            fitted.text, [*prepared.refs, *fitted.refs], [*prepared.notes, *fitted.notes], prepared.images
        )

    async def unsend(self, message: Message, reason: str) -> None:
        """A send that failed before anything came back: the message leaves the live history
        (so a retry sends it once) and the transcript records the failure (resume skips both)."""
        kept = [m for m in self.messages if m.id != message.id]
        await self.adopt(kept, persist=[wire.unsent_marker(message, reason)])


def _clean(message: Message) -> Message:
    """The message with valid UTF-8 text only (the store and every provider reject surrogates)."""
    content = message.content
    if content is None or clean_text(content) is content:
        return message
    return replace(message, content=clean_text(content))
