"""read_file, write_file and edit_file: the model's way to look at and change files.

read_file is a paged reader (numbered lines, a page capped at max_message_bytes, a footer saying
how to continue), so a large file costs only the page asked for. write_file and edit_file are
confined to the workspace, record the previous content for undo and a unified diff for the UI;
`preview_write` / `preview_edit` compute that same diff *before* anything is written, for the
approval prompt.
"""

from __future__ import annotations

import asyncio
import difflib
import os
from pathlib import Path
from typing import Any

from agent_tui.base.tool_decl import Capabilities, preview_of
from agent_tui.tools.base import ToolContext, ToolOutput, ToolSpec
from agent_tui.tools.file_status import edit_report, page_footer, write_report
from agent_tui.tools.regular import NotRegular, capped_lines, open_regular
from agent_tui.tools.workspace import PathError, confine, looks_binary, relative, resolve_path, write_confined

MAX_DIFF_CHARS = 200_000
"""A diff larger than this is cut (the preview of rewriting a huge file is not useful whole)."""


class EditError(Exception):
    """An edit or write that cannot be applied; the message is written for the model."""


def _read_text(path: Path) -> str:
    try:
        with open_regular(path) as fh:
            data = fh.read()
    except NotRegular as exc:
        raise EditError(f"{exc}; only regular files are read or changed") from None
    if looks_binary(data):
        raise EditError(f"{path.name} is a binary file ({len(data)} bytes); it cannot be edited as text")
    return data.decode("utf-8", errors="replace")


def unified_diff(old: str | None, new: str, rel: str) -> str:
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile="/dev/null" if old is None else f"a/{rel}",
        tofile=f"b/{rel}",
    )
    text = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
    if len(text) > MAX_DIFF_CHARS:
        text = text[:MAX_DIFF_CHARS] + f"\n[… diff cut at {MAX_DIFF_CHARS} characters …]\n"
    return text


def _diff_stat(diff: str) -> str:
    added = sum(1 for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in diff.splitlines() if line.startswith("-") and not line.startswith("---"))
    return f"+{added} -{removed}"


def plan_write(workspace: Path, args: dict[str, Any]) -> tuple[Path, str | None, str]:
    """(target, previous text or None, new text) for a write; EditError/PathError if impossible."""
    target = confine(workspace, args.get("path"))
    content = args.get("content")
    if not isinstance(content, str):
        raise EditError("content must be a string")
    if target.is_dir():
        raise EditError(f"'{args['path']}' is a directory")
    try:
        previous = _read_text(target) if target.exists() else None
    except EditError as exc:
        if "not a regular file" in str(exc):
            raise
        raise EditError(
            f"'{args['path']}' is a binary file; write_file does not overwrite binary files "
            "(remove it with bash first if that is really intended)"
        ) from None
    return target, previous, content


def plan_edit(workspace: Path, args: dict[str, Any]) -> tuple[Path, str, str, int]:
    """(target, old text, new text, replacements) for an edit; EditError/PathError if impossible."""
    target = confine(workspace, args.get("path"))
    old_string, new_string = args.get("old_string"), args.get("new_string")
    if not isinstance(old_string, str) or not isinstance(new_string, str):
        raise EditError("old_string and new_string must be strings")
    if not old_string:
        raise EditError("old_string is empty; to create or overwrite a whole file use write_file")
    if old_string == new_string:
        raise EditError("old_string and new_string are identical; nothing to change")
    if not target.is_file():
        raise EditError(f"file not found: '{args['path']}' (use write_file to create a file)")
    text = _read_text(target)
    count = text.count(old_string)
    if count == 0 and "\r\n" in text and "\n" in old_string:
        # The model writes \n; the file uses CRLF: match and replace in the file's own style.
        old_string = old_string.replace("\r\n", "\n").replace("\n", "\r\n")
        new_string = new_string.replace("\r\n", "\n").replace("\n", "\r\n")
        count = text.count(old_string)
    rel = relative(workspace, target)
    if count == 0:
        raise EditError(
            f"old_string was not found in {rel}. It must match the file exactly, including "
            "whitespace and indentation; read the file again and copy the text to replace."
        )
    replace_all = bool(args.get("replace_all", False))
    if count > 1 and not replace_all:
        raise EditError(
            f"old_string matches {count} places in {rel}; include more surrounding lines to make "
            "it unique, or pass replace_all=true to replace every occurrence."
        )
    new_text = (
        text.replace(old_string, new_string) if replace_all else text.replace(old_string, new_string, 1)
    )
    return target, text, new_text, count if replace_all else 1


