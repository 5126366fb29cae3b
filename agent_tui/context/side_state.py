"""State that must survive compaction lives beside the conversation, not in it.

A task list the model keeps (`todo`) and the pins the user or the model set are not messages:
no compaction strategy sees them, so none can summarise, trim or drop them. Each goes out in
its own prompt section every step (at the end of the request, where a changing part does not
void the provider's prompt cache), is stored per session, and is carried to a resumed, forked or
handed-off session whole. Pure data and text: no store, no UI.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from agent_tui.context.prompt_sections import PromptSection

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

TodoStatus = Literal["pending", "in_progress", "completed"]
TODO_STATUSES: tuple[TodoStatus, ...] = ("pending", "in_progress", "completed")
MARKS: dict[str, str] = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
"""How each status reads in the prompt section and the TUI's task line."""

PinAuthor = Literal["user", "model"]
PIN_SHARE = 0.10
"""Of the effective window, the most the pins may take together (below pin_budget_tokens)."""
TODO_SHARE = 0.05
"""Of the effective window, the most the task list's section may take (open tasks first)."""


class PinBudgetFull(ValueError):
    """A pin would take the pins past their budget; the message says by how much."""


@dataclass(frozen=True)
class TodoItem:
    """One task, in Claude Code's TodoWrite shape."""

    content: str
    """What to do, imperative (`Run the tests`)."""
    status: TodoStatus
    active_form: str
    """What is being done, shown while in progress (`Running the tests`)."""

    def to_json(self) -> dict[str, str]:
        return {"content": self.content, "status": self.status, "activeForm": self.active_form}

    def line(self) -> str:
        shown = self.active_form if self.status == "in_progress" and self.active_form else self.content
        return f"{MARKS[self.status]} {shown}"


@dataclass(frozen=True)
class Pin:
    """Text kept verbatim in every request, whatever compaction does."""

    id: str
    """`p1`, `p2`…: what /unpin and the model's unpin name."""
    text: str
    by: PinAuthor
    """Who pinned it: the model's pins are shown to the user, who can remove them."""
    source: str = ""
    """Where it came from (`message 12`, `r_… lines 3-9`); empty for typed text."""
    tokens: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "by": self.by, "source": self.source, "tokens": self.tokens}


def parse_todos(raw: Any) -> list[TodoItem]:
    """The `todos` argument as the model sends it; ValueError naming what is wrong."""
    if not isinstance(raw, list):
        raise ValueError("todos must be a list of {content, status, activeForm} objects")
    items = []
    for n, entry in enumerate(raw, 1):
        if not isinstance(entry, dict):
            raise ValueError(f"todo {n} is not an object")
        content = str(entry.get("content") or "").strip()
        status = entry.get("status", "pending")
        active = str(entry.get("activeForm") or entry.get("active_form") or "").strip()
        if not content:
            raise ValueError(f"todo {n} has no content")
        if status not in TODO_STATUSES:
            raise ValueError(f"todo {n}: status must be one of {', '.join(TODO_STATUSES)}, got {status!r}")
        items.append(TodoItem(content, status, active or content))
    return items


