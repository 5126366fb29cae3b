"""Which sub-agent's task is running, for whoever asks the user on its behalf.

A module of its own, not part of agent/subagents.py: the TUI's approval path and the driver read
it, and importing the sub-agent machinery (the store, the task tool) for one context variable
put all of it before the TUI's first frame.
"""

from __future__ import annotations

import contextvars

CURRENT_AGENT: contextvars.ContextVar[str | None] = contextvars.ContextVar("agent_tui_subagent", default=None)
"""The description of the sub-agent whose task is running (None in a top-level session): the
approver reads it to say which child asks."""
