"""The slash commands a Claude Code user reaches for first: `/clear`, `/status`, `/cost`, `/diff`,
`/config`, `/memory`. Each prints a block in the chat (ui/command_output.show) and changes
nothing but `/clear`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_tui import paths
from agent_tui.ui import formatting
from agent_tui.ui.command_output import show

if TYPE_CHECKING:
    from agent_tui.ui.command_host import CommandHost

DIFF_LINES = 400
"""Lines of `/diff` shown in the chat; the rest is counted (the files are on disk)."""


def _rows(pairs: list[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in pairs)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in pairs)


async def clear(view: CommandHost, argument: str) -> None:
    """Claude Code's name for a fresh conversation: the same as /new."""
    await view.open_new()


async def status(view: CommandHost, argument: str) -> None:
    from agent_tui import trust

    session = view.session
    workspace = session.workspace if session is not None else view.actions.workspace
    project = paths.project_config_file(workspace)
    local = paths.local_config_file(workspace)
    if not project.is_file() and not local.is_file():
        trusted = "no project settings (.agent-tui.toml) here"
    else:
        state = trust.state(workspace) if workspace is not None else "untrusted"
        trusted = {"trusted": "trusted", "changed": "changed since trusted: not applied"}.get(
            state, "not trusted: only harmless keys apply (agent-tui trust add)"
        )
    services = view.services
    sandbox = services.sandbox.describe().splitlines()[0] if services and services.sandbox else "not set up"
    sandbox = sandbox.removeprefix("Sandbox ")  # the row is already named Sandbox
    rows = [
        ("Folder", paths.shown(workspace) if workspace else "?"),
        ("Trust", trusted),
        ("Sandbox", sandbox),
    ]
    if session is None:
        rows.insert(0, ("Model", "none configured (/model NAME)"))
    else:
        budget = view.budget
        window = (
            f"{budget.used_fraction:.0%} {formatting.tokens(budget.used)}/{formatting.tokens(budget.effective_window)}"
            f" (window {formatting.count(budget.total)}, reply reserve {formatting.count(budget.max_output_tokens)})"
            if budget is not None
            else "measuring…"
        )
        from agent_tui.ui.welcome import loaded_files

        rows[:0] = [("Model", session.model), ("Session", f"{session.session_id} · {view.title}")]
        rows.append(("Loaded", " · ".join(loaded_files(session)) or "no CLAUDE.md or AGENTS.md, no memories"))
        rows.append(("Context", window))
    show(view, "/status", _rows(rows))


async def cost(view: CommandHost, argument: str) -> None:
    session = view.session
    if session is None:
        show(view, "/cost", "No session in this tab (no model configured).", "warning")
        return
    from agent_tui.llm.cost import format_cost

    usage = session.usage_total
    spent = (
        "unknown (no prices for this model)"
        if session.cost_total is None
        else format_cost(session.cost_total)
    )
    rows = [
        ("Cost", f"{spent} this session (since it was opened in this tab)"),
        ("Input", f"{formatting.count(usage.input)} tokens"),
        (
            "Cached",
            f"{formatting.count(usage.cache_read)} read · {formatting.count(usage.cache_creation)} written",
        ),
        ("Output", f"{formatting.count(usage.output)} tokens"),
    ]
    show(view, "/cost", _rows(rows))


async def diff(view: CommandHost, argument: str) -> None:
    from agent_tui.agent.session_diff import session_diff

    session = view.session
    if session is None or session.store is None:
        show(view, "/diff", "No session in this tab (no model configured).", "warning")
        return
    diffs = [d for d in await session_diff(session.store, session.session_id, session.workspace) if d.diff]
    if not diffs:
        show(view, "/diff", "This session has changed no files (or /undo put them back).")
        return
    head = ", ".join(f"{d.path} (+{d.added} −{d.removed})" for d in diffs)
    lines = "".join(d.diff for d in diffs).splitlines()
    shown = "\n".join(lines[:DIFF_LINES])
    more = f"\n… {formatting.line_count(len(lines) - DIFF_LINES)} more" if len(lines) > DIFF_LINES else ""
    files = "1 file" if len(diffs) == 1 else f"{len(diffs)} files"
    show(view, "/diff", f"{files} changed: {head}\n{shown}{more}")


async def config(view: CommandHost, argument: str) -> None:
    from agent_tui.config import config_files, flatten

    services = view.services
    if services is None:
        show(view, "/config", "The configuration is still loading.", "warning")
        return
    workspace = view.actions.workspace
    files = [f"{paths.shown(f)}{'' if f.is_file() else ' (absent)'}" for f in config_files(workspace)]
    values = flatten(services.config)
    word = argument.strip()
    lines = [f"{key} = {value!r}" for key, value in values.items() if not word or word in key]
    text = "Files, later wins: " + ", ".join(files) + "\n" + ("\n".join(lines) or f"no key matches {word!r}")
    show(
        view,
        "/config" + (f" {word}" if word else ""),
        text + "\n`agent-tui config show` also says where each came from.",
    )


async def memory(view: CommandHost, argument: str) -> None:
    """`/memory`: a chooser of the files to open in $EDITOR (or, with no editor set, where they
    are); `/memory memories` or `/memory rules` opens that one at once (ui/memory_editor.py)."""
    from agent_tui.ui import memory_editor as me

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


async def _pick_memory(view: CommandHost, files: list[Any], command: list[str]) -> None:
    from agent_tui.ui.screens.memory_picker import MemoryPicker

    file = await view.ask(MemoryPicker(files, command[0]))
    if file is not None:
        await _edit_memory(view, command, file)


async def _edit_memory(view: CommandHost, command: list[str] | None, file: Any) -> None:
    from agent_tui.ui import memory_editor as me

    outcome = me.no_editor(file) if command is None else me.edit(view.actions, command, file)
    session = view.session
    if command is not None and session is not None:
        if file.key == "rules":
            session.prompts.reload_rules()  # loaded once per session; memories are re-read anyway
        view.remeasure()
    show(view, f"/memory {file.key}", outcome.text, "warning" if outcome.problem else "info")
