"""Running a command on a real terminal (a pseudo-terminal), where the CLI prints rich output."""

from __future__ import annotations

import os
import pty
import subprocess


def on_a_pty(argv: list[str], env: dict[str, str]) -> str:
    """What `argv` printed on a pty (stdout and stderr), once it exited with 0."""
    main, child = pty.openpty()
    proc = subprocess.Popen(argv, stdout=child, stderr=child, stdin=child, env=env)
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 4096)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(main)
    text = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0, text
    return text
