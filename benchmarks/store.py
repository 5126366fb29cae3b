"""Benchmark of the SQLite store: offload + view, window reads, grep vs `grep -n`, recall, and
views of huge outputs (a 200 MB stream, 40 MB single lines).

Run: .venv/bin/python benchmarks/store.py   (about two minutes; uses a temp directory)
     .venv/bin/python benchmarks/store.py recall   (only recall: outputs, then conversation)
     .venv/bin/python benchmarks/store.py step [--base PATH]   (tool finished → next request
     after a big output, this tree against another checkout: benchmarks/big_output.py)

Recall as the model's tool runs it searches two indexes: 10 000 stored outputs and 100 000
transcript messages of 500 sessions (user and assistant text, tool-call arguments).

Each row shows the median wall time and the median CPU time (all threads of this process, or of
the `grep` child for the baseline) over several runs, the target or the baseline measured in the
same run, and the ratios median / target-or-baseline (≤ 1.00 meets a target). CPU time is what
to compare on a busy machine: wall time there includes waiting for a core.
"""

from __future__ import annotations

import asyncio
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_tui.store import Store, open_store

WORDS = [
    f"{a}{b}"
    for a in ("con", "re", "de", "pro", "in", "ex", "sub", "trans", "com", "dis")
    for b in (
        "nect",
        "fuse",
        "load",
        "pile",
        "dex",
        "port",
        "mit",
        "form",
        "pend",
        "tract",
        "ject",
        "vert",
        "sist",
        "duce",
        "ceive",
        "scribe",
        "pose",
        "cede",
        "vene",
        "serve",
    )
]
RARE = [f"zz{n:05d}" for n in range(20_000)]

Row = tuple[str, float, float, "float | None", "float | None", str]


def log_lines(count: int, seed: int, start: int = 1) -> str:
    rng = random.Random(seed)
    levels = ("INFO", "DEBUG", "WARN", "ERROR")
    return "".join(
        f"{start + i:08d} {rng.choice(levels)} worker-{rng.randrange(16)} "
        f"{' '.join(rng.choices(WORDS, k=6))} took {rng.randrange(999)}ms\n"
        for i in range(count)
    )


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def measure(
    runs: int, work: Callable[[], Awaitable[object]], clock: Callable[[], float] = time.process_time
) -> tuple[float, float]:
    """Median wall and CPU milliseconds of `work`."""
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), clock()
        await work()
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((clock() - cpu) * 1000)
    return statistics.median(walls), statistics.median(cpus)


async def bench_offload(store: Store, session_id: str, rows: list[Row]) -> None:
    text = log_lines(130_000, 1)[: 10 * 1024 * 1024]
    size = len(text.encode())
    walls, cpus, index_walls = [], [], []
    for _ in range(9):
        wall, cpu = time.perf_counter(), time.process_time()
        ref = await store.results.offload(session_id, "bash", None, text)
        await store.results.view(ref, 4096, 2000)
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
        # Timed apart, and awaited before the next run so it never overlaps one.
        wall = time.perf_counter()
        await store.results.wait_indexed()
        index_walls.append((time.perf_counter() - wall) * 1000)
    rows.append(
        (
            f"offload a {size / 2**20:.0f} MB output, stored + view built",
            statistics.median(walls),
            statistics.median(cpus),
            100.0,
            100.0,
            "target",
        )
    )
    rows.append(
        (
            "  its FTS indexing (background, after the view)",
            statistics.median(index_walls),
            float("nan"),
            None,
            None,
            "-",
        )
    )


async def bench_read(store: Store, session_id: str, rows: list[Row]) -> None:
    ref = await store.results.offload(session_id, "bash", None, log_lines(1_000_000, 2))
    await store.results.wait_indexed()  # measure reads alone, not beside the indexer
    got = await store.results.read_lines(ref.id, 900_000, 100)
    assert got[0].startswith("00900000 ") and len(got) == 100
    wall, cpu = await measure(50, lambda: store.results.read_lines(ref.id, 900_000, 100))
    rows.append(("read 100 lines from line 900000 of 1000000", wall, cpu, 20.0, 20.0, "target"))
    wall, cpu = await measure(50, lambda: store.results.read(ref.id, 900_000, 100))
    rows.append(("  same as a numbered read_result page", wall, cpu, 20.0, 20.0, "target"))


