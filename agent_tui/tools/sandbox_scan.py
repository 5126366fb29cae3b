"""What a command's output stream says when the sandbox, not the command, was the problem.

Read as the output streams (every byte of a multi-megabyte output passes through `feed`), so
each check is linear in the chunk: literal phrases are found with substring search, and a line
is only read around the phrase that names a missing path.
"""

from __future__ import annotations

import re

# What a command's output says when the sandbox, not the command, was the problem.
# Literal phrases, searched with `in` (a few ms per MB each) rather than one regex alternation,
# which Python's re tries phrase by phrase at every position of a multi-megabyte output.
_BLOCKED_WRITE = (b"Read-only file system", b"Device or resource busy")  # busy: a rename over a mount
_BLOCKED_NET = (
    b"Network is unreachable",
    b"Temporary failure in name resolution",
    b"Could not resolve host",
    b"Name or service not known",
    b"No address associated with hostname",
    b"Connection refused",
    b"getaddrinfo failed",
    b"nodename nor servname",
)
_BLOCKED_UNIX = (b"Address family not supported",)  # the seccomp filter's answer
_HIDDEN_PLACE = rb"(?:/tmp/|/var/tmp/|/run/user/)"
_MISSING = b"No such file or directory"
_HIDDEN_PLACE_RE = re.compile(_HIDDEN_PLACE)
_HIDDEN_KEPT = 8
_SCAN_OVERLAP = 64


def _says(data: bytes, phrases: tuple[bytes, ...]) -> bool:
    return any(phrase in data for phrase in phrases)


def _hidden_lines(chunk: bytes, most: int) -> list[bytes]:
    """Lines saying a path in an emptied folder is missing (up to `most`). Linear in the chunk:
    the phrase is found first and only its line is read, since a line pattern tried at every
    position cost seconds on a 5 MB output whose lines all mention /tmp/."""
    found: list[bytes] = []
    at = chunk.find(_MISSING)
    while at >= 0 and len(found) < most:
        start = chunk.rfind(b"\n", 0, at) + 1
        end = chunk.find(b"\n", at)
        end = len(chunk) if end < 0 else end
        line = chunk[start:end]
        if _HIDDEN_PLACE_RE.search(line):
            found.append(line)
        at = chunk.find(_MISSING, end)
    return found


class BlockScan:
    """Watches a command's output stream for the messages a sandbox refusal produces."""

    def __init__(self) -> None:
        self.write = False
        self.network = False
        self.unix_socket = False
        self.hidden: list[bytes] = []
        """Lines naming a missing path in an emptied folder (/tmp…), a few at most."""
        self._tail = b""

    def feed(self, chunk: bytes) -> None:
        data = self._tail + chunk
        self.write = self.write or _says(data, _BLOCKED_WRITE)
        self.network = self.network or _says(data, _BLOCKED_NET)
        self.unix_socket = self.unix_socket or _says(data, _BLOCKED_UNIX)
        if len(self.hidden) < _HIDDEN_KEPT:
            self.hidden += _hidden_lines(chunk, _HIDDEN_KEPT - len(self.hidden))
        self._tail = data[-_SCAN_OVERLAP:]
