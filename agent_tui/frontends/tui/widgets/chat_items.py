"""The widgets of one chat entry each: a single Static per entry, so a screenful is cheap.

Replies render with Rich's Markdown (code highlighted by Pygments) inside one Static: Textual's
Markdown widget mounts a widget per block, which makes 50 replies take a second to mount. A
streaming reply re-renders at most every 50 ms however fast the deltas come, but the first text
after a quiet spell is drawn at once: a short reply that arrives in one burst would otherwise
wait the whole interval before the user sees its end.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static

from agent_tui.base.units import grouped, lines
from agent_tui.base.visible_text import visible
from agent_tui.frontends.tui.pasted import FOLD_LINES, is_long
from agent_tui.frontends.tui.tool_preview import all_lines, preview
from agent_tui.frontends.tui.transcript import (
    AgentEntry,
    NoticeEntry,
    OutputEntry,
    ThinkingEntry,
    ToolEntry,
    UserEntry,
)
from agent_tui.frontends.tui.widgets.live_tail import LiveTail

if TYPE_CHECKING:
    from textual.timer import Timer


SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
LABEL_WIDTH = 6
STREAM_INTERVAL = 0.05


_markdown_class = None


def markdown(text: str, code_theme: str) -> RenderableType:
    """Rich Markdown whose code blocks sit tight (Rich pads them with a blank line each side).

    Imported on first use: markdown-it and Pygments cost ~50 ms, not worth paying before the
    first frame when the session is empty."""
    global _markdown_class
    if _markdown_class is None:
        from rich.markdown import CodeBlock, Markdown
        from rich.syntax import Syntax

        class TightCodeBlock(CodeBlock):
            def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
                code = str(self.text).rstrip()
                yield Syntax(code, self.lexer_name, theme=self.theme, word_wrap=True, padding=(0, 1))

        class TightMarkdown(Markdown):
            elements = {**Markdown.elements, "fence": TightCodeBlock, "code_block": TightCodeBlock}

        _markdown_class = TightMarkdown
    return _markdown_class(text, code_theme=code_theme)


def spinner_frame(now: float | None = None) -> str:
    return SPINNER[int((time.monotonic() if now is None else now) * 10) % len(SPINNER)]


def _labelled(label: Text, body: RenderableType) -> Table:
    grid = Table.grid(expand=True)
    grid.add_column(width=LABEL_WIDTH, no_wrap=True)
    grid.add_column(ratio=1)
    grid.add_row(label, body)
    return grid


E = TypeVar("E", UserEntry, AgentEntry, ToolEntry, NoticeEntry, ThinkingEntry, OutputEntry)


class ChatItem(Static, Generic[E]):
    """Base of the entry widgets: knows its entry and re-renders when given a new one."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "chat--user",
        "chat--agent",
        "chat--detail",
        "chat--error",
        "chat--body",
        "chat--added",
        "chat--removed",
    }

    def __init__(self, entry: E) -> None:
        super().__init__()
        self.entry: E = entry

    def on_mount(self) -> None:
        self.update(self.build())

    def set_entry(self, entry: E) -> None:
        self.entry = entry
        if self.is_mounted:
            self.update(self.build())

    def build(self) -> RenderableType:
        raise NotImplementedError

    def rebuild(self) -> None:
        """Render again (after a theme change: the component styles changed)."""
        if self.is_mounted:
            self.update(self.build())


class UserItem(ChatItem[UserEntry]):
    """What the user sent; a long message (a pasted log) is folded to its first lines and a
    count, and a click unfolds it."""

    expanded = False

    def build(self) -> RenderableType:
        style = self.get_component_rich_style("chat--user")
        text = self.entry.text
        if self.entry.chips:  # the pictures, one line under the text
            chips = Text("  ".join(self.entry.chips), style=self.get_component_rich_style("chat--detail"))
            return _labelled(Text("you", style=style), Group(self._text(text), chips))
        return _labelled(Text("you", style=style), self._text(text))

    def _text(self, text: str) -> RenderableType:

        if self.expanded or not is_long(text):
            return Text(visible(text))
        shown = text.splitlines()
        head = "\n".join(line[:200] for line in shown[:3])
        rest = max(0, len(shown) - 3)
        fold = Text(
            f"▸ … {grouped(rest)} more line{'' if rest == 1 else 's'} ({lines(len(shown))} in all)"
            " · click to unfold"
            if rest
            else f"▸ … {len(text)} characters · click to unfold",
            style=self.get_component_rich_style("chat--detail"),
        )
        if not rest:
            head = text[: FOLD_LINES * 80]
        return Group(Text(visible(head)), fold)

    def on_click(self) -> None:

        if is_long(self.entry.text):
            self.expanded = not self.expanded
            self.update(self.build())


