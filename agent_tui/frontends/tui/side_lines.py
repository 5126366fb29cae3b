"""What the chat says when the task list or the pins change: the task list as a compact block
(its progress on the first line, one mark a task), a new pin by the model with how to remove
it. Plain text, so it reads the same in the TUI, a resumed chat and a terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.agent.events import SideStateChanged
    from agent_tui.context.side_state import Pin, TodoItem


def todo_block(todos: tuple[TodoItem, ...] | list[TodoItem]) -> str:
    """`Tasks 1/3 done · now: Running the tests` and one `[x]`/`[~]`/`[ ]` line a task."""
    if not todos:
        return "Tasks: the list is empty."
    done = sum(1 for t in todos if t.status == "completed")
    now = next((t.active_form for t in todos if t.status == "in_progress"), None)
    head = f"Tasks {done}/{len(todos)} done" + (f" · now: {now}" if now else "")
    return "\n".join([head, *(t.line() for t in todos)])


def pin_line(pin: Pin) -> str:
    who = "The model pinned" if pin.by == "model" else "Pinned"
    return f"{who} {pin.id} ({pin.tokens} tokens): {pin.text} · /unpin {pin.id} removes it"


def side_lines(event: SideStateChanged, before: SideStateChanged | None) -> list[str]:
    """The lines this change adds to the chat (nothing for a change the user made and saw)."""
    lines = []
    if before is None or tuple(before.todos) != tuple(event.todos):
        if event.todos or (before is not None and before.todos):
            lines.append(todo_block(event.todos))
    old = {p.id for p in before.pins} if before is not None else set()
    lines += [pin_line(p) for p in event.pins if p.id not in old and p.by == "model"]
    return lines