def cannot_apply(tool: str, args: dict[str, Any], workspace: Path) -> str | None:
    """Why this write/edit cannot apply (the tool's own error), or None: checked before asking,
    so nobody is asked to approve a call that would only fail. The tool checks again when it runs."""
    preview = preview_of(tool)  # a tool that previews as a write or an edit plans as one
    try:
        if preview == "write":
            plan_write(workspace, args)
        elif preview == "edit":
            plan_edit(workspace, args)
    except (EditError, PathError) as exc:
        return str(exc)
    return None


def preview_write(args: dict[str, Any], workspace: Path) -> str:
    """The diff write_file would apply (or the reason it would fail), for the approval prompt."""
    try:
        target, previous, content = plan_write(workspace, args)
    except (EditError, PathError, OSError) as exc:
        return f"write_file would fail: {exc}"
    return unified_diff(previous, content, relative(workspace, target)) or "(no change)"


def preview_edit(args: dict[str, Any], workspace: Path) -> str:
    """The diff edit_file would apply (or the reason it would fail), for the approval prompt."""
    try:
        target, old, new, _ = plan_edit(workspace, args)
    except (EditError, PathError, OSError) as exc:
        return f"edit_file would fail: {exc}"
    return unified_diff(old, new, relative(workspace, target))


def _write(workspace: Path, target: Path, content: str) -> None:
    write_confined(workspace, target, content.encode("utf-8"))


class ReadFileTool:
    spec = ToolSpec(
        name="read_file",
        brief="Read numbered lines of a file.",
        description=(
            "Read a text file in the workspace. Returns numbered lines (`cat -n` style) starting at "
            "`offset` (1-based), at most `limit` lines and about 50 KB per call; very long lines are "
            "cut. When more remains, the last line says which offset to pass next. Read before "
            "editing so old_string matches exactly (without the line-number prefix)."
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace."},
                "offset": {"type": "integer", "description": "First line to show (default 1)."},
                "limit": {"type": "integer", "description": "Most lines to show (default 2000)."},
            },
            "required": ["path"],
        },
        paged=True,
        capabilities=Capabilities(
            kind="read", path_args=("path",), claude_names=("Read",), time_limited=True
        ),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            target = resolve_path(ctx.workspace, args.get("path"))
            offset = max(int(args.get("offset") or 1), 1)
            limit = max(int(args.get("limit") or 2000), 1)
        except PathError as exc:
            return ToolOutput.error(str(exc))
        except (TypeError, ValueError):
            return ToolOutput.error("offset and limit must be integers")
        rel = relative(ctx.workspace, target)
        if target.is_dir():
            return ToolOutput.error(f"'{rel}' is a directory; use list_dir to see its entries")
        if not target.exists():
            return ToolOutput.error(f"file not found: '{rel}'")
        try:
            return await asyncio.to_thread(self._page, target, rel, offset, limit, ctx)
        except NotRegular:
            return ToolOutput.error(f"'{rel}' is not a regular file; read_file reads regular files only")

    @staticmethod
    def _page(target: Path, rel: str, offset: int, limit: int, ctx: ToolContext) -> ToolOutput:
        out: list[str] = []
        used = 0
        total = 0
        last = offset - 1
        full = False
        width = ctx.max_line_length
        cap = width * 4 + 4  # enough bytes for `width` characters of UTF-8, and to see it is longer
        with open_regular(target) as fh:
            if looks_binary(fh.read(8192)):
                size = os.fstat(fh.fileno()).st_size
                return ToolOutput.error(f"'{rel}' is a binary file ({size} bytes); read_file shows text only")
            fh.seek(0)
            for total, (raw, length) in enumerate(capped_lines(fh, cap), start=1):
                if total < offset or full:
                    continue
                line = raw.decode("utf-8", errors="replace").rstrip("\r")
                if length > len(raw):  # cut while reading: the rest is counted in bytes
                    kept = line[:width]
                    line = kept + f"… [line cut: {length - len(kept.encode('utf-8'))} more bytes]"
                elif len(line) > width:
                    line = line[:width] + f"… [line cut: {len(line) - width} more chars]"
                row = f"{total:>6}\t{line}\n"
                size = len(row.encode("utf-8"))
                if (out and used + size > ctx.max_message_bytes) or total - offset >= limit:
                    full = True
                    continue
                out.append(row)
                used += size
                last = total
        meta = {"path": rel, "total_lines": total, "offset": offset, "end_line": last}
        if total == 0:
            return ToolOutput(text=f"({rel} is empty)", summary="empty", meta=meta)
        if offset > total:
            return ToolOutput.error(f"offset {offset} is past the end of {rel} ({total} lines)", **meta)
        text = "".join(out)
        if last < total:
            text += page_footer(offset, last, total)
        summary = f"lines {offset}-{last} of {total}"
        return ToolOutput(text=text, summary=summary, meta=meta)


