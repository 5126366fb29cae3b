"""Keeps the file tools inside the workspace.

Every path a model passes is resolved with symlinks followed before it is used, and refused when
it lands outside the workspace root: `..`, absolute paths elsewhere, and links pointing out all
end the same way — an `OutsideWorkspace` the tool turns into an error result for the model.
(Bash is not confined: it only starts in the workspace; approval is its guard.)
"""

from __future__ import annotations

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


def is_inside(workspace: Path, path: Path) -> bool:
    """True when `path` (resolved, symlinks followed) stays inside the workspace."""
    root = workspace.resolve()
    resolved = path.resolve(strict=False)
    return resolved == root or root in resolved.parents


def looks_binary(head: bytes) -> bool:
    """A NUL byte in the first bytes marks a file as binary."""
    return b"\x00" in head[:BINARY_SNIFF_BYTES]
