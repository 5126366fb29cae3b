"""grep, glob, list_dir and the .gitignore matcher they share."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.tools.base import ToolContext
from agent_tui.tools.gitignore import IgnoreRules, glob_regex, parse_gitignore, walk_files
from agent_tui.tools.search import GlobTool, GrepTool, ListDirTool


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    write(
        root,
        {
            ".gitignore": "node_modules/\n*.log\n!keep.log\n/dist\nbuild/\n**/cache/**\n",
            ".git/config": "needle in git\n",
            "src/app.py": "import os\nNEEDLE = 1\n",
            "src/util.py": "def needle():\n    pass\n",
            "src/web/ui.ts": "const needle = 2;\n",
            "src/.gitignore": "generated.py\n!important.log\n",
            "src/generated.py": "needle generated\n",
            "src/important.log": "needle important\n",
            "node_modules/pkg/index.js": "needle\n",
            "debug.log": "needle log\n",
            "keep.log": "needle keep\n",
            "dist/out.js": "needle dist\n",
            "lib/dist/kept.js": "needle nested dist\n",
            "build": "a file named build, not a directory: needle\n",
            "pkg/cache/x.txt": "needle cache\n",
            "image.png": b"\x89PNG\x00needle\x00",
        },
    )
    return root


@pytest.fixture
def ctx(ws: Path) -> ToolContext:
    return ToolContext(workspace=ws, session_id="s", call_id="c")


class TestGitignore:
    @pytest.mark.parametrize(
        ("lines", "path", "is_dir", "ignored"),
        [
            ("*.log", "a/b/c.log", False, True),
            ("*.log\n!keep.log", "keep.log", False, False),
            ("/dist", "dist", True, True),
            ("/dist", "lib/dist", True, False),
            ("doc/*.txt", "doc/a.txt", False, True),
            ("doc/*.txt", "doc/sub/a.txt", False, False),
            ("build/", "build", False, False),
            ("build/", "x/build", True, True),
            ("**/foo", "a/b/foo", False, True),
            ("a/**/b", "a/b", False, True),
            ("a/**/b", "a/x/y/b", False, True),
            ("logs/**", "logs/x/y.txt", False, True),
            ("\\#hash", "#hash", False, True),
            ("# comment", "# comment", False, False),
            ("f?o.[ch]", "foo.c", False, True),
            ("f?o.[!ch]", "foo.c", False, False),
        ],
    )
    def test_patterns(self, lines, path, is_dir, ignored):
        """Git's pattern rules: anchoring, dir-only, negation, `**`, classes, escapes."""
        rules = IgnoreRules((("", tuple(parse_gitignore(lines))),))
        assert rules.ignored(path, is_dir) is ignored

    def test_nested_file_overrides_root(self, ws):
        """A nested .gitignore wins over the root one (here re-including a *.log)."""
        rules = IgnoreRules.for_dir(ws, ws / "src")
        assert rules.ignored("src/important.log", False) is False
        assert rules.ignored("src/generated.py", False) is True
        assert rules.ignored("src/other.log", False) is True

    def test_walk_skips_ignored_and_git(self, ws):
        """The walk yields only files git would track, never .git."""
        found = {rel for _, rel in walk_files(ws, ws)}
        assert found == {
            ".gitignore",
            "src/app.py",
            "src/util.py",
            "src/web/ui.ts",
            "src/.gitignore",
            "src/important.log",
            "keep.log",
            "lib/dist/kept.js",
            "build",
            "image.png",
        }

    def test_glob_regex(self):
        """Globs: `*` stays in a directory, `**` spans them, braces alternate."""
        assert glob_regex("*.py").match("a.py") and not glob_regex("*.py").match("d/a.py")
        assert glob_regex("**/*.py").match("a.py") and glob_regex("**/*.py").match("d/e/a.py")
        assert glob_regex("src/**").match("src/a/b.c")
        assert glob_regex("*.{js,ts}").match("x.ts") and not glob_regex("*.{js,ts}").match("x.py")