class WriteFileTool:
    spec = ToolSpec(
        name="write_file",
        brief="Create or overwrite a file with content.",
        description=(
            "Create a file or overwrite it entirely with `content`; parent directories are created. "
            "For changes to an existing file prefer edit_file, which sends only the changed part."
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace."},
                "content": {"type": "string", "description": "The complete new file content."},
            },
            "required": ["path", "content"],
        },
        mutates=True,
        capabilities=Capabilities(
            kind="edit",
            path_args=("path",),
            claude_names=("Write",),
            time_limited=True,
            checkpointed=True,
            preview="write",
        ),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            target, previous, content = plan_write(ctx.workspace, args)
            await asyncio.to_thread(_write, ctx.workspace, target, content)
        except (EditError, PathError) as exc:
            return ToolOutput.error(str(exc))
        rel = relative(ctx.workspace, target)
        size = len(content.encode("utf-8"))
        lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
        verb = "Created" if previous is None else "Overwrote"
        count = f"{lines} line{'s' if lines != 1 else ''}"
        return ToolOutput(
            text=write_report(verb, rel, size, count),
            summary=f"{verb.lower()} · {count} · {size} B",
            meta={
                "path": rel,
                "bytes": size,
                "created": previous is None,
                "previous_content": previous,
                "diff": unified_diff(previous, content, rel),
            },
        )


class EditFileTool:
    spec = ToolSpec(
        name="edit_file",
        brief="Replace exact old_string with new_string in a file.",
        description=(
            "Replace exact text in a file: `old_string` must appear exactly once (copy it from "
            "read_file output without the line numbers, with its indentation, and include enough "
            "surrounding lines to be unique), or set replace_all=true to change every occurrence."
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace."},
                "old_string": {"type": "string", "description": "Exact text to replace."},
                "new_string": {"type": "string", "description": "Replacement text."},
                "replace_all": {
                    "type": "boolean",
                    "description": "Replace every occurrence (default false).",
                },
            },
            "required": ["path", "old_string", "new_string"],
        },
        mutates=True,
        capabilities=Capabilities(
            kind="edit",
            path_args=("path",),
            claude_names=("Edit", "MultiEdit"),
            time_limited=True,
            checkpointed=True,
            preview="edit",
            prose="edit_file needs an exact, unique old_string; read the file first",
        ),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            target, old, new, count = plan_edit(ctx.workspace, args)
            await asyncio.to_thread(_write, ctx.workspace, target, new)
        except (EditError, PathError) as exc:
            return ToolOutput.error(str(exc))
        rel = relative(ctx.workspace, target)
        diff = unified_diff(old, new, rel)
        stat = _diff_stat(diff)
        return ToolOutput(
            text=edit_report(rel, count, stat),
            summary=f"edited · {stat}",
            meta={"path": rel, "replacements": count, "diff": diff, "previous_content": old},
        )
