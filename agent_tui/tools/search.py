"""grep, glob and list_dir: finding things in the workspace without a shell.

They honour .gitignore (see gitignore.py) so dependency and build directories do not flood the
model's context, skip binary files, stay inside the workspace and cap what they return. The file
work runs in a thread so a large tree never blocks the event loop (and the UI with it); grep's
regex work has a time budget ([tools] search_timeout, see bounded_regex.py).
"""

from __future__ import annotations

import asyncio
import re
import stat as stat_mod
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from agent_tui.base.bounded_regex import (
    IGNORECASE,
    MULTILINE,
    Deadline,
    Pattern,
    SearchStopped,
    compile_regex,
    error,
    in_daemon_thread,
    stopped_message,
)
from agent_tui.base.tool_decl import Capabilities
from agent_tui.base.units import human_size
from agent_tui.tools.base import ToolContext, ToolOutput, ToolSpec
from agent_tui.tools.gitignore import IgnoreRules, glob_regex, walk_files
from agent_tui.tools.regular import capped_lines, open_regular
from agent_tui.tools.workspace import PathError, looks_binary, relative, resolve_path

Searcher = Callable[[Pattern, str, int], Any]

LINE_CAP = 1 << 20
"""Bytes of one line grep searches; the rest of a longer line (minified, a dump) is skipped."""
BLOCK_BYTES = 1 << 20
MAX_GLOB_RESULTS = 1000
MAX_DIR_ENTRIES = 1000


def _start(ctx: ToolContext, args: dict[str, Any]) -> Path:
    path = args.get("path") or "."
    return resolve_path(ctx.workspace, path)


def _blocks(fh: BinaryIO) -> Iterator[list[str]]:
    """The file's lines (each cut to LINE_CAP bytes, so a huge one-line file costs no more than
    that) in blocks of about BLOCK_BYTES, each line ending in a newline."""
    block: list[str] = []
    size = 0
    for raw, _length in capped_lines(fh, LINE_CAP):
        block.append(raw.decode("utf-8", errors="replace") + "\n")
        size += len(raw) + 1
        if size >= BLOCK_BYTES:
            yield block
            block, size = [], 0
    if block:
        yield block


def _hits(fh: BinaryIO, regex: Pattern, search: Searcher) -> Iterator[tuple[int, str]]:
    """Matching lines with their numbers. The regex (compiled MULTILINE) runs over ~1 MB of
    whole lines at a time: one engine call per block, not per line, keeps the budgeted engine
    as fast as plain `re` line by line."""
    first = 1
    for block in _blocks(fh):
        text = "".join(block)
        end = len(text)
        pos = counted = 0
        number = first
        while pos <= end and (found := search(regex, text, pos)) is not None:
            if found.start() == end and text.endswith("\n"):
                break  # `$` after the last newline is not a line of the file
            start = text.rfind("\n", 0, found.start()) + 1
            stop = text.find("\n", found.start())
            stop = end if stop < 0 else stop
            number += text.count("\n", counted, start)
            counted = start
            yield number, text[start:stop].rstrip("\r")
            pos = stop + 1
        first += len(block)


