"""Faults in real subprocesses: a SIGKILL mid-append, and a 200 MB output streamed in."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from agent_tui.store import open_store

ROOT = Path(__file__).resolve().parents[1]

APPENDER = textwrap.dedent("""
    import asyncio, sys
    from agent_tui.base.messages import user
    from agent_tui.store import open_store

    async def endless():
        n = 0
        while True:
            n += 1
            yield (f"streamed line {n}\\n" * 500).encode()
            await asyncio.sleep(0)

    async def main():
        store = await open_store(sys.argv[1])
        s = await store.sessions.create("/p", "m")
        print(s.id, flush=True)
        # A streamed offload is in flight too when the kill comes.
        task = asyncio.create_task(store.results.offload(s.id, "bash", None, endless()))
        i = 0
        while True:
            i += 1
            await store.sessions.append(s.id, [user(f"message {i} " + "x" * 3000)])
            print(i, flush=True)

    asyncio.run(main())
""")

STREAMER = textwrap.dedent("""
    import asyncio, json, sys
    from agent_tui.store import open_store

    LINES_PER_BLOCK = 10_000
    BLOCKS = 200  # 10 000 lines of 100 bytes = 1 MB per block

    async def produce():
        for b in range(BLOCKS):
            base = b * LINES_PER_BLOCK
            yield "".join(f"{base + i + 1:012d} build step output, compiling module number "
                          f"{(base + i) % 977:05d} of the project ok".ljust(99) + "\\n"
                          for i in range(LINES_PER_BLOCK)).encode()

    async def main():
        store = await open_store(sys.argv[1])
        s = await store.sessions.create("/p", "m")
        ref = await store.results.offload(s.id, "bash", "c1", produce())
        view = await store.results.view(ref, 4096, 2000)
        await store.results.wait_indexed()
        await store.close()
        # VmHWM is this process's own peak; ru_maxrss would carry the forking parent's peak
        # across fork+exec (Linux keeps it in signal->maxrss), i.e. pytest's, not ours.
        with open("/proc/self/status") as status:
            hwm = next(l for l in status if l.startswith("VmHWM:"))
        rss_mb = int(hwm.split()[1]) / 1024
        print(json.dumps({"bytes": ref.byte_size, "lines": ref.line_count, "rss_mb": rss_mb,
                          "view": view}))

    asyncio.run(main())
""")


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    return env


class TestKilledMidAppend:
    def test_sigkill_loses_at_most_the_message_in_flight(self, tmp_path):
        """After SIGKILL during appends (and a streamed offload) the database opens cleanly,
        passes its integrity check and holds every message the child saw committed."""
        db = tmp_path / "agent.db"
        child = subprocess.Popen(
            [sys.executable, "-c", APPENDER, str(db)], stdout=subprocess.PIPE, text=True, env=child_env()
        )
        try:
            session_id = child.stdout.readline().strip()
            committed = 0
            while committed < 150:
                line = child.stdout.readline()
                assert line, "child exited early"
                committed = int(line)
            child.send_signal(signal.SIGKILL)
        finally:
            child.kill()
            child.wait()
        assert child.returncode == -signal.SIGKILL

        async def check() -> None:
            store = await open_store(db)
            try:
                row = await store.db.fetchone("PRAGMA integrity_check")
                assert row[0] == "ok"
                transcript = await store.sessions.transcript(session_id)
                assert len(transcript) >= committed
                assert [m.content.split()[1] for m in transcript] == [
                    str(i) for i in range(1, len(transcript) + 1)
                ]
                assert await store.sessions.last_sequence(session_id) == len(transcript)
                # The half-streamed output is not offered as a stored result.
                assert await store.results.list_blobs() == []
                s = await store.sessions.create("/p", "m")
                await store.sessions.append(s.id, [])
            finally:
                await store.close()

        asyncio.run(check())


class TestHugeStreamedOutput:
    def test_200_mb_streams_in_bounded_memory(self, tmp_path):
        """A 200 MB output streamed in keeps peak RSS under 300 MB and its view holds the head
        and the tail (how fast the view is: benchmarks/store.py)."""
        db = tmp_path / "agent.db"
        done = subprocess.run(
            [sys.executable, "-c", STREAMER, str(db)],
            capture_output=True,
            text=True,
            env=child_env(),
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        print({k: v for k, v in result.items() if k != "view"})
        assert result["bytes"] == 200 * 10_000 * 100
        assert result["lines"] == 2_000_000
        assert result["rss_mb"] < 300, result["rss_mb"]
        view = result["view"].splitlines()
        assert view[0].startswith("000000000001 build step")
        assert view[-2].startswith("000002000000 build step")
        assert "lines omitted" in result["view"]
