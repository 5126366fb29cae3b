"""A small .gitignore matcher and the tree walk grep and glob share.

Searching a workspace without it means grepping `node_modules/`, `.venv/` and build output — slow,
and noise that floods the model's context. This follows git's rules closely enough for that job:
root and nested `.gitignore` files (deeper files win, later lines win), `.git/info/exclude`,
negation with `!`, directory-only patterns (`build/`), anchored patterns (`/dist`, `a/b`) and
`**`. `.git` itself is always skipped. Symlinked directories are never entered (no loops, no way
out of the workspace); symlinked files are kept only when they point inside it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agent_tui.tools.regular import read_regular
from agent_tui.tools.workspace import within

ALWAYS_SKIPPED = frozenset({".git"})


@dataclass(frozen=True)
class Pattern:
    """One parsed line of a .gitignore file."""

    regex: re.Pattern[str]
    """Matches a path relative to the directory holding the .gitignore."""
    negate: bool
    """`!pattern`: re-includes what an earlier pattern excluded."""
    dir_only: bool
    """`pattern/`: matches directories only."""
    source: str
    """The line as written (for debugging)."""


def _translate(pattern: str, *, braces: bool = False) -> str:
    """Glob to regex body: `**` spans directories, `*` and `?` stay inside one path component."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                at_start = i == 0 or pattern[i - 1] == "/"
                j = i + 2
                if at_start and j < n and pattern[j] == "/":
                    out.append("(?:.*/)?")  # `**/` — zero or more directories
                    i = j + 1
                    continue
                if at_start and j == n:
                    out.append(".*")  # trailing `/**` — everything inside
                    i = j
                    continue
                out.append("[^/]*")  # any other `**` is a plain `*`, as in git
                i = j
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^") else i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : j].replace("\\", "\\\\")
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append(f"(?!/)[{body}]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        elif braces and c == "{" and "}" in pattern[i:]:
            j = pattern.index("}", i)
            options = pattern[i + 1 : j].split(",")
            out.append("(?:" + "|".join(_translate(o) for o in options) + ")")
            i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A compiled full-path glob (`src/**/*.py`, `*.{js,ts}`) for the glob and grep tools."""
    return re.compile(_translate(pattern.strip().lstrip("/"), braces=True) + r"\Z", re.DOTALL)


def parse_gitignore(text: str) -> list[Pattern]:
    patterns: list[Pattern] = []
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        # Trailing spaces are dropped unless escaped with a backslash.
        stripped = line.rstrip(" ")
        if stripped.endswith("\\") and len(stripped) < len(line):
            stripped += " "
        line = stripped
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        elif line.startswith(("\\!", "\\#")):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        body = _translate(line)
        if not anchored:
            body = "(?:.*/)?" + body  # a bare name matches at any depth
        patterns.append(Pattern(re.compile(body + r"\Z", re.DOTALL), negate, dir_only, raw))
    return patterns


MAX_IGNORE_BYTES = 1 << 20
"""A .gitignore past this is read no further (a planted huge one must not cost memory)."""


def _read_patterns(path: Path) -> list[Pattern]:

    try:
        # A FIFO named .gitignore would block a plain open until a writer came.
        return parse_gitignore(read_regular(path, MAX_IGNORE_BYTES).decode("utf-8", errors="replace"))
    except OSError:
        return []


class IgnoreRules:
    """The patterns in force for one directory: its own .gitignore plus every ancestor's."""

    def __init__(self, levels: tuple[tuple[str, tuple[Pattern, ...]], ...] = ()) -> None:
        self.levels = levels
        """(directory relative to the root, its patterns), root first."""

    @classmethod
    def for_root(cls, root: Path) -> IgnoreRules:
        patterns = _read_patterns(root / ".git" / "info" / "exclude")
        patterns += _read_patterns(root / ".gitignore")
        return cls((("", tuple(patterns)),) if patterns else ())

    @classmethod
    def for_dir(cls, root: Path, directory: Path) -> IgnoreRules:
        """Rules for `directory` inside `root`: the chain of .gitignore files down to it."""
        rules = cls.for_root(root)
        rel_parts = directory.relative_to(root).parts
        for depth in range(1, len(rel_parts) + 1):
            rules = rules.child(root, "/".join(rel_parts[:depth]))
        return rules

    def child(self, root: Path, rel_dir: str) -> IgnoreRules:
        """Rules for a subdirectory: these plus its own .gitignore, if it has one."""
        patterns = _read_patterns(root / rel_dir / ".gitignore")
        return IgnoreRules(self.levels + ((rel_dir, tuple(patterns)),)) if patterns else self

    def ignored(self, rel_path: str, is_dir: bool) -> bool:
        """Whether `rel_path` (POSIX, relative to the root) is ignored. Deepest, last match wins."""
        for base, patterns in reversed(self.levels):
            if base:
                if not rel_path.startswith(base + "/"):
                    continue
                sub = rel_path[len(base) + 1 :]
            else:
                sub = rel_path
            for pattern in reversed(patterns):
                if pattern.dir_only and not is_dir:
                    continue
                if pattern.regex.match(sub):
                    return not pattern.negate
        return False


def walk_files(root: Path, start: Path, *, max_depth: int | None = None) -> Iterator[tuple[Path, str]]:
    """Files under `start` (itself inside `root`) not ignored, as (path, path relative to root).

    Sorted by name within each directory, depth first. `max_depth` counts directory levels below
    `start` (0 = only the files directly in it).
    """
    root = root.resolve()
    stack: list[tuple[Path, IgnoreRules, int]] = [(start, IgnoreRules.for_dir(root, start), 0)]
    while stack:
        directory, rules, depth = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        subdirs: list[tuple[Path, IgnoreRules, int]] = []
        for entry in entries:
            if entry.name in ALWAYS_SKIPPED:
                continue
            path = Path(entry.path)
            rel = path.relative_to(root).as_posix()
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=not is_link)
            except OSError:
                continue
            if is_link:
                try:
                    target = path.resolve(strict=True)
                except (OSError, RuntimeError):
                    continue  # dangling or looping link
                if target.is_dir() or not within(root, target):
                    continue
            if rules.ignored(rel, is_dir):
                continue
            if is_dir:
                if max_depth is None or depth < max_depth:
                    subdirs.append((path, rules.child(root, rel), depth + 1))
            elif not is_link or path.resolve().is_file():
                yield path, rel
        stack.extend(reversed(subdirs))
