"""One hook run as one line: the TUI's dim chat line, an editor's note and plain `run`'s stderr.
Apart from the runner, which a front end does not need to import to show what it did."""

from __future__ import annotations

from agent_tui.agent import events as ev


def describe(event: ev.HookRan) -> str:
    """The dim chat line (and plain `run`'s stderr line) for one hook run."""
    code = (
        "killed"
        if event.outcome == "timeout"
        else ("—" if event.exit_code is None else f"exit {event.exit_code}")
    )
    line = f"hook {event.event} {event.command} → {code} · {event.duration:.1f} s"
    if event.outcome == "blocked":
        line += f" · blocked: {event.message}"
    elif event.message:
        line += f" · {event.message}"
    return line
