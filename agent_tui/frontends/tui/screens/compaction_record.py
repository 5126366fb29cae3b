"""One compaction's record, opened from its line in the chat: what each strategy cleared (refs)
and summarised or dropped (transcript ranges), what stayed verbatim, the summary it wrote and the
tokens before and after.

From it the user gets a dropped item back: Enter reads it into the pane below (a stored output's
first lines, or the summarised messages' text; `o` opens an output in the blob browser), and `p`
pins it. A pin, not a message appended to the chat, is how it goes back into the context: a pin
is verbatim, survives every later compaction, is listed by /context with its tokens, counts
against the pin budget (whose message says when it is full) and `/unpin` takes it out again —
a note message would be summarised away by the next compaction and could not be taken back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.base.errors_text import one_line
from agent_tui.context.compaction.strategies import LABELS
from agent_tui.frontends.tui.formatting import count
from agent_tui.frontends.tui.screens.dialogs import Dialog

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.context.compaction.result import CompactResult

READ_LINES = 60
"""Lines of an output shown below the list (a message range shows what read_result would)."""
KEYS = "↑↓ choose · Enter read it here · o in /blobs · p pin it into the context · Esc closes"


def record_options(result: CompactResult) -> list[Option]:
    """The record as a list: a heading per strategy (not selectable), then each item by its ref."""

    record = result.record
    options: list[Option] = []
    for s in record.strategies if record is not None else ():
        head = f"{LABELS.get(s.name, s.name)}: {count(s.tokens_before)} → {count(s.tokens_after)} tokens"
        options.append(Option(Text(head, style="bold"), disabled=True))
        verb = "summarised" if s.name == "summarization" else "dropped"
        if s.replaced:
            options.append(Option(Text(f"  {s.replaced}  {verb} {s.dropped} message(s)"), id=s.replaced))
        labels = dict(s.labels)
        for ref in dict.fromkeys((*s.cleared, *s.condensed, *labels)):
            how = (
                "cleared" if ref in s.cleared else "condensed" if ref in s.condensed else f"{verb} with them"
            )
            options.append(Option(Text(f"  {ref}  {how} · {labels.get(ref, 'output')}"), id=ref))
    return options


class RecordScreen(Dialog):
    """The record view over one compaction; Escape closes it."""

    BINDINGS: ClassVar = [
        Binding("escape", "close", "Close"),
        Binding("o", "open_blob", "Open in /blobs"),
        Binding("p", "pin", "Pin it"),
    ]
    DEFAULT_CSS = """
    RecordScreen #record { width: 100; max-width: 100%; height: 100%; padding: 0 1;
        border: round $primary; background: $surface; }
    RecordScreen #record-items { height: auto; max-height: 1fr; border: none; }
    RecordScreen #record-preview { height: 1fr; border-top: solid $panel; }
    """

    def __init__(
        self,
        result: CompactResult,
        session: AgentSession | None,
        send: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        super().__init__()
        self.result = result
        self.session = session
        self.send = send
        """How `p` runs `/pin REF` in the tab (None: pinning is not offered)."""
        self.preview_text = self._overview()

    def _overview(self) -> str:
        record = self.result.record
        kept = record.kept if record is not None else self.result.messages_after
        lines = [f"Kept verbatim: {kept} message(s)."]
        if record is not None and record.summary:
            lines += ["Summary:", record.summary]
        return "\n".join(lines)

    def compose(self) -> ComposeResult:
        r = self.result
        title = (
            f"Compaction record · {count(r.tokens_before)} → {count(r.tokens_after)} tokens · "
            f"{r.messages_before} → {r.messages_after} messages"
        )
        with Vertical(id="record"):
            yield Static(Text(title), classes="dialog-title")
            yield OptionList(*record_options(r), id="record-items")
            with VerticalScroll(id="record-preview"):
                yield Static(Text(self.preview_text), id="record-text")
            yield Label(KEYS, classes="dialog-hint")

    def on_mount(self) -> None:
        items = self.query_one(OptionList)
        items.focus()
        items.action_first()

    @property
    def chosen(self) -> str | None:
        items = self.query_one(OptionList)
        if items.highlighted is None:
            return None
        return items.get_option_at_index(items.highlighted).id

    def select(self, ref: str) -> None:
        """Highlight the item `ref` (tests, and a caller opening the record at an item)."""
        items = self.query_one(OptionList)
        items.highlighted = items.get_option_index(ref)

    def _show(self, text: str) -> None:
        self.preview_text = text
        self.query_one("#record-text", Static).update(Text(text))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.read_back(event.option.id)

    @work(group="record-read", exclusive=True, exit_on_error=False)
    async def read_back(self, ref: str) -> None:
        """Read `ref` from the store into the pane: browsing, so it never counts as a model read."""
        store = self.session.store if self.session is not None else None
        if store is None:
            self._show(f"{ref}: the session store is not open.")
            return
        try:
            if ref.startswith("m_"):
                session_id = self.session.session_id if self.session is not None else None
                text = await store.transcript.read(ref, session_id=session_id)
            else:
                text = "\n".join(await store.results.read_lines(ref, 1, READ_LINES, max_line_length=400))
        except Exception as exc:  # noqa: BLE001 - a ref gone by GC: one line, the view stays
            self._show(f"Cannot read {ref}: {one_line(exc, 160)}")
            return
        self._show(f"{ref} (p pins it):\n{text}")

    async def action_open_blob(self) -> None:
        """The blob browser at the output, over this view (its Escape comes back here)."""
        ref = self.chosen
        if ref is None or ref.startswith("m_"):
            self.app.notify("o opens a stored output; Enter reads a message range here.")
            return
        await self.app.run_action(f"blobs({ref!r})")

    async def action_pin(self) -> None:
        ref = self.chosen
        if ref is None or self.send is None:
            return
        await self.send(f"/pin {ref}")
        self.app.notify(f"/pin {ref}: see the chat for what was pinned (/unpin ID takes it out).")
