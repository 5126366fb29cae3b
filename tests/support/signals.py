"""Starting the CLI as its own process group, signalling it, and checking that nothing is left behind."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

from agent_tui.tools.bash import _group_alive


def start_cli(args: list[str], cwd: Path, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.Popen(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def read_fifo(path: Path, proc: subprocess.Popen | None = None, timeout: float = 60) -> str:
    """What the command writes into the fifo: the event that it is running (bounded wait)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    data = b""
    try:
        deadline = time.monotonic() + timeout
        while not data.endswith(b"\n"):
            if time.monotonic() > deadline or (proc is not None and proc.poll() is not None):
                raise AssertionError(f"the command never wrote to the fifo (got {data!r})")
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                data += os.read(fd, 100)
    finally:
        os.close(fd)
    return data.decode()


def wait_group_gone(pgid: int, timeout: float = 15) -> bool:
    """Poll the process table until no live process is left in the group (bounded)."""
    deadline = time.monotonic() + timeout
    while _group_alive(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def long_command(tmp_path: Path) -> tuple[str, Path, Path]:
    fifo, marker = tmp_path / "started", tmp_path / "X"
    os.mkfifo(fifo)
    return f"echo $$ > {fifo}; (sleep 15; touch {marker})", fifo, marker


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass


ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[A-Za-z~]|\x1b\][^\x07]*\x07")


class Terminal:
    """agent-tui on the slave side of a pty; the master side is read continuously."""

    def __init__(self, args: list[str], cwd: Path, home: Path) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
        env = {
            **os.environ,
            "TERM": "xterm-256color",
            "AGENT_TUI_HOME": str(home),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agent_tui", *args],
            cwd=cwd,
            env=env,
            preexec_fn=lambda: os.login_tty(slave),  # a controlling tty: SIGHUP on close
        )
        os.close(slave)
        self.master: int | None = master
        self.output = bytearray()
        self._lock = threading.Lock()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        while self.master is not None:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.1)
                if ready:
                    data = os.read(self.master, 65536)
                    if not data:
                        return
                    with self._lock:
                        self.output += data
            except (OSError, TypeError, ValueError):
                return

    def text(self) -> str:
        with self._lock:
            return ANSI.sub(b"", bytes(self.output)).decode("utf-8", "replace")

    def wait_for(self, needle: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while needle not in self.text():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"{needle!r} never appeared on the terminal")
            time.sleep(0.05)

    def type(self, text: str) -> None:
        assert self.master is not None
        os.write(self.master, text.encode())

    def hang_up(self) -> None:
        """Close the terminal (what killing a tmux window does): the kernel sends SIGHUP."""
        master, self.master = self.master, None
        if master is not None:
            os.close(master)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.hang_up()