class TestGrep:
    async def test_matches_honour_gitignore(self, ctx):
        """Matches come as path:line:text, skipping ignored, binary and .git files."""
        out = await GrepTool().run({"pattern": "needle"}, ctx)
        lines = out.text.splitlines()
        assert "src/util.py:1:def needle():" in lines
        assert "src/web/ui.ts:1:const needle = 2;" in lines
        assert "lib/dist/kept.js:1:needle nested dist" in lines
        joined = out.text
        for absent in (
            "node_modules",
            "debug.log",
            "dist/out.js\n",
            "generated",
            "cache",
            "image.png",
            ".git/",
        ):
            assert absent not in joined, absent
        assert out.meta["matches"] == len(lines) and not out.meta["truncated"]

    async def test_ignore_case_and_path(self, ctx):
        """ignore_case finds NEEDLE; path narrows to a directory or a single file."""
        out = await GrepTool().run({"pattern": "needle", "path": "src/app.py", "ignore_case": True}, ctx)
        assert out.text == "src/app.py:2:NEEDLE = 1"
        sub = await GrepTool().run({"pattern": "needle", "path": "src/web"}, ctx)
        assert sub.text == "src/web/ui.ts:1:const needle = 2;"

    async def test_glob_filter(self, ctx):
        """A glob without a slash matches file names; with one, paths under the search path."""
        by_name = await GrepTool().run({"pattern": "needle", "glob": "*.ts"}, ctx)
        assert by_name.text == "src/web/ui.ts:1:const needle = 2;"
        by_path = await GrepTool().run({"pattern": "needle", "glob": "src/*.py"}, ctx)
        assert by_path.text == "src/util.py:1:def needle():"

    async def test_max_results(self, ws, ctx):
        """Output stops at max_results and says so."""
        write(ws, {"many.txt": "hit\n" * 50})
        out = await GrepTool().run({"pattern": "hit", "max_results": 5}, ctx)
        assert out.text.count("many.txt:") == 5 and "stopped at 5 matches" in out.text
        assert out.meta["truncated"]

    async def test_bad_regex_and_no_match(self, ctx):
        """An invalid regex is an error; no match is a plain message."""
        bad = await GrepTool().run({"pattern": "("}, ctx)
        assert bad.is_error and "invalid regular expression" in bad.text
        none = await GrepTool().run({"pattern": "zzz_absent"}, ctx)
        assert not none.is_error and none.text.startswith("No matches")

    async def test_long_lines_cut(self, ws, ctx):
        """Matching lines are cut at max_line_length."""
        ctx.max_line_length = 20
        write(ws, {"long.txt": "needle " + "z" * 100 + "\n"})
        out = await GrepTool().run({"pattern": "needle", "path": "long.txt"}, ctx)
        assert out.text == "long.txt:1:needle " + "z" * 13 + "…"


class TestGlob:
    async def test_newest_first(self, ws, ctx):
        """Matches are sorted by modification time, newest first."""
        for age, rel in enumerate(["src/util.py", "src/app.py"]):
            os.utime(ws / rel, (1_000_000 + age, 1_000_000 + age))
        write(ws, {"new.py": "x\n"})
        out = await GlobTool().run({"pattern": "**/*.py"}, ctx)
        assert out.text.splitlines() == ["new.py", "src/app.py", "src/util.py"]

    async def test_star_is_one_level(self, ctx):
        """`*.py` finds files directly in the path only; `path` sets where."""
        top = await GlobTool().run({"pattern": "*.log"}, ctx)
        assert top.text == "keep.log"
        sub = await GlobTool().run({"pattern": "*.ts", "path": "src/web"}, ctx)
        assert sub.text == "src/web/ui.ts"

    async def test_no_match(self, ctx):
        """No match is a plain message, not an error."""
        out = await GlobTool().run({"pattern": "**/*.rs"}, ctx)
        assert not out.is_error and out.text == "No files match **/*.rs."


class TestListDir:
    async def test_entries(self, ws, ctx):
        """Directories first, files with sizes, ignored entries marked, .git hidden."""
        out = await ListDirTool().run({}, ctx)
        lines = out.text.splitlines()
        dirs = [line for line in lines if line.startswith("dir")]
        assert lines[: len(dirs)] == dirs and "dir   src/" in dirs
        assert "dir   node_modules/  (ignored)" in lines
        assert "file  debug.log  11 B  (ignored)" in lines
        assert "file  keep.log  12 B" in lines
        assert not any(".git/" in line for line in lines)

    async def test_not_a_directory(self, ctx):
        """Listing a file or a missing path is an error."""
        assert (await ListDirTool().run({"path": "keep.log"}, ctx)).is_error
        assert (await ListDirTool().run({"path": "missing"}, ctx)).is_error

    async def test_symlink_shown_with_target(self, ws, ctx):
        """A symlink is listed with its target."""
        (ws / "lnk").symlink_to("keep.log")
        out = await ListDirTool().run({"path": "."}, ctx)
        assert "link  lnk -> keep.log" in out.text.splitlines()
