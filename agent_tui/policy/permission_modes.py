"""The permission modes Shift+Tab cycles, as Claude Code has them: default (ask before anything
that changes files or runs commands), accept edits (file edits run without asking; commands
still ask) and plan (read-only: nothing that changes anything runs, and nobody is asked, until
the user approves the plan the model proposes by switching mode).

The mode lives on the session's permission policy (which a sub-agent shares, so a child of a
planning session plans too) and beside the conversation, where plan mode's instructions ride in
a prompt section of their own every step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PermissionMode = Literal["default", "accept_edits", "plan", "auto_sandboxed"]


@dataclass(frozen=True)
class ModeDeclaration:
    """One permission mode, as every front end names and offers it."""

    name: PermissionMode
    label: str
    """What the TUI's mode line and the notices call it."""
    title: str
    """Its name in an editor's mode picker."""
    description: str
    """One sentence on what it lets run, shown beside the title."""
    editor_id: str
    """The id an editor knows it by (ACP `session/set_mode`); stable, editors may keep it."""
    cli_names: tuple[str, ...]
    """`--permission-mode` spellings: ours first, then Claude Code's."""
    cycles: bool = True
    """In Shift+Tab's cycle."""
    needs_sandbox: bool = False
    """Offered only where the sandbox runs."""


DECLARED: tuple[ModeDeclaration, ...] = (
    ModeDeclaration(
        "default",
        "default",
        "Ask",
        "Ask before any tool changes a file or runs a command",
        "ask",
        ("default",),
    ),
    ModeDeclaration(
        "accept_edits",
        "accept edits",
        "Accept edits",
        "File edits in the workspace run without asking; commands still ask",
        "accept-edits",
        ("accept-edits", "acceptEdits", "accept_edits"),
    ),
    ModeDeclaration(
        "plan",
        "plan",
        "Plan",
        "Read-only: nothing that changes anything runs until you approve the plan by switching mode",
        "plan",
        ("plan",),
    ),
    ModeDeclaration(
        "auto_sandboxed",
        "auto-approve sandboxed commands",
        "Auto-approve sandboxed",
        "Commands that run in the sandbox (no network) run without asking; the rest ask",
        "auto",
        ("auto-sandboxed", "auto_sandboxed"),
        cycles=False,
        needs_sandbox=True,
    ),
)
"""Every permission mode, in Shift+Tab's order; the cycle, the labels, the CLI's names and the
modes an editor is offered all derive from this. `auto_sandboxed` (a command that runs in the
sandbox, with no network, runs without asking; everything else asks as in default) is this one
session's, where `[sandbox] auto_approve` and the TUI's `/sandbox auto on` switch it for every
session of the process."""

BY_NAME: dict[str, ModeDeclaration] = {mode.name: mode for mode in DECLARED}
MODES: tuple[PermissionMode, ...] = tuple(mode.name for mode in DECLARED if mode.cycles)
"""Shift+Tab's cycle."""
LABELS: dict[str, str] = {mode.name: mode.label for mode in DECLARED}
CLI_NAMES: dict[str, PermissionMode] = {alias: mode.name for mode in DECLARED for alias in mode.cli_names}
"""`--permission-mode` values: ours, and Claude Code's spelling (`acceptEdits`)."""
EDITOR_IDS: dict[str, PermissionMode] = {mode.editor_id: mode.name for mode in DECLARED}

PLAN_NOTE = (
    "[Plan mode — the user asked for a plan first. Only read-only tools run: write_file, "
    "edit_file, bash and every other tool that changes something are refused without asking. "
    "Explore, then answer with your plan (steps, files, commands) and stop; the user approves it "
    "by switching mode, and then you carry it out.]"
)


def next_mode(mode: str) -> PermissionMode:
    """The mode after `mode` in Shift+Tab's cycle."""
    index = next((i for i, m in enumerate(MODES) if m == mode), -1)
    return MODES[(index + 1) % len(MODES)]


def parse_mode(text: str) -> PermissionMode | None:
    return CLI_NAMES.get(text.strip())


def plan_refusal(tool: str) -> str:
    """What the model reads when plan mode refused a call."""
    return (
        f"Plan mode: {tool} was not run. Only read-only tools run until the user approves your "
        "plan. Present the plan as your answer and stop; do not retry this call."
    )
