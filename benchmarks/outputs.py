"""Outputs users' commands really print, for the benchmarks that time a step after a big one.

A 5.5 MB output of one repeated token compresses ~10× faster and indexes ~20× faster than numbers
or logs do, so a benchmark that only prints that hides the costs a real session pays (issue 42).
"""

from __future__ import annotations

import random
import subprocess
import time
from pathlib import Path

KINDS = ("numbers", "logs", "repeated")


def make_output(kind: str, path: Path) -> None:
    """~5.5 MB of `kind`, written once per kind (the command only `cat`s it)."""
    if kind == "numbers":
        path.write_bytes(subprocess.run(["seq", "1", "800000"], capture_output=True, check=True).stdout)
        return
    rng = random.Random(42)
    lines: list[str] = []
    size = 0
    if kind == "logs":
        levels = ["INFO"] * 8 + ["DEBUG"] * 4 + ["WARN", "ERROR"]
        paths = ["/api/v1/orders", "/api/v1/users/{id}", "/health", "/api/v2/search", "/static/app.js"]
        t = 1_764_000_000.0
        while size < 5_500_000:
            t += rng.expovariate(50)
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"
            line = (
                f"{stamp} {rng.choice(levels):5} worker-{rng.randrange(16):02d} "
                f"req={rng.getrandbits(64):016x} {rng.choice(['GET', 'POST'])} "
                f"{rng.choice(paths).replace('{id}', str(rng.randrange(10**6)))} "
                f"status={rng.choice([200, 200, 200, 201, 304, 404, 500])} "
                f"dur={rng.uniform(0.2, 900):.1f}ms user={rng.randrange(10**5)}\n"
            )
            lines.append(line)
            size += len(line)
    else:
        line = "building target //app:server ... cache hit, nothing to do\n"
        lines = [line] * (5_500_000 // len(line))
    path.write_text("".join(lines))
