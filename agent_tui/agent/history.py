"""The session's history and its transcript: what enters them and how they are kept sendable.

Everything that changes `AgentSession.history` lives here: appending (valid UTF-8 only), adopting
a new history from compaction, snapshots, the repairs that make a resumed or damaged history
sendable (agent/wire.py), a message too large for the window becoming a view, and a failed send
leaving the live history. The loop in `session.py` calls these; nothing else writes the history.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.agent import events as ev
from agent_tui.agent import wire
from agent_tui.agent.attachments import PreparedPrompt, fit_prompt, paste_threshold, prepare_prompt
from agent_tui.agent.lost_writes import describe_lost
from agent_tui.messages import Message, user
from agent_tui.utf8 import clean_text

if TYPE_CHECKING:
    from agent_tui.agent.tool_runner import ToolRunner
    from agent_tui.config import Config
    from agent_tui.context.budget import BudgetMeter, ContextBudget
    from agent_tui.store import Store

log = logging.getLogger(__name__)


class SessionHistory:
    """The history half of `AgentSession` (which sets these attributes)."""

    session_id: str
    config: Config
    meter: BudgetMeter
    store: Store | None
    history: list[Message]
    workspace: Path
    busy: bool
    _unsaid: list[str]
    _lost_writes: list[str]
    runner: ToolRunner
    scan: wire.Scan
    """What `repair` asks before every request, kept up to date as the history grows."""

    def measure(self, *, with_status: bool = True) -> ContextBudget:
        raise NotImplementedError

    async def add_note(self, text: str) -> None:
        """Tell the model something the user did outside a turn (e.g. /undo), in the history."""
        await self._add(Message(role="user", content=text, kind="note"))

    # -- persistence -----------------------------------------------------------------------

    async def _persist(self, *messages: Message) -> list[int]:
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
        """What the store failed to save since last asked (messages, tool outputs), one line each."""
        lost = [*self._lost_writes, *self.runner.take_lost_writes()]
        self._lost_writes.clear()
        return lost

    async def _add(self, *messages: Message) -> list[int]:
        messages = tuple(_clean(m) for m in messages)
        self.history.extend(messages)
        return await self._persist(*messages)

    async def adopt_history(
        self, history: Sequence[Message], *, persist: Sequence[Message] = (), snapshot: bool = False
    ) -> None:
        """Replace the live history (compaction, trimming, a fresh loop iteration): every derived
        count is rebuilt, `persist` is appended to the transcript, and with `snapshot` the new
        history becomes what resume starts from."""
        self.history = list(history)
        self.meter.history_rewritten()
        await self._persist(*persist)
        if snapshot:
            await self.save_snapshot()

    async def save_snapshot(self) -> None:
        """Make the live history what resume loads (the transcript after it is replayed on top)."""
        if self.store is None:
            return
        try:
            through = await self.store.sessions.last_sequence(self.session_id)
            tokens = self.meter.counter.count_messages(self.history)
            await self.store.sessions.save_snapshot(self.session_id, list(self.history), tokens, through)
        except Exception:
            log.exception("saving the snapshot failed; resume will replay the transcript")

    # -- repairs ---------------------------------------------------------------------------

    async def repair(self) -> list[str]:
        """Make the history answerable before it is sent (on resume and before every request):
        failed sends leave it, and every call without a result gets an interrupted one, appended
        to the transcript. Returns what is to be said to the user (also what earlier calls
        repaired while no turn was running)."""
        said, self._unsaid = self._unsaid, []
        if self.scan.has_unsent(self.history):
            await self.adopt_history(wire.without_unsent(self.history))
        fixes = self.scan.repairs(self.history)
        if fixes:
            await self._add(*fixes)
            said.append(
                f"{len(fixes)} tool call(s) had no result (agent-tui stopped while they ran); "
                "they are marked interrupted."
            )
        if not self.busy:
            self._unsaid, said = said, []
        return said

    async def _fit_oversize(self) -> AsyncIterator[ev.AgentEvent]:
        """A user message that alone cannot fit the window (an older session, a huge paste sent
        before the window was known) is stored whole and replaced by a head+tail view with its ref."""
        budget = self.measure(with_status=False)
        room = budget.effective_window - budget.fixed
        counter = self.meter.counter
        changed = False
        history = list(self.history)
        for i, message in enumerate(history):
            if message.role != "user" or not message.content or counter.count_message(message) <= room:
                continue
            fitted = await fit_prompt(
                message.content,
                room_tokens=room,
                store=self.store,
                session_id=self.session_id,
                max_line_length=self.config.tool_output.max_line_length,
            )
            history[i] = message.with_content(fitted.text)
            changed = True
            for note in fitted.notes:
                yield ev.Notice(note)
        if changed:
            await self.adopt_history(history, snapshot=True)

    async def _prepare(self, prompt: str, as_is: bool) -> PreparedPrompt:
        """The user's message as it enters the history: attachments, a large paste offloaded
        (the threshold shrinks with the window), and never more than the window can hold."""
        prompt = clean_text(prompt)
        budget = self.measure(with_status=False)
        prepared = (
            PreparedPrompt(prompt)
            if as_is
            else await prepare_prompt(
                prompt,
                workspace=self.workspace,
                store=self.store,
                session_id=self.session_id,
                threshold=paste_threshold(
                    self.config.agent.result_offload_threshold, budget.effective_window
                ),
                max_line_length=self.config.tool_output.max_line_length,
            )
        )
        room = budget.effective_window - budget.fixed
        if self.meter.counter.count_message(user(prepared.text)) <= room:
            return prepared
        fitted = await fit_prompt(
            prepared.text,
            room_tokens=room,
            store=self.store,
            session_id=self.session_id,
            max_line_length=self.config.tool_output.max_line_length,
        )
        return PreparedPrompt(fitted.text, [*prepared.refs, *fitted.refs], [*prepared.notes, *fitted.notes])

    async def _unsend(self, message: Message, reason: str) -> None:
        """A send that failed before anything came back: the message leaves the live history
        (so a retry sends it once) and the transcript records the failure (resume skips both)."""
        kept = [m for m in self.history if m.id != message.id]
        await self.adopt_history(kept, persist=[wire.unsent_marker(message, reason)])

    async def close(self) -> None:
        """Give back the session's lease (the store itself belongs to the app)."""
        if self.store is None:
            return
        try:
            await self.store.leases.release(self.session_id)
        except Exception:
            log.warning("could not release the lease of %s", self.session_id, exc_info=True)


def _clean(message: Message) -> Message:
    """The message with valid UTF-8 text only (the store and every provider reject surrogates)."""
    content = message.content
    if content is None or clean_text(content) is content:
        return message
    return replace(message, content=clean_text(content))
