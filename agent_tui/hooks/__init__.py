"""Hooks: commands the user configures to run at named points of a session, with Claude Code's
contract (a JSON document on stdin; an exit code and optional JSON on stdout), so the hook
scripts of a `.claude/` folder run unchanged. `spec` says what a hook is, `sources` where hooks
come from, `process` how one runs, `answer` what its answer means and `runner` fires an event.
"""

from __future__ import annotations