class GrepTool:
    spec = ToolSpec(
        name="grep",
        brief="Search file contents by regex.",
        description=(
            "Search file contents with a Python regular expression. Returns `path:line:text` for "
            "each matching line, skipping binary files and anything .gitignore excludes. Narrow "
            "with `path` (a directory or file) and `glob` (e.g. `*.py`, `src/**/*.ts`)."
        ),
        parameters={
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Python regex to search for."},
                "path": {
                    "type": "string",
                    "description": "Directory or file to search (default: workspace).",
                },
                "glob": {
                    "type": "string",
                    "description": "Only files matching this glob; without `/` it matches file names.",
                },
                "ignore_case": {"type": "boolean", "description": "Case-insensitive (default false)."},
                "max_results": {
                    "type": "integer",
                    "description": "Stop after this many matches (default 500).",
                },
            },
            "required": ["pattern"],
        },
        capabilities=Capabilities(
            kind="search", path_args=("path",), claude_names=("Grep",), time_limited=True
        ),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            flags = MULTILINE | (IGNORECASE if args.get("ignore_case") else 0)
            regex = compile_regex(str(args.get("pattern", "")), flags)
        except error as exc:
            return ToolOutput.error(f"invalid regular expression: {exc}")
        try:
            start = _start(ctx, args)
            max_results = max(int(args.get("max_results") or 500), 1)
        except PathError as exc:
            return ToolOutput.error(str(exc))
        except (TypeError, ValueError):
            return ToolOutput.error("max_results must be an integer")
        if not start.exists():
            return ToolOutput.error(f"path not found: '{args.get('path')}'")
        if not (start.is_dir() or start.is_file()):
            return ToolOutput.error(f"'{args.get('path')}' is not a regular file or a directory")
        glob = args.get("glob")
        matcher = glob_regex(glob) if glob else None
        by_name = bool(glob) and "/" not in str(glob)
        deadline = Deadline(ctx.search_timeout)
        return await in_daemon_thread(
            lambda: self._search(ctx, start, regex, matcher, by_name, max_results, deadline), deadline
        )

    @staticmethod
    def _files(ctx: ToolContext, start: Path) -> Iterator[tuple[Path, str]]:
        if start.is_file():
            yield start, relative(ctx.workspace, start)
        else:
            yield from walk_files(ctx.workspace, start)

    def _search(
        self,
        ctx: ToolContext,
        start: Path,
        regex: Pattern,
        matcher: re.Pattern[str] | None,
        by_name: bool,
        max_results: int,
        deadline: Deadline,
    ) -> ToolOutput:
        lines: list[str] = []
        files_with_hits = 0
        width = ctx.max_line_length
        truncated = stopped = False
        search = deadline.search
        start_rel = "" if start == ctx.workspace.resolve() else relative(ctx.workspace, start) + "/"
        for path, rel in self._files(ctx, start):
            if stopped:
                break
            if matcher is not None:
                subject = (
                    path.name if by_name else rel[len(start_rel) :] if rel.startswith(start_rel) else rel
                )
                if not matcher.match(subject):
                    continue
            try:
                with open_regular(path) as fh:
                    if looks_binary(fh.read(8192)):
                        continue
                    fh.seek(0)
                    hit = False
                    try:
                        for number, line in _hits(fh, regex, search):
                            lines.append(
                                f"{rel}:{number}:{line[:width] + '…' if len(line) > width else line}"
                            )
                            hit = True
                            if len(lines) >= max_results:
                                truncated = True
                                break
                    except SearchStopped:
                        stopped = True
                    files_with_hits += hit
            except OSError:
                continue
            if truncated:
                break
        where = relative(ctx.workspace, start)
        meta = {
            "matches": len(lines),
            "files": files_with_hits,
            "path": where,
            "truncated": truncated,
            "stopped": stopped,
        }
        if stopped:
            note = stopped_message(deadline.budget)
            body = "\n".join([*lines, f"[{note}]"]) if lines else f"No match before the {note}."
            return ToolOutput(text=body, summary=f"stopped after {deadline.budget:g} s", meta=meta)
        if not lines:
            return ToolOutput(
                text=f"No matches for /{regex.pattern}/ in {where}.", summary="0 matches", meta=meta
            )
        text = "\n".join(lines)
        if truncated:
            text += f"\n[stopped at {max_results} matches; narrow the pattern, path or glob]"
        return ToolOutput(text=text, summary=f"{len(lines)} matches in {files_with_hits} files", meta=meta)


