"""The seccomp filter every sandboxed command runs under: no unix sockets, no kernel keyring.

A read-only mount does not stop `connect()` on a unix socket, and sockets live everywhere (tmux's
in /tmp, the session bus and docker desktop's in `$XDG_RUNTIME_DIR`, gpg's in ~/.gnupg, abstract
ones in no folder at all). Hiding folders can never list them all, so, as Claude Code's Linux
sandbox does, the filter refuses to *create* an AF_UNIX socket: `socket(AF_UNIX, …)` fails with
EAFNOSUPPORT ("Address family not supported by protocol"), whatever the path. `socketpair()` still
works (it connects a command's own processes, nothing outside), as do internet sockets. seccomp
cannot read `connect()`'s address, which is why the check is on `socket()`.

Siblings closed in the same filter: `io_uring_setup` (io_uring can open sockets without the
`socket()` syscall) fails with ENOSYS, which its users treat as "not available"; the kernel
keyring (`keyctl`, `add_key`, `request_key`: Kerberos tickets and other secrets, not namespaced)
fails with EPERM, as under Docker's default profile. 32-bit x86 code's `socketcall(SYS_SOCKET)`
is refused as a whole (seccomp cannot see its arguments).

bwrap loads the program from a file descriptor (`--seccomp FD`); `launcher` opens the file in a
`/bin/sh` that then execs bwrap, so a wrapped command stays a plain argv for any spawner.
"""

from __future__ import annotations

import atexit
import errno
import os
import platform
import shutil
import struct
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

FD = 3
"""The descriptor bwrap reads the program from."""

# Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_AND = 0x54  # BPF_ALU | BPF_AND | BPF_K
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (the low half of args[0], little-endian)
_AF_UNIX = 1
_SYS_SOCKET = 1  # socketcall's call number for socket()
_X32_BIT = 0x40000000

# audit arch → (socket, keyctl, add_key, request_key, io_uring_setup, socketcall or None)
_GENERIC = (198, 219, 217, 218, 425, None)  # the asm-generic table
_ARCHES = {
    0xC000003E: (41, 250, 248, 249, 425, None),  # x86_64 (x32 numbers masked to these)
    0x40000003: (359, 288, 286, 287, 425, 102),  # i386
    0xC00000B7: _GENERIC,  # aarch64
    0x40000028: (281, 311, 309, 310, 425, None),  # arm (EABI)
    0xC00000F3: _GENERIC,  # riscv64
    0xC0000102: _GENERIC,  # loongarch64
}
_LITTLE_ENDIAN_MACHINES = {"x86_64", "amd64", "i386", "i686", "aarch64", "arm64", "riscv64", "loongarch64"}
_X86_64 = 0xC000003E


def _assemble(ops: list[tuple[Any, ...]]) -> bytes:
    """Ops are (code, k) or (code, k, true_label, false_label) or ("label", name); jumps only
    go forward, as BPF requires."""
    where: dict[str, int] = {}
    index = 0
    for op in ops:
        if op[0] == "label":
            where[op[1]] = index
        else:
            index += 1
    out, index = [], 0
    for op in ops:
        if op[0] == "label":
            continue
        code, k, *targets = op
        jt = where[targets[0]] - index - 1 if targets and targets[0] else 0
        jf = where[targets[1]] - index - 1 if targets and targets[1] else 0
        out.append(struct.pack("=HBBI", code, jt, jf, k))
        index += 1
    return b"".join(out)


def program() -> bytes:
    """The filter, for every architecture a process on this machine can run as."""
    ops: list[tuple[Any, ...]] = [(_LD_ABS, _ARCH)]
    for arch in _ARCHES:
        ops.append((_JEQ, arch, f"a{arch}", None))
    ops.append((_RET, _ALLOW))
    for arch, (sock, keyctl, add_key, request_key, uring, socketcall) in _ARCHES.items():
        ops += [("label", f"a{arch}"), (_LD_ABS, _NR)]
        if arch == _X86_64:
            ops.append((_AND, ~_X32_BIT & 0xFFFFFFFF))
        ops.append((_JEQ, sock, "family", None))
        for nr in (keyctl, add_key, request_key):
            ops.append((_JEQ, nr, "eperm", None))
        ops.append((_JEQ, uring, "enosys", None))
        if socketcall is not None:
            ops.append((_JEQ, socketcall, "socketcall", None))
        ops.append((_RET, _ALLOW))
    ops += [
        ("label", "socketcall"),
        (_LD_ABS, _ARG0),
        (_JEQ, _SYS_SOCKET, "refuse", None),
        (_RET, _ALLOW),
        ("label", "family"),
        (_LD_ABS, _ARG0),
        (_JEQ, _AF_UNIX, "refuse", None),
        (_RET, _ALLOW),
        ("label", "refuse"),
        (_RET, _ERRNO | errno.EAFNOSUPPORT),
        ("label", "eperm"),
        (_RET, _ERRNO | errno.EPERM),
        ("label", "enosys"),
        (_RET, _ERRNO | errno.ENOSYS),
    ]
    return _assemble(ops)


def supported() -> bool:
    """Whether this machine's architecture is one the filter knows (little-endian, listed)."""
    return sys.platform.startswith("linux") and platform.machine().lower() in _LITTLE_ENDIAN_MACHINES


@lru_cache(maxsize=1)
def _folder() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="agent-tui-seccomp-")).resolve()
    atexit.register(shutil.rmtree, folder, True)
    return folder


def filter_file() -> Path | None:
    """The program written to a private file (once per process; again if something removed it)."""
    if not supported():
        return None
    path = _folder() / "unix-block.bpf"
    if not path.is_file():
        _folder().mkdir(mode=0o700, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(program())
        os.replace(tmp, path)
    return path


def empty_folder() -> Path:
    """An empty folder of this process, bound read-only over hidden folders."""
    path = _folder() / "empty"
    if not path.is_dir():
        path.mkdir(mode=0o500, exist_ok=True)
    return path


def folder() -> Path:
    """Where the filter file lives: kept read-only if a workspace happens to contain it."""
    return _folder()


def launcher(bwrap_argv: list[str], path: Path) -> list[str]:
    """`bwrap_argv` (which says `--seccomp FD`) run with FD open on `path`: sh opens it and execs
    bwrap in its place (same pid, so process-group handling is unchanged)."""
    return ["/bin/sh", "-c", f'exec "$@" {FD}<"$0"', str(path), *bwrap_argv]
