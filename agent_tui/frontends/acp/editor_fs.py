"""The editor's buffers when the client offers `fs/read_text_file`: what the user sees, unsaved.

`read_file` asks the editor for the file first; when the editor's text differs from the disk (an
unsaved buffer) the model reads the editor's text, paged and numbered by our own `read_file` run
over a private copy, with a line saying so. A write or edit on a file whose buffer has unsaved
changes is refused with a clear message rather than clobbering the user's work; otherwise our
tools write the disk (sandbox, protected paths, /undo all apply), then the written text goes to
the editor through `fs/write_text_file` when it offers that (its buffer and undo see the edit).
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.base import tool_decl
from agent_tui.tools.base import ToolOutput
from agent_tui.tools.workspace import PathError, confine

if TYPE_CHECKING:
    from agent_tui.tools.base import Tool, ToolContext
    from agent_tui.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

UNSAVED = "[read from the editor: this file has unsaved changes there; the disk holds an older version]\n"


class EditorBuffers:
    """Asks the connected editor for a file's current text."""

    def __init__(self, client: Any, session_id: Callable[[], str]) -> None:
        self.client = client
        self.session_id = session_id

    async def unsaved_text(self, path: Path) -> str | None:
        """The editor's text of `path` when it differs from the disk; None when the same, or
        when the editor cannot say (then the disk is the truth)."""
        try:
            response = await self.client.read_text_file(session_id=self.session_id(), path=str(path))
        except Exception:
            log.info("the editor could not read %s; using the disk", path, exc_info=True)
            return None
        text: str = response.content
        try:
            disk = await asyncio.to_thread(path.read_bytes) if path.is_file() else None
        except OSError:
            disk = None
        if disk is not None and disk.decode("utf-8", "replace") == text:
            return None
        if disk is None and not text:
            return None
        return text

    async def write(self, path: Path) -> None:
        """Give the editor the file's new text (already on disk, so a failure loses nothing)."""
        try:
            text = await asyncio.to_thread(path.read_text, encoding="utf-8", errors="replace")
            await self.client.write_text_file(session_id=self.session_id(), path=str(path), content=text)
        except Exception:
            log.info("the editor did not take the write of %s; the disk has it", path, exc_info=True)


def _target(ctx: ToolContext, args: dict[str, Any]) -> Path | None:

    try:
        return confine(ctx.workspace, args.get("path"))
    except (PathError, OSError, ValueError):
        return None


class _Wrapped:
    """One of our file tools, same name and spec, with the editor's buffers at hand."""

    def __init__(self, inner: Tool, buffers: EditorBuffers) -> None:
        self.inner = inner
        self.spec = inner.spec
        self.buffers = buffers


class EditorReadFile(_Wrapped):
    """`read_file` that sees unsaved editor buffers."""

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        target = _target(ctx, args)
        text = await self.buffers.unsaved_text(target) if target is not None else None
        if target is None or text is None:
            return await self.inner.run(args, ctx)
        rel = (
            target.relative_to(ctx.workspace.resolve())
            if target.is_relative_to(ctx.workspace.resolve())
            else None
        )
        name = rel.as_posix() if rel is not None else target.name
        with tempfile.TemporaryDirectory(prefix="agent-tui-buffer-") as scratch:
            copy = Path(scratch) / name
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text(text, encoding="utf-8")
            # The same reader over the buffer's text: the same numbering, paging and caps.
            output = await self.inner.run({**args, "path": name}, replace(ctx, workspace=Path(scratch)))
        return replace(output, text=UNSAVED + output.text, meta={**output.meta, "unsaved_buffer": True})


class EditorGuardedWrite(_Wrapped):
    """`write_file` / `edit_file` that refuse to overwrite a file with unsaved editor changes,
    and, when the editor offers `fs/write_text_file`, hand it the written text so its buffer
    (and its undo) holds the change at once."""

    write_through = False

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        target = _target(ctx, args)
        if target is not None and await self.buffers.unsaved_text(target) is not None:
            return ToolOutput.error(
                f"{args.get('path')} has unsaved changes in the editor; not changed. Ask the user to "
                "save or discard them, then try again (read_file shows the editor's text)."
            )
        output = await self.inner.run(args, ctx)
        if self.write_through and not output.is_error and target is not None:
            await self.buffers.write(target)
        return output


def use_editor_buffers(
    registry: ToolRegistry, buffers: EditorBuffers, *, write_through: bool = False
) -> None:
    """Wrap the file tools of one session's registry (same names and specs, same places)."""
    # The tools declared to change the file they name write through the editor's guard.
    changing = [name for name in registry.names() if tool_decl.checkpointed(name)]
    wrappers: list[tuple[str, type[EditorReadFile] | type[EditorGuardedWrite]]] = [
        ("read_file", EditorReadFile),
        *((name, EditorGuardedWrite) for name in changing),
    ]
    for name, wrapper in wrappers:
        tool = registry.get(name)
        if tool is not None:
            wrapped = wrapper(tool, buffers)
            if isinstance(wrapped, EditorGuardedWrite):
                wrapped.write_through = write_through
            registry.register(wrapped)
