"""How the tools open what they read: regular files only, without blocking, in bounded pieces.

A FIFO in the workspace (or one named `.gitignore`) blocked `open()` until a writer came, which
hung grep and list_dir; a device or `/proc` file is no better. And a 300 MB file on one line cost
`read_file` 854 MB of memory for five lines, since a text-mode line is read whole. So a file is
opened with O_NONBLOCK (a FIFO opens at once), checked with fstat to be a regular file before a
byte is read, and read as capped lines: each line's first `cap` bytes are kept, the rest counted
and skipped, 64 KB at a time.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

CHUNK = 1 << 16


class NotRegular(OSError):
    """The path is a FIFO, socket, device or folder: nothing a tool reads."""


def open_regular(path: Path | str) -> BinaryIO:
    """`path` opened for binary reading if it is a regular file (symlinks followed); NotRegular
    (an OSError) otherwise, raised without waiting on a FIFO's writer."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(f"'{path}' is not a regular file ({_kind(mode)})")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path | str, limit: int) -> bytes:
    """At most `limit` bytes from the start of a regular file (NotRegular otherwise)."""
    with open_regular(path) as fh:
        return fh.read(limit)


def capped_lines(fh: BinaryIO, cap: int) -> Iterator[tuple[bytes, int]]:
    """Each line of `fh` without its newline, cut to its first `cap` bytes, with the line's whole
    length in bytes. Memory stays at `cap` plus one chunk, however long a line is."""
    part = bytearray()
    length = 0
    while block := fh.read(CHUNK):
        start = 0
        while True:
            newline = block.find(b"\n", start)
            end = len(block) if newline < 0 else newline
            room = cap - len(part)
            if room > 0:
                part += block[start : min(end, start + room)]
            length += end - start
            if newline < 0:
                break
            yield bytes(part), length
            part.clear()
            length = 0
            start = newline + 1
    if length:
        yield bytes(part), length


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return name
    return "not a plain file"