class GlobTool:
    spec = ToolSpec(
        name="glob",
        brief="Find files by glob pattern.",
        description=(
            "Find files by path pattern, newest first (by modification time), skipping what "
            ".gitignore excludes. `*` stays within a directory, `**` spans directories: `**/*.py` "
            "finds Python files at any depth, `src/*.ts` only directly in src; `{a,b}` alternates."
        ),
        parameters={
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Glob relative to `path`, e.g. `**/*.md`."},
                "path": {"type": "string", "description": "Directory to search from (default: workspace)."},
            },
            "required": ["pattern"],
        },
        capabilities=Capabilities(
            kind="search", path_args=("path",), claude_names=("Glob",), time_limited=True
        ),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        pattern = args.get("pattern")
        if not isinstance(pattern, str) or not pattern.strip():
            return ToolOutput.error("pattern must be a non-empty glob such as **/*.py")
        try:
            start = _start(ctx, args)
        except PathError as exc:
            return ToolOutput.error(str(exc))
        if not start.is_dir():
            return ToolOutput.error(f"not a directory: '{args.get('path')}'")
        return await asyncio.to_thread(self._glob, ctx, start, pattern.strip())

    @staticmethod
    def _glob(ctx: ToolContext, start: Path, pattern: str) -> ToolOutput:
        matcher = glob_regex(pattern)
        # Without `**` the pattern cannot reach deeper than its own slashes: prune the walk.
        depth = None if "**" in pattern else pattern.strip("/").count("/")
        start_rel = "" if start == ctx.workspace.resolve() else relative(ctx.workspace, start) + "/"
        found: list[tuple[float, str]] = []
        for path, rel in walk_files(ctx.workspace, start, max_depth=depth):
            if matcher.match(rel[len(start_rel) :]):
                try:
                    found.append((path.stat().st_mtime, rel))
                except OSError:
                    continue
        found.sort(key=lambda item: (-item[0], item[1]))
        meta = {"matches": len(found), "path": relative(ctx.workspace, start)}
        if not found:
            return ToolOutput(text=f"No files match {pattern}.", summary="0 files", meta=meta)
        text = "\n".join(rel for _, rel in found[:MAX_GLOB_RESULTS])
        if len(found) > MAX_GLOB_RESULTS:
            text += f"\n[{len(found) - MAX_GLOB_RESULTS} more not shown; use a narrower pattern]"
        return ToolOutput(text=text, summary=f"{len(found)} files", meta=meta)


class ListDirTool:
    spec = ToolSpec(
        name="list_dir",
        brief="List a directory's entries.",
        description=(
            "List a directory: one entry per line with its type and size, directories first. "
            "Entries .gitignore excludes are marked `(ignored)`."
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory to list (default: workspace)."},
            },
        },
        capabilities=Capabilities(
            kind="search", path_args=("path",), claude_names=("LS",), time_limited=True
        ),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            start = _start(ctx, args)
        except PathError as exc:
            return ToolOutput.error(str(exc))
        if not start.is_dir():
            what = "not found" if not start.exists() else "not a directory (use read_file)"
            return ToolOutput.error(f"'{args.get('path') or '.'}' is {what}")
        return await asyncio.to_thread(self._list, ctx, start)

    @staticmethod
    def _list(ctx: ToolContext, start: Path) -> ToolOutput:
        root = ctx.workspace.resolve()
        rules = IgnoreRules.for_dir(root, start)
        rows: list[tuple[int, str, str]] = []
        for entry in start.iterdir():
            if entry.name == ".git":
                continue
            try:
                st = entry.lstat()
            except OSError:
                continue
            rel = entry.relative_to(root).as_posix()
            if stat_mod.S_ISLNK(st.st_mode):
                try:
                    target = str(entry.readlink())
                except OSError:
                    target = "?"
                order, line = 1, f"link  {entry.name} -> {target}"
                is_dir = entry.is_dir()
            elif stat_mod.S_ISDIR(st.st_mode):
                order, line, is_dir = 0, f"dir   {entry.name}/", True
            else:
                order, line, is_dir = 1, f"file  {entry.name}  {human_size(st.st_size)}", False
            if rules.ignored(rel, is_dir):
                line += "  (ignored)"
            rows.append((order, entry.name.lower(), line))
        rows.sort()
        where = relative(ctx.workspace, start)
        meta = {"path": where, "entries": len(rows)}
        if not rows:
            return ToolOutput(text=f"{where} is empty.", summary="empty", meta=meta)
        text = "\n".join(line for _, _, line in rows[:MAX_DIR_ENTRIES])
        if len(rows) > MAX_DIR_ENTRIES:
            text += f"\n[{len(rows) - MAX_DIR_ENTRIES} more entries not shown]"
        dirs = sum(1 for order, _, _ in rows if order == 0)
        return ToolOutput(text=text, summary=f"{dirs} dirs, {len(rows) - dirs} files", meta=meta)