async def bench_grep(store: Store, session_id: str, folder: Path, rows: list[Row]) -> None:
    lines = log_lines(125_000, 3).splitlines(keepends=True)
    while sum(map(len, lines)) > 10 * 1024 * 1024 - 2000:
        lines.pop()
    rng = random.Random(3)
    for index in rng.sample(range(len(lines)), 60):
        lines[index] = lines[index].rstrip("\n") + " connection refused\n"
    text = "".join(lines)
    file = folder / "grep.txt"
    file.write_text(text)
    ref = await store.results.offload(session_id, "bash", None, text)
    await store.results.wait_indexed()
    for pattern, flags, label in (
        ("connection refused", "-n", f"grep a {len(text) / 2**20:.0f} MB output (60 matches, literal)"),
        (r"connection\s+refused", "-nE", "  same with a regex (connection\\s+refused)"),
    ):
        out = await store.results.grep(ref.id, pattern)
        assert "60 matching lines" in out, out.splitlines()[0]
        wall, cpu = await measure(9, lambda: store.results.grep(ref.id, pattern))

        async def gnu() -> None:
            subprocess.run(["grep", flags, pattern, str(file)], stdout=subprocess.DEVNULL, check=True)

        base_wall, base_cpu = await measure(9, gnu, clock=children_cpu)
        rows.append((label, wall, cpu, base_wall, base_cpu, f"grep {flags}"))


async def bench_recall(store: Store, rows: list[Row]) -> None:
    rng = random.Random(4)
    pool = log_lines(3000, 5).splitlines(keepends=True)
    sessions = [await store.sessions.create(f"/work/project-{i % 4}", "m") for i in range(20)]
    start = time.perf_counter()
    total = 0
    for n in range(10_000):
        body = "".join(rng.choices(pool, k=128))
        body += f"marker {RARE[n % len(RARE)]} {RARE[rng.randrange(len(RARE))]}\n"
        total += len(body)
        await store.results.offload(sessions[n % 20].id, "bash", None, body)
    await store.results.wait_indexed()
    build = time.perf_counter() - start
    # Every output is drawn from the same 3000 lines, so the common words below match all
    # 10000 outputs: the hardest case for BM25, which scores every match.
    queries = [
        "connect",
        "refuse timeout",
        "ERROR worker-3",
        "zz00042",
        "repile condect",
        "transmit describe",
        "proform",
        "zz01234 marker",
        "dispend exvene",
        "took",
    ]
    for query in queries:
        assert await store.results.recall(query), query
    walls, cpus = [], []
    for _ in range(3):
        for query in queries:
            wall, cpu = await measure(1, lambda: store.results.recall(query, limit=10))
            walls.append(wall)
            cpus.append(cpu)
    rows.append(
        (
            f"recall over 10000 outputs ({total / 2**20:.0f} MB; built in {build:.0f} s)",
            statistics.median(walls),
            statistics.median(cpus),
            50.0,
            50.0,
            "target",
        )
    )
    walls.sort()
    cpus.sort()
    rows.append(
        (
            "  its 90th percentile (words in every output)",
            walls[int(len(walls) * 0.9)],
            cpus[int(len(cpus) * 0.9)],
            50.0,
            50.0,
            "target",
        )
    )


def chat_text(rng: random.Random, n: int) -> str:
    words = rng.choices(WORDS, k=rng.randint(8, 40))
    if n % 97 == 0:
        words.insert(rng.randrange(len(words)), f"decision {RARE[n % len(RARE)]}")
    return " ".join(words) + "."


async def bench_conversation(store: Store, rows: list[Row]) -> None:
    """Recall over 100 000 messages (500 sessions × 200) plus the 10 000 outputs of
    bench_recall, both indexes searched per query as the recall tool does."""
    from agent_tui.base.messages import Message, ToolCall

    rng = random.Random(6)
    start = time.perf_counter()
    n = 0
    for i in range(500):
        session = await store.sessions.create(f"/work/project-{i % 4}", "m")
        batch: list[Message] = []
        for j in range(200):
            n += 1
            if j % 2 == 0:
                batch.append(Message(role="user", content=chat_text(rng, n)))
            elif j % 6 == 1:
                args = '{"command": "' + " ".join(rng.choices(WORDS, k=4)) + '"}'
                batch.append(
                    Message(role="assistant", content=None, tool_calls=(ToolCall(f"c{n}", "bash", args),))
                )
            else:
                batch.append(Message(role="assistant", content=chat_text(rng, n)))
        await store.sessions.append(session.id, batch)
    build = time.perf_counter() - start
    count = (await store.db.fetchone("SELECT count(*) FROM messages"))[0]
    queries = [
        "connect",
        "refuse timeout",
        "decision zz00097",
        "zz01940",
        "repile condect",
        "transmit describe",
        "proform",
        "bash command exvene",
        "dispend exvene",
        "what did we decide about the deploy",
    ]

    async def both(query: str, project: str | None = None) -> None:
        await store.transcript.recall(query, project=project, limit=10)
        await store.results.recall(query, project=project, limit=10)

    assert await store.transcript.recall("decision zz00097"), "the planted decision is found"
    for label, project in (("all projects", None), ("one project", "/work/project-1")):
        walls, cpus = [], []
        for _ in range(3):
            for query in queries:
                wall, cpu = await measure(1, lambda: both(query, project))
                walls.append(wall)
                cpus.append(cpu)
        rows.append(
            (
                f"recall {count} messages + 10000 outputs, {label} (built in {build:.0f} s)",
                statistics.median(walls),
                statistics.median(cpus),
                50.0,
                50.0,
                "target",
            )
        )
        walls.sort()
        cpus.sort()
        rows.append(
            (
                "  its 90th percentile",
                walls[int(len(walls) * 0.9)],
                cpus[int(len(cpus) * 0.9)],
                100.0,
                100.0,
                "target",
            )
        )