class AgentItem(ChatItem[AgentEntry]):
    """A reply; `append` streams text into it without re-rendering on every delta."""

    def __init__(self, entry: AgentEntry) -> None:
        super().__init__(entry)
        self._parts: list[str] = [entry.text]
        self._dirty = False
        self._flushed_at = float("-inf")

    def build(self) -> RenderableType:
        style = self.get_component_rich_style("chat--agent")
        code_theme = "monokai" if self.app.current_theme.dark else "friendly"
        text = visible(self.entry.text)  # a reply's ESC or OSC 52 is shown, never sent
        body: RenderableType = markdown(text, code_theme) if text else Text("")
        return _labelled(Text("agent", style=style), body)

    def append(self, fragment: str) -> None:
        self._parts.append(fragment)
        if self._dirty:
            return
        self._dirty = True
        wait = self._flushed_at + STREAM_INTERVAL - time.monotonic()
        if wait > 0:
            self.set_timer(wait, self._flush_pending)
        else:  # after this item's own queue: deltas already waiting in the view's join this render
            self.call_later(self._flush_pending)

    def _flush_pending(self) -> None:
        if self._dirty:  # not when the reply was committed meanwhile
            self.flush()

    def flush(self) -> None:
        """Render what has streamed so far (called by the throttle and at the end of a reply)."""
        self._dirty = False
        self._flushed_at = time.monotonic()
        self.set_entry(AgentEntry("".join(self._parts)))

    @property
    def pending(self) -> bool:
        """Text streamed in since the last render."""
        return self._dirty

    @property
    def text(self) -> str:
        return "".join(self._parts)


class NoticeItem(ChatItem[NoticeEntry]):
    def build(self) -> RenderableType:
        name = {"error": "chat--error", "warning": "chat--detail"}.get(self.entry.level, "chat--detail")
        marker = {"error": "✗ ", "warning": "! "}.get(self.entry.level, "· ")
        return Padding(
            Text(marker + visible(self.entry.text), style=self.get_component_rich_style(name)),
            (0, 0, 0, LABEL_WIDTH),
        )


class OutputItem(ChatItem[OutputEntry]):
    """A slash command's output: its name, then the text, indented like a reply's body."""

    def build(self) -> RenderableType:
        head_style = self.get_component_rich_style(
            "chat--error" if self.entry.level == "error" else "chat--detail"
        )
        head = Text(self.entry.command, style=head_style)
        head.stylize("bold")
        return _labelled(Text("", style=head_style), Group(head, Text(self.entry.text)))


