"""Big tool outputs for the offload tests: log-like lines, and grep's output over them."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable


def big_lines(count: int, width: int = 120) -> list[str]:
    """`count` distinct lines of about `width` characters, each containing the word `row`."""
    return [f"row {n:07d} " + (f"payload-{n % 97:02d} " * (width // 12))[: width - 12] for n in range(count)]


def grep_output(lines: list[str], rel: str) -> str:
    """What the grep tool returns when every one of `lines` in `rel` matches."""
    return "\n".join(f"{rel}:{number}:{line}" for number, line in enumerate(lines, start=1))


def wait_for(condition: Callable[[], bool], timeout: float) -> bool:
    """Poll `condition` from a synchronous test until it holds (True) or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


async def wait_until(condition: Callable[[], bool], timeout: float) -> bool:
    """Poll `condition` on the event loop until it holds (True) or `timeout` passes (False)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


def random_output(rng: random.Random) -> str:
    """An output mixing what views must handle: empty, CRLF, multibyte and very long lines."""
    pieces = ["", "x", "ok done", "é€😀 naïve", "\r", "a\r", "  indented", "ERROR: it broke"]
    lines = []
    for _ in range(rng.randrange(1, 400)):
        kind = rng.random()
        if kind < 0.05:
            lines.append(rng.choice("ab€😀") * rng.randrange(100, 3000))
        elif kind < 0.6:
            lines.append(" ".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12))))
        else:
            lines.append(f"line {len(lines)} " + "w" * rng.randrange(0, 90))
    return "\n".join(lines) + ("\n" if rng.random() < 0.5 else "")
