"""Keeps every path agent-tui writes for the model inside the workspace: one wall.

Every path a model passes is resolved with symlinks followed before it is used, and refused when
it lands outside the workspace root: `..`, absolute paths elsewhere, and links pointing out all
end the same way — an `OutsideWorkspace` the tool turns into an error result for the model.
`confine` is that check and `write_confined` / `remove_confined` the only way a file tool, a
`/undo` or `/rewind` restore writes: they walk the checked path again one folder at a time without
following links, so a folder swapped for a symlink after the check (a sandboxed command can run
`mv d d.old && ln -s /outside d` between two turns, or race a restore) ends in an error, never
outside. (Bash is not confined here: the sandbox is its wall, approval its guard.)
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

BINARY_SNIFF_BYTES = 8192
"""How much of a file is checked for NUL bytes to call it binary (what git and grep do)."""


class PathError(ValueError):
    """A path argument the file tools cannot use; the message is written for the model."""


class OutsideWorkspace(PathError):
    """The path resolves to somewhere outside the workspace."""


def resolve_path(workspace: Path, path: object) -> Path:
    """The absolute, symlink-resolved form of `path` (relative to the workspace), or PathError."""
    if not isinstance(path, str) or not path.strip():
        raise PathError("path must be a non-empty string")
    if "\x00" in path:
        # The OS cannot take it (Path.resolve raises a bare ValueError that would end the run).
        raise PathError(f"path {path!r} contains a NUL byte; no file can be named so")
    root = workspace.resolve()
    given = Path(os.path.expanduser(path.strip()))
    candidate = given if given.is_absolute() else root / given
    resolved = candidate.resolve(strict=False)
    if resolved != root and root not in resolved.parents:
        lexical = Path(os.path.normpath(candidate))
        if lexical == root or root in lexical.parents:
            # Lexically inside, so a symlink on the way is what leads out.
            raise OutsideWorkspace(
                f"'{path}' is a symlink (or under one) pointing outside the workspace "
                f"(to {resolved}); file tools only reach files inside {root}"
            )
        raise OutsideWorkspace(
            f"'{path}' is outside the workspace; file tools only reach files inside {root}"
        )
    return resolved


def relative(workspace: Path, path: Path) -> str:
    """`path` as shown to the model: relative to the workspace, POSIX slashes, `.` for the root."""
    try:
        rel = path.relative_to(workspace.resolve())
    except ValueError:
        return str(path)
    text = rel.as_posix()
    return text if text else "."


def within(folder: Path, path: Path) -> bool:
    """`path` is `folder` or under it, compared as given (both already resolved)."""
    return path == folder or folder in path.parents


def confine(workspace: Path, path: object) -> Path:
    """The one check for a path agent-tui will write: resolved, inside the workspace (see
    `resolve_path`; a `PathError` says why not, in words the model or the user can act on)."""
    return resolve_path(workspace, path)


def _open_parent(workspace: Path, target: Path, *, create: bool) -> tuple[int, str]:
    """A descriptor of `target`'s folder reached from the workspace root one name at a time with
    O_NOFOLLOW (missing folders made when `create`), and the file's name in it."""
    root = workspace.resolve()
    if not within(root, target) or target == root:
        raise OutsideWorkspace(f"'{target}' is outside the workspace; nothing is written outside {root}")
    *folders, name = target.relative_to(root).parts
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in folders:
            if create:
                try:
                    os.mkdir(part, dir_fd=fd)
                except FileExistsError:
                    pass
            try:
                child = os.open(part, flags, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise OutsideWorkspace(
                        f"'{target}': {part} became a symlink (or not a folder) after the check; "
                        "nothing was written"
                    ) from None
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd, name


def write_confined(workspace: Path, target: Path, data: bytes) -> None:
    """Write `data` to `target` (a path `confine` returned), never through a link."""
    fd, name = _open_parent(workspace, target, create=True)
    try:
        try:
            out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o666, dir_fd=fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # the file itself is now a link
                raise OutsideWorkspace(
                    f"'{target}' became a symlink after the check; nothing was written"
                ) from None
            raise
        with os.fdopen(out, "wb") as fh:
            fh.write(data)
    finally:
        os.close(fd)


def remove_confined(workspace: Path, target: Path) -> None:
    """Remove the file `target` (missing is fine), never through a link to a folder."""
    fd, name = _open_parent(workspace, target, create=False)
    try:
        os.unlink(name, dir_fd=fd)
    except FileNotFoundError:
        pass
    finally:
        os.close(fd)


def looks_binary(head: bytes) -> bool:
    """A NUL byte in the first bytes marks a file as binary."""
    return b"\x00" in head[:BINARY_SNIFF_BYTES]