class ToolLine(ChatItem[ToolEntry]):
    """One tool call on one line; Enter or a click unfolds what the model saw of its output,
    Ctrl+O opens the whole stored output in the blob browser. No printable key is bound here:
    whatever is typed while a line has focus belongs to the input."""

    can_focus = True
    BINDINGS: ClassVar = [
        Binding("enter", "toggle_output", "Unfold", show=False),
        Binding("ctrl+o", "open_output", "Open output", key_display="^O"),
    ]

    @dataclass
    class OpenOutput(Message):
        """Open this call's stored output (the App shows the blob browser at its ref)."""

        entry: ToolEntry

    def __init__(self, entry: ToolEntry) -> None:
        super().__init__(entry)
        self.expanded = False
        self._started = time.monotonic()
        self._ticker: Timer | None = None
        self.live: LiveTail | None = None
        """A running command's newest lines (None until some output came)."""
        self._rows = 1

    def on_mount(self) -> None:
        super().on_mount()
        self._sync_ticker()

    def add_output(self, text: str) -> None:
        """More output of the running call: painted on the next tick, not now."""
        if self.live is None:
            self.live = LiveTail()
        self.live.add(text)

    def set_entry(self, entry: ToolEntry) -> None:
        if entry.state == "running" and self.entry.state == "awaiting":
            self._started = time.monotonic()  # approved: the tool's own time starts now
        super().set_entry(entry)
        if self.is_mounted:
            self._sync_ticker()

    def _sync_ticker(self) -> None:
        running = self.entry.state == "running"
        if running and self._ticker is None:
            self._ticker = self.set_interval(0.1, self._tick)
        elif not running and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def _tick(self) -> None:
        # Folded, the line is one row whatever its clock says: laying out the screen again ten
        # times a second would lay out every mounted chat item with it. Live output lays out only
        # when its number of rows changes (up to LIVE_LINES, then it stays).
        rows = 1 + (len(self.live.shown()) if self.live is not None else 0)
        layout = self.expanded or rows != self._rows
        self._rows = rows
        if self.live is not None:
            self.live.changed = False
        self.update(self.build(), layout=layout)

    def action_toggle_output(self) -> None:
        self.expanded = not self.expanded
        self.set_class(self.expanded, "-expanded")
        self.update(self.build())

    def on_click(self) -> None:
        self.action_toggle_output()

    def action_open_output(self) -> None:
        self.post_message(self.OpenOutput(self.entry))

    def on_resize(self) -> None:
        self.update(self.build())

    def build(self) -> RenderableType:
        entry = self.entry
        detail_style = self.get_component_rich_style("chat--detail")
        if entry.state == "running":
            marker = spinner_frame()
            detail = Text(f"running {time.monotonic() - self._started:.1f} s", style=detail_style)
        elif entry.state == "awaiting":
            marker = "⏸"
            detail = Text("awaiting approval", style=self.get_component_rich_style("chat--error"))
        else:
            marker = "▾" if self.expanded else "▸"
            text = visible(entry.detail, one_line=True)
            if entry.state == "error":
                detail = Text("✗ " + (text or "error"), style=self.get_component_rich_style("chat--error"))
            elif entry.state == "cancelled":
                detail = Text("cancelled" + (f" · {text}" if text else ""), style=detail_style)
            else:
                detail = Text(text, style=detail_style)
        head = Table.grid(expand=True, padding=(0, 1))
        head.add_column(width=1, no_wrap=True)
        head.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        head.add_column(no_wrap=True, justify="right")
        title = Text.assemble(
            (visible(entry.name, one_line=True), "bold"), "  ", visible(entry.arguments, one_line=True)
        )
        # At 80 columns a long status (exit · time · size · lines · ref) would squeeze the
        # tool's name and command to "b…": the command is what the user reads, so the status
        # gives way first and the title keeps at least TITLE_KEEP cells.
        width = self.size.width
        if width:
            room = width - 4 - min(title.cell_len, TITLE_KEEP)
            if 8 < room < detail.cell_len:
                detail.truncate(room, overflow="ellipsis")
        head.add_row(marker, title, detail)
        if entry.state == "running" and self.live is not None and (shown := self.live.shown()):
            style = self.get_component_rich_style("chat--body")
            return Group(
                head,
                *(
                    Text(
                        ("  ⎿ " if i == 0 else "    ") + visible(row, one_line=True),
                        style=style,
                        no_wrap=True,
                        overflow="ellipsis",
                    )
                    for i, row in enumerate(shown)
                ),
            )
        if entry.display and entry.state in ("ok", "error"):
            return Group(head, *self._shown_output())
        if not self.expanded:
            return head
        body = Text(
            visible(entry.body.rstrip()) or "(no output)", style=self.get_component_rich_style("chat--body")
        )
        return Group(head, Padding(body, (0, 0, 0, 4)))

    def _shown_output(self) -> list[Text]:
        """The output under the line (`⎿`): its first lines, or all of them when unfolded."""

        shown = preview(self.entry.display, self.entry.line_count)
        if shown is None:
            return []
        lines, folded = (
            (tuple(all_lines(self.entry.display)), 0) if self.expanded else (shown.lines, shown.folded)
        )
        styles = {
            "out": self.get_component_rich_style("chat--body"),
            "context": self.get_component_rich_style("chat--body"),
            "added": self.get_component_rich_style("chat--added"),
            "removed": self.get_component_rich_style("chat--removed"),
        }
        rows = [
            Text(
                ("  ⎿ " if i == 0 else "    ") + visible(line.text, one_line=True),
                style=styles[line.kind],
                no_wrap=True,
                overflow="ellipsis",
            )
            for i, line in enumerate(lines)
        ]
        if folded:
            more = f"    … {grouped(folded)} more line{'' if folded == 1 else 's'} · Enter unfolds"
            rows.append(
                Text(
                    more + (" · ^O whole output" if self.entry.ref else ""),
                    style=self.get_component_rich_style("chat--detail"),
                )
            )
        return rows


TITLE_KEEP = 32
"""Cells of a tool line's name and command kept before its status is shortened."""
