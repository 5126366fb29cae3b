"""Every file tool stays inside the workspace: `..`, outside absolute paths and escaping symlinks
are error results, never exceptions and never a touched file."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tools.base import ToolContext
from agent_tui.tools.files import EditFileTool, ReadFileTool, WriteFileTool, preview_write
from agent_tui.tools.search import GlobTool, GrepTool, ListDirTool
from agent_tui.tools.workspace import OutsideWorkspace, resolve_path


@pytest.fixture
def layout(tmp_path: Path):
    ws = (tmp_path / "ws").resolve()
    ws.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret needle\n")
    (ws / "inside.txt").write_text("inside needle\n")
    (ws / "link_file").symlink_to(outside / "secret.txt")
    (ws / "link_dir").symlink_to(outside)
    (ws / "ok_link").symlink_to(ws / "inside.txt")
    return ws, outside, ToolContext(workspace=ws, session_id="s", call_id="c")


ESCAPES = [
    "../outside/secret.txt",
    "sub/../../outside/secret.txt",
    "link_file",
    "link_dir/secret.txt",
]


class TestResolvePath:
    def test_inside_paths(self, layout):
        """Relative, absolute-inside and in-workspace symlinks resolve."""
        ws, _, _ = layout
        assert resolve_path(ws, "inside.txt") == ws / "inside.txt"
        assert resolve_path(ws, str(ws / "inside.txt")) == ws / "inside.txt"
        assert resolve_path(ws, "ok_link") == ws / "inside.txt"
        assert resolve_path(ws, ".") == ws

    @pytest.mark.parametrize("path", ESCAPES)
    def test_escapes_refused(self, layout, path):
        """`..` and symlinks leading out raise OutsideWorkspace."""
        ws, _, _ = layout
        with pytest.raises(OutsideWorkspace):
            resolve_path(ws, path)

    def test_absolute_outside_and_symlink_messages(self, layout):
        """An absolute path elsewhere and a symlink escape each get a message that says which."""
        ws, outside, _ = layout
        with pytest.raises(OutsideWorkspace, match="outside the workspace"):
            resolve_path(ws, str(outside / "secret.txt"))
        with pytest.raises(OutsideWorkspace, match="symlink"):
            resolve_path(ws, "link_file")


class TestToolsRefuse:
    @pytest.mark.parametrize("path", ESCAPES + ["/etc/passwd"])
    async def test_read_file(self, layout, path):
        """read_file returns an error result for paths outside the workspace."""
        _, _, ctx = layout
        out = await ReadFileTool().run({"path": path}, ctx)
        assert out.is_error and "outside the workspace" in out.text

    @pytest.mark.parametrize("path", ESCAPES + ["/tmp/agent-tui-should-not-exist.txt"])
    async def test_write_file(self, layout, path):
        """write_file refuses to write outside and leaves the target untouched."""
        _, outside, ctx = layout
        out = await WriteFileTool().run({"path": path, "content": "pwned"}, ctx)
        assert out.is_error
        assert (outside / "secret.txt").read_text() == "secret needle\n"
        assert not Path("/tmp/agent-tui-should-not-exist.txt").exists()

    async def test_write_through_symlinked_dir_to_new_file(self, layout):
        """A new file under a symlinked directory pointing out is refused."""
        _, outside, ctx = layout
        out = await WriteFileTool().run({"path": "link_dir/new.txt", "content": "x"}, ctx)
        assert out.is_error and not (outside / "new.txt").exists()
        assert preview_write({"path": "link_dir/new.txt", "content": "x"}, ctx.workspace).startswith(
            "write_file would fail"
        )

    @pytest.mark.parametrize("path", ESCAPES)
    async def test_edit_file(self, layout, path):
        """edit_file refuses to edit outside."""
        _, outside, ctx = layout
        out = await EditFileTool().run({"path": path, "old_string": "secret", "new_string": "x"}, ctx)
        assert out.is_error
        assert (outside / "secret.txt").read_text() == "secret needle\n"

    @pytest.mark.parametrize("tool", [GrepTool(), GlobTool(), ListDirTool()])
    @pytest.mark.parametrize("path", ["..", "link_dir", "/"])
    async def test_search_tools(self, layout, tool, path):
        """grep, glob and list_dir refuse a start path outside the workspace."""
        _, _, ctx = layout
        out = await tool.run({"pattern": "needle", "path": path}, ctx)
        assert out.is_error and "outside the workspace" in out.text

    async def test_grep_does_not_follow_links_out(self, layout):
        """A workspace-wide grep skips symlinks that lead out of the workspace."""
        _, _, ctx = layout
        out = await GrepTool().run({"pattern": "needle"}, ctx)
        assert "secret" not in out.text
        assert "inside.txt:1:inside needle" in out.text and "ok_link:1:inside needle" in out.text
