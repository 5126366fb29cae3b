"""`@path` completion: the workspace's files (honouring .gitignore) matching what follows `@`.

The file list is walked once and reused for a few seconds, so completing while typing costs a
filter over a list, not a walk of the tree per keystroke.
"""

from __future__ import annotations

import itertools
import os
import time
from pathlib import Path

from agent_tui.tools.gitignore import walk_files

MAX_FILES = 20_000
REFRESH_SECONDS = 10.0

_cache: dict[Path, tuple[float, list[str]]] = {}


def mention_at_end(text: str) -> str | None:
    """The fragment after `@` when the text ends in an `@mention` being typed, else None."""
    word = text.rsplit(None, 1)[-1] if text.strip() and not text[-1].isspace() else ""
    return word[1:] if word.startswith("@") else None


def workspace_files(workspace: Path) -> list[str]:

    now = time.monotonic()
    hit = _cache.get(workspace)
    if hit and now - hit[0] < REFRESH_SECONDS:
        return hit[1]
    files = [rel for _, rel in itertools.islice(walk_files(workspace, workspace), MAX_FILES)]
    _cache[workspace] = (now, files)
    return files


def path_completions(text: str, workspace: Path, limit: int = 8) -> list[str]:
    """Relative paths for the `@` fragment: names starting with it first, then containing it."""
    fragment = mention_at_end(text)
    if fragment is None:
        return []
    needle = fragment.lower()
    files = workspace_files(workspace)
    starts = [f for f in files if f.lower().startswith(needle) or Path(f).name.lower().startswith(needle)]
    contains = [f for f in files if needle in f.lower() and f not in starts] if needle else []
    return (starts + contains)[:limit]


def complete_mention(text: str, path: str) -> str:
    """`text` with its trailing `@fragment` replaced by `@path `."""
    head = text[: len(text) - len(text.rsplit(None, 1)[-1])]
    return f"{head}@{path} "


def complete_word(text: str, workspace: Path) -> str | None:
    """`text` with its last word extended to the longest workspace path (or folder) that every
    match shares; None when the last word starts no path."""
    if not text or text[-1].isspace():
        return None
    word = text.rsplit(None, 1)[-1]
    if word.startswith(("@", "/")):
        return None
    files = [f for f in workspace_files(workspace) if f.startswith(word)]
    if not files:
        return None
    common = os.path.commonprefix(files)
    if len(files) == 1:
        common += " "
    return text[: len(text) - len(word)] + common
