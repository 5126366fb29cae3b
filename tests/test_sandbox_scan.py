"""BlockScan: what it reads in a command's output stream, whatever the chunking."""

from __future__ import annotations

from agent_tui.tools.sandbox_scan import BlockScan


def _scan(*chunks: bytes) -> BlockScan:
    scan = BlockScan()
    for chunk in chunks:
        scan.feed(chunk)
    return scan


def test_a_missing_path_in_an_emptied_folder_is_found_in_either_word_order() -> None:
    """Both phrasings name the line: `cat: /tmp/x: No such…` and `No such… : /run/user/…`."""
    scan = _scan(
        b"ok\ncat: /tmp/notes.txt: No such file or directory\n",
        b"line\nerror: No such file or directory (os error 2): /run/user/0/bus\nmore\n",
    )
    assert scan.hidden == [
        b"cat: /tmp/notes.txt: No such file or directory",
        b"error: No such file or directory (os error 2): /run/user/0/bus",
    ]


def test_a_missing_path_elsewhere_is_not_a_hidden_folder() -> None:
    """`No such file` for a path outside /tmp, /var/tmp, /run/user is the command's own error."""
    assert _scan(b"ls: /home/me/x: No such file or directory\n").hidden == []


def test_at_most_eight_lines_are_kept() -> None:
    """A command failing on a thousand temp files keeps the first eight lines, no more."""
    lines = b"".join(b"rm: /tmp/f%d: No such file or directory\n" % i for i in range(1000))
    scan = _scan(lines[:5000], lines[5000:])
    assert len(scan.hidden) == 8 and scan.hidden[0] == b"rm: /tmp/f0: No such file or directory"


def test_a_long_output_without_the_phrase_keeps_nothing() -> None:
    """5 MB of ordinary lines (the cost case: every line mentions /tmp/) finds nothing."""
    line = b"build step writes to /tmp/cache/object.o and carries on normally" + b"." * 30 + b"\n"
    scan = _scan(*[line * 10_000] * 8)
    assert scan.hidden == [] and not scan.write and not scan.network and not scan.unix_socket


def test_each_refusal_is_found_even_across_a_chunk_boundary() -> None:
    """A refusal phrase split between two reads of the stream is still recognised."""
    write = _scan(b"touch: cannot touch '/etc/x': Read-only fi", b"le system\n")
    network = _scan(b"curl: (6) Could not res", b"olve host: example.com\n")
    unix = _scan(b"socket: Address family not supported by protocol\n")
    assert (write.write, write.network) == (True, False)
    assert (network.network, network.write) == (True, False)
    assert unix.unix_socket and not unix.write
