"""A resumed chat's edits show the numbered diff the live ones showed.

The live line's diff comes with the call's result (tools/files.py computes it from the file it
changes) and is not stored: the model reads only the one-line report. A resumed session has what
it takes to draw it again: the call's arguments (in the transcript) and the file's content before
the call (the checkpoint /undo saved under the call's id). Replaying the edit on that content
gives the same diff with the same line numbers; a write of a new file needs no checkpoint. A call
whose checkpoint is gone (collected, or a session from before the store) keeps its line without
a diff, as before; so do edits older than the newest MAX_REDRAWN.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.base import tool_decl
from agent_tui.frontends.tui.transcript import ToolEntry
from agent_tui.tools.files import edited_text, unified_diff
from agent_tui.tools.workspace import confine, relative

if TYPE_CHECKING:
    from agent_tui.base.messages import Message, ToolCall
    from agent_tui.frontends.tui.transcript import Entry
    from agent_tui.store import Store

log = logging.getLogger(__name__)


async def with_diffs(
    entries: list[Entry], messages: Sequence[Message], store: Store, session_id: str, workspace: Path
) -> list[Entry]:
    """`entries` with each finished edit or write line given its diff again."""
    calls = {c.id: c for m in messages if m.role == "assistant" for c in m.tool_calls}
    wanted = [i for i, e in enumerate(entries) if isinstance(e, ToolEntry) and _wants_diff(e)]
    newest = set(wanted[-MAX_REDRAWN:])
    out: list[Entry] = []
    for index, entry in enumerate(entries):
        call = calls.get(entry.call_id or "") if isinstance(entry, ToolEntry) else None
        if isinstance(entry, ToolEntry) and call is not None and index in newest:
            try:
                diff = await _diff_of(call, entry, store, session_id, workspace)
            except Exception:
                log.debug("no diff for resumed call %s", call.id, exc_info=True)
                diff = None
            if diff:
                entry = dataclasses.replace(entry, display=diff)
        out.append(entry)
    return out


MAX_REDRAWN = 100
"""The newest edits whose diffs are drawn again (two reads each): a session of thousands of
edits still opens at once, and the older ones keep their line without the diff."""


def _wants_diff(entry: ToolEntry) -> bool:
    return entry.state == "ok" and not entry.display and tool_decl.checkpointed(entry.name)


async def _diff_of(
    call: ToolCall, entry: ToolEntry, store: Store, session_id: str, workspace: Path
) -> str | None:

    args = json.loads(call.arguments or "{}")
    rel = relative(workspace, confine(workspace, args.get("path")))
    before_ref = await store.checkpoints.previous_of_call(session_id, call.id)
    previous = await store.results.get_text(before_ref, session_id) if before_ref else None
    preview = tool_decl.preview_of(call.name)
    if preview == "write" and (previous is not None or entry.detail.startswith("created")):
        content = args.get("content")
        return unified_diff(previous, content, rel) if isinstance(content, str) else None
    if preview == "edit" and previous is not None:
        new, _count = edited_text(previous, args, rel)
        return unified_diff(previous, new, rel)
    return None
