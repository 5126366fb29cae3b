"""`/memory`: open the memories or the rules file in the user's `$EDITOR`, then read it again.

Claude Code's `/memory` hands the terminal to the editor and picks the edit up afterwards; so do
we. The TUI suspends (`App.suspend`) while the editor runs, the way `git commit` opens one, and
when it exits the rules are reloaded (the memories file is re-read by its size and mtime on the
next turn anyway), the meter re-measured and one line in the chat says what changed. A headless
app (Pilot tests) has no terminal to hand over, so there the editor simply runs. Without
`$VISUAL` or `$EDITOR` nothing runs: the chat says which variable to set and where the files are.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.context.memory import memories_file, skills_dir
from agent_tui.context.prompt import find_rules_file
from agent_tui.frontends.tui import formatting
from agent_tui.runtime import paths

if TYPE_CHECKING:
    from collections.abc import Mapping


class Suspends(Protocol):
    """What handing the terminal to an editor needs of the App (Textual's `App` has both)."""

    @property
    def is_headless(self) -> bool: ...

    def suspend(self) -> AbstractContextManager[Any]: ...


KEYS = ("memories", "rules")
"""What may follow `/memory`."""


@dataclass(frozen=True)
class MemoryFile:
    """A file the agent reads every turn that the user may edit by hand."""

    key: str
    """`memories` or `rules` (the `/memory` argument)."""
    label: str
    path: Path
    """Where it is, or where it will be created (AGENTS.md when the project has no rules file)."""

    @property
    def where(self) -> str:
        try:
            size = formatting.size(self.path.stat().st_size)
        except OSError:
            size = "not yet written"
        return f"{paths.shown(self.path)} · {size}"


def memory_files(workspace: Path | None) -> list[MemoryFile]:
    """The user's memories, then the project's rules file (the one the session loads)."""

    files = [MemoryFile("memories", "Memories (yours, every project)", memories_file())]
    if workspace is not None:
        rules = find_rules_file(workspace) or workspace / "AGENTS.md"
        files.append(MemoryFile("rules", "Project rules", rules))
    return files


def editor_command(env: Mapping[str, str] | None = None) -> list[str] | None:
    """`$VISUAL`, else `$EDITOR`, split as a shell would (`code --wait` is two words), or None."""
    env = os.environ if env is None else env
    for name in ("VISUAL", "EDITOR"):
        words = shlex.split(env.get(name, ""))
        if words:
            return words
    return None


def _run(app: Suspends, command: list[str], path: Path) -> str | None:
    """Run the editor on `path` with the terminal handed over; a one-line problem, or None."""
    from textual.app import SuspendNotSupported

    def call() -> int:
        return subprocess.run([*command, str(path)], check=False).returncode

    try:
        if app.is_headless:  # no terminal to hand over (tests): the editor just runs
            code = call()
        else:
            with app.suspend():
                code = call()
    except SuspendNotSupported:
        return f"this terminal cannot hand over to an editor; edit {paths.shown(path)} yourself"
    except OSError as exc:
        return f"could not start {command[0]}: {exc.strerror or exc}"
    return f"{command[0]} exited with status {code}" if code else None


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


@dataclass(frozen=True)
class Edited:
    """What one `/memory` edit came to, for the chat."""

    text: str
    """One or two lines: edited (sizes) or unchanged, and any problem."""
    problem: bool
    """The editor could not run or exited with an error (shown as a warning)."""


def no_editor(file: MemoryFile) -> Edited:
    return Edited(
        f"Set $EDITOR (or $VISUAL) to open it from here, e.g. `export EDITOR=nano`.\n{file.label}: {file.where}",
        True,
    )


def edit(app: Suspends, command: list[str], file: MemoryFile) -> Edited:
    """Open `file` in the editor (created first when missing, removed again if left empty) and
    say what changed. The caller reloads what the session read from it."""
    before = _read(file.path)
    created = before is None
    if created:
        file.path.parent.mkdir(parents=True, exist_ok=True)
        file.path.touch()
    problem = _run(app, command, file.path)
    after = _read(file.path)
    if created and not after:
        with contextlib.suppress(OSError):
            file.path.unlink()  # opened and left empty: no file, as before
    if after == before or (created and not after):
        text = f"{paths.shown(file.path)} unchanged."
    else:
        sizes = f"{formatting.size(len(before or b''))} → {formatting.size(len(after or b''))}"
        text = f"{paths.shown(file.path)} edited ({sizes}); the next turn reads it."
    return Edited(f"{text}\n{problem}" if problem else text, problem is not None)


def listing(files: list[MemoryFile]) -> str:
    """Where the files are, when no editor is set to open them."""

    width = max(len(f.label) for f in files)
    rows = [f"{f.label:<{width}}  {f.where}" for f in files]
    rows.append(f"{'Skills':<{width}}  {paths.shown(skills_dir())} (/skill lists them)")
    text = "\n".join(rows) + (
        "\nSet $EDITOR (or $VISUAL) and `/memory` opens them there; /remember TEXT adds a memory."
    )
    memories = files[0].path
    if memories.is_file():
        text += "\n\n" + memories.read_text(encoding="utf-8", errors="replace")[:2000].rstrip()
    return text
