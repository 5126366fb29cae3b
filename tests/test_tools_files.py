"""read_file, write_file, edit_file and their approval previews."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tools.base import ToolContext
from agent_tui.tools.files import (
    EditFileTool,
    ReadFileTool,
    WriteFileTool,
    preview_edit,
    preview_write,
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root.resolve()


@pytest.fixture
def ctx(ws: Path) -> ToolContext:
    return ToolContext(workspace=ws, session_id="s", call_id="c")


class TestReadFile:
    async def test_numbered_lines(self, ws, ctx):
        """Lines come back numbered, cat -n style, with the path and line count in meta."""
        (ws / "a.txt").write_text("alpha\nbeta\n")
        out = await ReadFileTool().run({"path": "a.txt"}, ctx)
        assert out.text == "     1\talpha\n     2\tbeta\n"
        assert out.meta["path"] == "a.txt" and out.meta["total_lines"] == 2
        assert ReadFileTool.spec.paged and not ReadFileTool.spec.mutates

    async def test_paging_footer(self, ws, ctx):
        """A limited page ends with a footer naming the next offset; that offset continues."""
        (ws / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
        out = await ReadFileTool().run({"path": "a.txt", "offset": 3, "limit": 4}, ctx)
        assert out.text.splitlines()[0] == "     3\tline 3"
        assert out.text.splitlines()[-1] == "[lines 3-6 of 10; call read_file with offset=7 to continue]"
        rest = await ReadFileTool().run({"path": "a.txt", "offset": 7}, ctx)
        assert rest.text.splitlines()[-1] == "    10\tline 10"
        assert "continue" not in rest.text

    async def test_long_line_cut(self, ws, ctx):
        """A line longer than max_line_length is cut and says how much was dropped."""
        ctx.max_line_length = 10
        (ws / "a.txt").write_text("x" * 25 + "\n")
        out = await ReadFileTool().run({"path": "a.txt"}, ctx)
        assert out.text == "     1\t" + "x" * 10 + "… [line cut: 15 more chars]\n"

    async def test_page_capped_by_bytes(self, ws, ctx):
        """A page stays within max_message_bytes and the footer says where to continue."""
        ctx.max_message_bytes = 500
        (ws / "a.txt").write_text("".join(f"{'y' * 40} {i}\n" for i in range(100)))
        out = await ReadFileTool().run({"path": "a.txt"}, ctx)
        body, footer = out.text.rsplit("\n", 1)
        assert len(body.encode()) <= 500
        last = int(body.splitlines()[-1].split("\t")[0])
        assert footer == f"[lines 1-{last} of 100; call read_file with offset={last + 1} to continue]"

    async def test_binary_file_is_error(self, ws, ctx):
        """A binary file is a clear error, not garbage."""
        (ws / "b.bin").write_bytes(b"\x89PNG\x00\x01\x02")
        out = await ReadFileTool().run({"path": "b.bin"}, ctx)
        assert out.is_error and "binary file" in out.text

    async def test_missing_and_directory(self, ws, ctx):
        """A missing file and a directory are error results that say what to do."""
        missing = await ReadFileTool().run({"path": "nope.txt"}, ctx)
        assert missing.is_error and "not found" in missing.text
        (ws / "d").mkdir()
        folder = await ReadFileTool().run({"path": "d"}, ctx)
        assert folder.is_error and "list_dir" in folder.text

    async def test_offset_past_end(self, ws, ctx):
        """An offset past the last line is an error naming the line count."""
        (ws / "a.txt").write_text("one\n")
        out = await ReadFileTool().run({"path": "a.txt", "offset": 5}, ctx)
        assert out.is_error and "(1 lines)" in out.text

    async def test_empty_file(self, ws, ctx):
        """An empty file says so."""
        (ws / "e.txt").write_text("")
        out = await ReadFileTool().run({"path": "e.txt"}, ctx)
        assert not out.is_error and "empty" in out.text and out.meta["total_lines"] == 0


class TestWriteFile:
    async def test_creates_parents_and_records_previous(self, ws, ctx):
        """write_file creates parent dirs; meta keeps the previous content (None when new)."""
        out = await WriteFileTool().run({"path": "deep/er/f.txt", "content": "one\n"}, ctx)
        assert not out.is_error and (ws / "deep/er/f.txt").read_text() == "one\n"
        assert out.meta == {
            "path": "deep/er/f.txt",
            "bytes": 4,
            "created": True,
            "previous_content": None,
            "diff": "--- /dev/null\n+++ b/deep/er/f.txt\n@@ -0,0 +1 @@\n+one\n",
        }
        again = await WriteFileTool().run({"path": "deep/er/f.txt", "content": "two\n"}, ctx)
        assert again.meta["previous_content"] == "one\n" and again.meta["created"] is False
        assert WriteFileTool.spec.mutates

    async def test_content_written_exactly(self, ws, ctx):
        """Content is written byte for byte (no newline translation)."""
        await WriteFileTool().run({"path": "crlf.txt", "content": "a\r\nb"}, ctx)
        assert (ws / "crlf.txt").read_bytes() == b"a\r\nb"

    async def test_directory_and_binary_refused(self, ws, ctx):
        """Writing over a directory or a binary file is an error result."""
        (ws / "d").mkdir()
        assert (await WriteFileTool().run({"path": "d", "content": "x"}, ctx)).is_error
        (ws / "b.bin").write_bytes(b"\x00\x01")
        out = await WriteFileTool().run({"path": "b.bin", "content": "x"}, ctx)
        assert out.is_error and "binary" in out.text and (ws / "b.bin").read_bytes() == b"\x00\x01"

    def test_preview_of_new_file(self, ws):
        """The preview of a new file is a diff from /dev/null, and nothing is written."""
        diff = preview_write({"path": "n.txt", "content": "hi\n"}, ws)
        assert diff.startswith("--- /dev/null\n+++ b/n.txt\n") and "+hi" in diff
        assert not (ws / "n.txt").exists()


class TestEditFile:
    async def test_single_replacement_with_diff(self, ws, ctx):
        """A unique old_string is replaced; meta carries a unified diff and the previous text."""
        (ws / "m.py").write_text("def f():\n    return 1\n")
        out = await EditFileTool().run(
            {"path": "m.py", "old_string": "return 1", "new_string": "return 2"}, ctx
        )
        assert not out.is_error
        assert (ws / "m.py").read_text() == "def f():\n    return 2\n"
        assert "-    return 1\n+    return 2\n" in out.meta["diff"]
        assert out.meta["previous_content"] == "def f():\n    return 1\n"
        assert out.meta["replacements"] == 1

    async def test_missing_old_string(self, ws, ctx):
        """A missing old_string is an error that asks for the exact text; the file is untouched."""
        (ws / "m.py").write_text("x = 1\n")
        out = await EditFileTool().run({"path": "m.py", "old_string": "y = 1", "new_string": "y = 2"}, ctx)
        assert out.is_error and "not found" in out.text and "exactly" in out.text
        assert (ws / "m.py").read_text() == "x = 1\n"

    async def test_non_unique_old_string(self, ws, ctx):
        """A repeated old_string is an error naming the count and suggesting context or replace_all."""
        (ws / "m.py").write_text("a = 1\nb = 1\nc = 1\n")
        out = await EditFileTool().run({"path": "m.py", "old_string": "= 1", "new_string": "= 2"}, ctx)
        assert out.is_error and "matches 3 places" in out.text and "replace_all" in out.text
        assert "more surrounding lines" in out.text

    async def test_replace_all(self, ws, ctx):
        """replace_all replaces every occurrence and reports how many."""
        (ws / "m.py").write_text("a = 1\nb = 1\n")
        out = await EditFileTool().run(
            {"path": "m.py", "old_string": "= 1", "new_string": "= 2", "replace_all": True}, ctx
        )
        assert (ws / "m.py").read_text() == "a = 2\nb = 2\n" and out.meta["replacements"] == 2

    async def test_crlf_file(self, ws, ctx):
        """An old_string written with \\n matches a CRLF file and keeps its line endings."""
        (ws / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
        out = await EditFileTool().run(
            {"path": "w.txt", "old_string": "one\ntwo", "new_string": "uno\ndos"}, ctx
        )
        assert not out.is_error
        assert (ws / "w.txt").read_bytes() == b"uno\r\ndos\r\nthree\r\n"

    async def test_missing_file_and_bad_arguments(self, ws, ctx):
        """A missing file, an empty old_string and identical strings are error results."""
        assert (
            "write_file"
            in (await EditFileTool().run({"path": "no.py", "old_string": "a", "new_string": "b"}, ctx)).text
        )
        (ws / "m.py").write_text("a\n")
        assert (await EditFileTool().run({"path": "m.py", "old_string": "", "new_string": "b"}, ctx)).is_error
        assert (
            await EditFileTool().run({"path": "m.py", "old_string": "a", "new_string": "a"}, ctx)
        ).is_error

    def test_preview_before_running(self, ws):
        """preview_edit shows the diff that would be applied without writing it."""
        (ws / "m.py").write_text("x = 1\n")
        diff = preview_edit({"path": "m.py", "old_string": "x = 1", "new_string": "x = 2"}, ws)
        assert diff == "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
        assert (ws / "m.py").read_text() == "x = 1\n"

    def test_preview_of_failing_edit(self, ws):
        """A preview of an edit that cannot apply says why."""
        (ws / "m.py").write_text("x = 1\n")
        text = preview_edit({"path": "m.py", "old_string": "zzz", "new_string": "y"}, ws)
        assert text.startswith("edit_file would fail:") and "not found" in text