async def streamed_blocks(blocks: int):
    """A build log streamed in 1 MB blocks of 100-byte lines (as bash hands it to the store)."""
    for b in range(blocks):
        base = b * 10_000
        yield "".join(
            f"{base + i + 1:012d} build step output, module {(base + i) % 977:05d} ok".ljust(99) + "\n"
            for i in range(10_000)
        ).encode()


async def bench_huge(store: Store, session_id: str, rows: list[Row]) -> None:
    """The limits tests/test_store_faults.py and test_store_results.py used to assert on time."""
    ref = await store.results.offload(session_id, "bash", None, streamed_blocks(200))
    await store.results.wait_indexed()
    assert ref.byte_size == 200_000_000
    wall, cpu = await measure(5, lambda: store.results.view(ref, 4096, 2000))
    rows.append(("view of a 200 MB streamed output (head + tail)", wall, cpu, 1000.0, 1000.0, "target"))
    giant = b"A" * 40_000_000 + b"\nmiddle\n" + b"Z" * 40_000_000
    ref = await store.results.offload(session_id, "bash", None, giant)
    await store.results.wait_indexed()

    async def view_and_read() -> None:
        await store.results.view(ref, 4096, 100)
        await store.results.read_lines(ref.id, 1, 3, max_line_length=100)

    wall, cpu = await measure(5, view_and_read)
    rows.append(("view + read of two 40 MB single lines", wall, cpu, 500.0, 500.0, "target"))


def print_table(rows: list[Row]) -> None:
    print(f"\nload average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(
        f"{'case':<58} {'wall ms':>8} {'cpu ms':>7}  {'vs':<9} {'wall':>7} {'cpu':>7} "
        f"{'ratio':>6} {'cpu r.':>6}"
    )
    print("-" * 116)
    for name, wall, cpu, base_wall, base_cpu, kind in rows:
        line = f"{name:<58} {wall:>8.1f} {cpu:>7.1f}  "
        if base_wall is not None and base_cpu is not None:
            line += (
                f"{kind:<9} {base_wall:>7.1f} {base_cpu:>7.1f} {wall / base_wall:>6.2f} "
                f"{cpu / max(base_cpu, 0.1):>6.2f}"
            )
        print(line.replace("nan", "  -"))


async def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="agent-tui-bench-"))
    rows: list[Row] = []
    try:
        store = await open_store(folder / "bench.db")
        try:
            session = await store.sessions.create("/work/bench", "m")
            jobs = {
                "offload": lambda: bench_offload(store, session.id, rows),
                "read": lambda: bench_read(store, session.id, rows),
                "grep": lambda: bench_grep(store, session.id, folder, rows),
                "recall": lambda: bench_recall(store, rows),
                "conversation": lambda: bench_conversation(store, rows),
                "huge": lambda: bench_huge(store, session.id, rows),
            }
            only = sys.argv[1:] == ["recall"]
            for name, make in jobs.items():
                if only and name not in ("recall", "conversation"):
                    continue
                job = make()
                start = time.perf_counter()
                await job
                print(f"{name} done in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        finally:
            await store.close()
        print_table(rows)
        print(f"\ndatabase size: {os.path.getsize(folder / 'bench.db') / 2**20:.0f} MB")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["step"]:  # tool finished → next request after a big output
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import big_output

        sys.argv[1:2] = []
        big_output.main()
    else:
        asyncio.run(main())
