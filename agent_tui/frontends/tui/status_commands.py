"""The TUI forms of `/clear` (a new session in the tab) and `/memory` (the files in $EDITOR);
`/status`, `/cost`, `/diff` and `/config` are effects of the one registry (core/command_effects.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_tui.frontends.tui import memory_editor as me
from agent_tui.frontends.tui.command_output import show

if TYPE_CHECKING:
    from agent_tui.frontends.tui.command_host import TabCommandHost


async def clear(view: TabCommandHost, argument: str) -> None:
    """Claude Code's name for a fresh conversation: the same as /new."""
    await view.open_new()


async def memory(view: TabCommandHost, argument: str) -> None:
    """`/memory`: a chooser of the files to open in $EDITOR (or, with no editor set, where they
    are); `/memory memories` or `/memory rules` opens that one at once (frontends/tui/memory_editor.py)."""

    workspace = view.session.workspace if view.session is not None else view.actions.workspace
    files = me.memory_files(workspace)
    word = argument.strip().lower()
    command = me.editor_command()
    if not word:
        if command is None:
            show(view, "/memory", me.listing(files))
            return
        view.in_background(_pick_memory(view, files, command), group="memory")
        return
    chosen = next((f for f in files if f.key == word), None)
    if chosen is None:
        view.notify(f"/memory takes {' or '.join(f.key for f in files)}", severity="warning")
        return
    await _edit_memory(view, command, chosen)


async def _pick_memory(view: TabCommandHost, files: list[Any], command: list[str]) -> None:
    from agent_tui.frontends.tui.screens.memory_picker import MemoryPicker  # lazy: textual

    file = await view.ask(MemoryPicker(files, command[0]))
    if file is not None:
        await _edit_memory(view, command, file)


async def _edit_memory(view: TabCommandHost, command: list[str] | None, file: Any) -> None:

    outcome = me.no_editor(file) if command is None else me.edit(view.actions, command, file)
    session = view.session
    if command is not None and session is not None:
        if file.key == "rules":
            session.prompts.reload_rules()  # loaded once per session; memories are re-read anyway
        view.remeasure()
    show(view, f"/memory {file.key}", outcome.text, "warning" if outcome.problem else "info")
