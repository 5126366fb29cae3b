"""The permission modes Shift+Tab cycles, as Claude Code has them: default (ask before anything
that changes files or runs commands), accept edits (file edits run without asking; commands
still ask) and plan (read-only: nothing that changes anything runs, and nobody is asked, until
the user approves the plan the model proposes by switching mode).

The mode lives on the session's permission policy (which a sub-agent shares, so a child of a
planning session plans too) and beside the conversation, where plan mode's instructions ride in
a prompt section of their own every step.
"""

from __future__ import annotations

from typing import Literal

PermissionMode = Literal["default", "accept_edits", "plan", "auto_sandboxed"]
MODES: tuple[PermissionMode, ...] = ("default", "accept_edits", "plan")
"""In Shift+Tab's order. `auto_sandboxed` (a command that runs in the sandbox, with no network,
runs without asking; everything else asks as in default) is an editor's `auto` mode and
`--permission-mode auto-sandboxed`: this one session's, where `[sandbox] auto_approve` and the
TUI's `/sandbox auto on` switch it for every session of the process."""

LABELS: dict[str, str] = {
    "default": "default",
    "accept_edits": "accept edits",
    "plan": "plan",
    "auto_sandboxed": "auto-approve sandboxed commands",
}
"""What the TUI's mode line and the notices call each mode."""

CLI_NAMES: dict[str, PermissionMode] = {
    "default": "default",
    "accept-edits": "accept_edits",
    "acceptEdits": "accept_edits",
    "accept_edits": "accept_edits",
    "plan": "plan",
    "auto-sandboxed": "auto_sandboxed",
    "auto_sandboxed": "auto_sandboxed",
}
"""`--permission-mode` values: ours, and Claude Code's spelling (`acceptEdits`)."""

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