@dataclass
class SideState:
    """The session's task list and pins, with the prompt sections they are sent in."""

    todos: list[TodoItem] = field(default_factory=list)
    pins: list[Pin] = field(default_factory=list)
    pin_budget: int = 2000
    """Tokens all pins together may take ([compaction] pin_budget_tokens, held to PIN_SHARE of
    the window by `fit_window`)."""
    todo_budget: int | None = None
    """Tokens the task list's section may take (TODO_SHARE of the window); None: no limit."""
    window_note: str = ""
    """Why the budgets are smaller than configured (a small window), for the messages that say so."""
    changed: bool = False
    """Set on every change; the loop reports it once as an event and clears it."""
    mode: str = "default"
    """The permission mode (permission_modes.py), stored and resumed with the rest."""
    mode_note: str = ""
    """Plan mode's instructions while it is on (permission_modes.py), sent in their own section."""
    count: Callable[[str], int] = field(default=lambda text: len(text) // 4 + 1, repr=False)
    """Tokens of a text (the session gives its counter; a rough estimate until then)."""

    def fit_window(self, effective_window: int, configured_pins: int) -> None:
        """Hold the pins and the task list to their share of the window: at 4 096 tokens the
        configured 2 000 pin tokens alone would leave the conversation nothing."""
        share = int(PIN_SHARE * effective_window)
        self.pin_budget = min(configured_pins, share)
        self.todo_budget = int(TODO_SHARE * effective_window)
        self.window_note = (
            f"held to {PIN_SHARE:.0%} of the {effective_window:,}-token window (pin_budget_tokens is "
            f"{configured_pins:,})".replace(",", " ")
            if share < configured_pins
            else ""
        )

    # -- the task list -----------------------------------------------------------------------
    def set_todos(self, items: Iterable[TodoItem]) -> None:
        self.todos = list(items)
        self.changed = True

    def todo_text(self) -> str:
        """The list, one line a task; past its budget the open tasks come first and what does
        not fit is counted in a last line that says why (the model still has the todo tool)."""
        lines = [item.line() for item in self.todos]
        if self.todo_budget is None or self.count("\n".join(lines)) <= self.todo_budget:
            return "\n".join(lines)
        order = sorted(range(len(self.todos)), key=lambda i: self.todos[i].status == "completed")
        kept: list[int] = []
        used = 0
        for i in order:
            cost = self.count(lines[i]) + 1
            if used + cost > self.todo_budget - 30:  # room for the line that counts the rest
                break
            kept.append(i)
            used += cost
        left = [self.todos[i] for i in range(len(self.todos)) if i not in kept]
        done = sum(1 for t in left if t.status == "completed")
        note = (
            f"[… {len(left)} more tasks ({done} completed) not shown: the list is held to "
            f"{TODO_SHARE:.0%} of this small window]"
        )
        return "\n".join([*(lines[i] for i in sorted(kept)), note])

    # -- pins --------------------------------------------------------------------------------
    def pin_tokens(self) -> int:
        return sum(p.tokens for p in self.pins)

    def add_pin(self, text: str, *, by: PinAuthor, source: str = "") -> Pin:
        """Pin `text`; PinBudgetFull when it does not fit what is left of the budget."""
        text = text.strip()
        if not text:
            raise ValueError("nothing to pin: the text is empty")
        tokens = self.count(text)
        left = self.pin_budget - self.pin_tokens()
        if tokens > left:
            why = f" ({self.window_note})" if self.window_note else ""
            advice = (
                "give the model a larger window"
                if self.window_note
                else "raise [compaction] pin_budget_tokens"
            )
            raise PinBudgetFull(
                f"Pins are full: this pin takes {tokens} tokens, {max(left, 0)} of the "
                f"{self.pin_budget}-token pin budget{why} are left. /unpin one (/context lists them) "
                f"or {advice}."
            )
        number = 1 + max((int(p.id[1:]) for p in self.pins if p.id[1:].isdigit()), default=0)
        pin = Pin(f"p{number}", text, by, source, tokens)
        self.pins.append(pin)
        self.changed = True
        return pin

    def remove_pin(self, pin_id: str) -> Pin | None:
        for pin in self.pins:
            if pin.id == pin_id.strip():
                self.pins.remove(pin)
                self.changed = True
                return pin
        return None

    def take_changed(self) -> bool:
        """Whether it changed since last asked (the loop's event fires once per change)."""
        was, self.changed = self.changed, False
        return was

    # -- what the model gets -----------------------------------------------------------------
    def sections(self) -> list[PromptSection]:
        """The pins and the task list, each in its own section (not cacheable: they change)."""
        out = [PromptSection("mode", self.mode_note, cacheable=False)] if self.mode_note else []
        if self.pins:
            body = "\n".join(f"[{p.id}] {p.text}" for p in self.pins)
            out.append(
                PromptSection(
                    "pins",
                    "[Pinned — kept verbatim in every request, whatever compaction does]\n" + body,
                    cacheable=False,
                    component="pins",
                )
            )
        if self.todos:
            out.append(
                PromptSection(
                    "todo",
                    "[Task list — yours, kept across compaction; update it with the todo tool]\n"
                    + self.todo_text(),
                    cacheable=False,
                )
            )
        return out

    def describe_lines(self) -> list[str]:
        """What /context lists: each pin with its tokens and author, then the task list."""
        lines = []
        if self.pins:
            why = f", {self.window_note}" if self.window_note else ""
            lines.append(
                f"Pins ({self.pin_tokens()} of {self.pin_budget} tokens{why}; sent in every request):"
            )
            for p in self.pins:
                first = p.text.split("\n", 1)[0]
                shown = first if len(first) <= 60 and "\n" not in p.text else first[:59] + "…"
                origin = f", {p.source}" if p.source else ""
                lines.append(f"  {p.id} · {p.tokens} tokens · by {p.by}{origin} · {shown}")
        if self.todos:
            done = sum(1 for t in self.todos if t.status == "completed")
            lines.append(f"Task list ({done}/{len(self.todos)} done; sent in every request):")
            lines += [f"  {t.line()}" for t in self.todos]
        return lines

    # -- storage -----------------------------------------------------------------------------
    def dumps(self) -> tuple[str, str, str]:
        """(todos, pins, mode) as the store keeps them."""
        return (
            json.dumps([t.to_json() for t in self.todos]),
            json.dumps([p.to_json() for p in self.pins]),
            self.mode,
        )

    def load(self, todos: str | None, pins: str | None, mode: str = "default") -> None:
        """What the store kept; a damaged field is read as empty rather than failing a resume."""
        self.mode = mode
        try:
            self.todos = parse_todos(json.loads(todos or "[]"))
        except ValueError:
            self.todos = []
        try:
            self.pins = [
                Pin(
                    str(p["id"]),
                    str(p["text"]),
                    p.get("by", "user"),
                    str(p.get("source", "")),
                    int(p.get("tokens", 0)),
                )
                for p in json.loads(pins or "[]")
            ]
        except (ValueError, KeyError, TypeError):
            self.pins = []

    def copy(self) -> SideState:
        """A copy for a fork or a hand-off (the lists are fresh; the items are frozen)."""
        return replace(self, todos=list(self.todos), pins=list(self.pins), changed=False)
