"""`/review [base]`: a sub-agent reviews the working tree's diff (or the diff against `base`)
and the conversation gains only its findings, each with `path:line`.

The diff is taken here (git, no approval: the user asked for it) and stored in the blob store;
the child gets its ref and reads it with `read_result` (and the files with the read tools), so
the diff never enters the main window. The child runs as a `task` call the user made — the
same sub-agent machinery, its line and live transcript in the chat, its usage and cost rolled
up — and its answer is added to the conversation as the user's `!command` output is, so the next
turn's model can act on the findings.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.agent import events as ev
from agent_tui.agent import subagent_calls
from agent_tui.agent.tool_runner import ToolRun
from agent_tui.base.messages import ToolCall

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession

BRIEF = """You are reviewing a code change. The diff is stored as ref {ref} ({lines} lines, {files} files \
changed{against}). Read it with read_result(ref_id="{ref}", offset=…, limit=…), and read the files \
around a change with read_file or grep when you need context. Do not change any file.

Report what a careful reviewer would flag: bugs, wrong edge cases, security problems, missing \
tests, misleading names or comments. One finding per line, most important first, as
  path:line — severity (high/medium/low) — the problem — the fix
with the line number in the new version of the file. End with one line summing up. If you find \
nothing worth changing, say "No findings." and why the change looks right.{untracked}"""


class ReviewError(Exception):
    """Why there is nothing to review (not a repository, an unknown base, no changes)."""


def _git(workspace: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(workspace), *args], capture_output=True, text=True, errors="replace", timeout=60
    )
    if done.returncode != 0:
        raise ReviewError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "git failed")
    return done.stdout


def take_diff(workspace: Path, base: str | None) -> tuple[str, list[str]]:
    """The diff to review (against `base`, else HEAD: staged and unstaged) and the untracked
    files git does not ignore."""
    if base is not None and base.startswith("-"):
        raise ReviewError(f"{base!r} is not a revision")
    try:
        diff = _git(workspace, "diff", "--no-color", "--no-ext-diff", base or "HEAD", "--")
    except FileNotFoundError:
        raise ReviewError("git is not installed") from None
    untracked = _git(workspace, "ls-files", "--others", "--exclude-standard").splitlines()
    if not diff.strip() and not untracked:
        raise ReviewError(f"no changes against {base or 'HEAD'}")
    return diff, untracked


async def review_events(session: AgentSession, base: str | None) -> AsyncIterator[ev.AgentEvent]:
    """Run the review (see the module doc); a Notice when there is nothing to review."""
    import asyncio

    try:
        diff, untracked = await asyncio.to_thread(take_diff, Path(session.workspace), base)
    except ReviewError as exc:
        yield ev.Notice(f"/review: {exc}.")
        return
    if session.store is None:
        yield ev.Notice("/review: the result store is not available, so the diff cannot be handed over.")
        return
    call_id = f"review_{uuid.uuid4().hex[:12]}"
    ref = await session.store.results.offload(session.session_id, "review_diff", call_id, diff)
    # The child is a session of its own: it reaches the parent's output by its full URI.
    uri = (await session.store.results.resolve(ref, session.session_id)).uri
    files = sum(1 for line in diff.splitlines() if line.startswith("diff --git "))
    extra = ""
    if untracked:
        shown = ", ".join(untracked[:20]) + (" …" if len(untracked) > 20 else "")
        extra = f"\n\nNew files not in the diff (read them with read_file): {shown}"
    brief = BRIEF.format(
        ref=uri,
        lines=ref.line_count,
        files=files,
        against=f" against {base}" if base else "",
        untracked=extra,
    )
    what = f"review {'changes against ' + base if base else 'working tree changes'}"
    call = ToolCall(id=call_id, name="task", arguments=json.dumps({"description": what, "prompt": brief}))
    if session.runner.registry.get("task") is None:
        yield ev.Notice("/review: sub-agents are not available in this session ([agents] max_depth).")
        return
    session.busy = True
    try:
        yield ev.ToolCallStarted(call)

        run = None
        async for item in subagent_calls.run_streaming(session.runner, call, None):
            if isinstance(item, ToolRun):
                run = item
            else:
                yield item  # the child's lines, live
        assert run is not None
        findings = run.message.content or ""
        where = f" (the diff: ref {ref.id})"
        await session.add_user_command(
            f"/review{' ' + base if base else ''}: a sub-agent's findings{where}\n\n{findings}"
        )
        yield ev.ToolCallFinished(
            call, run.ref, run.is_error, run.summary, findings, run.duration, run.outcome
        )
        yield ev.BudgetMeasured(session.measure())
    finally:
        session.busy = False
