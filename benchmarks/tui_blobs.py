"""TUI speed, the blob browser (issue 8): a million-line output opened and jumped to its end, a
search across 10 000 stored outputs until its rows are on screen.

Run: .venv/bin/python benchmarks/tui_blobs.py  (also run by benchmarks/tui.py, after its
launch, session and key rows)
Targets: opening a 1 000 000-line blob and jumping to its end ≤ 0.5 s, beside a 1 000-line blob;
a recall search across 10 000 blobs drawn ≤ 0.2 s, beside 100 blobs.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from tui import _idle, row  # noqa: E402 - imported after the sys.path set-up above

BLOB_WORDS = ("build", "deploy", "cache", "timeout", "retry", "schema", "worker", "socket")
QUERIES = ("needle42", "timeout retry", "schema worker socket", "deploy")


def _blob_text(i: int) -> str:
    words = [BLOB_WORDS[(i * 7 + n) % len(BLOB_WORDS)] for n in range(5)]
    return "".join(f"job {i} step {n}: {' '.join(words)} needle{i} ok\n" for n in range(20))


async def _blob_db(path: Path, workspace: Path, config, *, blobs: int, big: bool) -> dict:
    """A database with `blobs` small outputs (and, when `big`, a 1 000 000-line and a
    1 000-line one); returns the refs and the session id."""
    from agent_tui.compose.factory import build_services

    config = _with_db(config, path)
    services = await build_services(config, workspace=workspace)
    made: dict = {}
    try:
        info = await services.store.sessions.create(str(workspace), config.model.name)
        made["session"] = info.id
        results = services.store.results
        if big:
            for lines in (1_000, 1_000_000):
                text = "".join(f"log line {n:07d} status=ok in {n % 97} ms\n" for n in range(1, lines + 1))
                made[lines] = (await results.offload(info.id, "bash", None, text)).id
        for i in range(blobs):
            await results.offload(info.id, "bash", None, _blob_text(i))
        await results.wait_indexed()
    finally:
        await services.close()
    return made


def _with_db(config, path: Path):
    import dataclasses

    return dataclasses.replace(config, store=dataclasses.replace(config.store, db=str(path)))


async def _until(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError("the blob browser did not finish in time")
        await asyncio.sleep(0.001)


async def _drawn(widget) -> None:
    done = asyncio.Event()
    widget.call_after_refresh(done.set)
    await done.wait()


async def _blob_app(config, workspace: Path, session_id: str, work) -> dict:
    from agent_tui.compose.factory import build_services
    from agent_tui.frontends.tui.app import AgentApp

    app = AgentApp(
        lambda: build_services(config, workspace=workspace), workspace=workspace, session_id=session_id
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await _idle(pilot)
        return await work(app, pilot)


async def bench_blobs(repeat: int = 5) -> dict[str, dict]:
    """Open a blob and jump to its end (1 000 000 lines vs 1 000), and recall searches from the
    browser's box (10 000 blobs vs 100), timed to the frame that shows the result."""
    from agent_tui.compose.rule_words import SHIPPED_WORDS
    from agent_tui.config import load_config
    from agent_tui.frontends.tui.screens.blobs import BlobsScreen
    from testkit.fake_openai import FakeOpenAI

    out: dict[str, dict] = {"open_end": {}, "search": {}, "setup": {}}
    with FakeOpenAI(window=200_000) as server, tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENT_TUI_HOME"] = str(Path(tmp) / "home")
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        config = load_config(
            overrides={
                "model": {"name": "openai/fake-model", "api_base": server.base_url, "context_window": 200_000}
            },
            cwd=workspace,
            env={},
            rule_words=SHIPPED_WORDS,
        ).config
        started = time.perf_counter()
        many = await _blob_db(Path(tmp) / "many.db", workspace, config, blobs=10_000, big=True)
        out["setup"]["many"] = time.perf_counter() - started
        few = await _blob_db(Path(tmp) / "few.db", workspace, config, blobs=100, big=False)

        async def open_and_end(app, pilot) -> dict:
            timings: dict[int, list[float]] = {}
            for _ in range(repeat):
                for lines in (1_000, 1_000_000):
                    begun = time.perf_counter()
                    app.action_blobs(many[lines])
                    await _until(
                        lambda: (
                            isinstance(app.screen, BlobsScreen)
                            and app.screen.opened is not None
                            and app.screen.opened.ref.id == many[lines]
                        )
                    )
                    screen = app.screen
                    await _until(lambda: screen.viewer.settled)
                    screen.viewer.action_bottom()  # what End does (without Pilot's own waits)
                    await _until(lambda: screen.viewer.settled)
                    await _drawn(screen.viewer)
                    timings.setdefault(lines, []).append(time.perf_counter() - begun)
                    await pilot.press("escape")
                    await _idle(pilot)
            return timings

        out["open_end"] = await _blob_app(
            _with_db(config, Path(tmp) / "many.db"), workspace, many["session"], open_and_end
        )

        async def searches(app, pilot) -> list[float]:
            app.action_blobs()
            await _until(lambda: isinstance(app.screen, BlobsScreen) and app.screen.searches)
            screen = app.screen
            screen.query_one("#blobs-scope").value = "all"  # everything
            await _until(lambda: screen.searches >= 2)
            box = screen.query_one("#blobs-search")
            timings = []
            for _ in range(repeat):
                for query in QUERIES:
                    box.focus()
                    box.value = query
                    before = screen.searches
                    begun = time.perf_counter()
                    await box.action_submit()  # what Enter does (without Pilot's own waits)
                    await _until(lambda: screen.searches > before)
                    await _drawn(screen.table)
                    timings.append(time.perf_counter() - begun)
                    assert screen.rows, f"no hit for {query!r}"
            return timings

        for name, db, made in (("10 000", "many.db", many), ("100", "few.db", few)):
            out["search"][name] = await _blob_app(
                _with_db(config, Path(tmp) / db), workspace, made["session"], searches
            )
    return out


def print_blob_rows(out: dict[str, dict]) -> None:
    med = statistics.median
    opened, search = out["open_end"], out["search"]
    print(
        row(
            "open 1 000 000-line blob + jump to end",
            med(opened[1_000_000]),
            med(opened[1_000]),
            "≤ 0.5 s · baseline: 1 000-line blob",
        )
    )
    print(
        row(
            "recall search, 10 000 blobs → on screen",
            med(search["10 000"]),
            med(search["100"]),
            "≤ 0.2 s · baseline: 100 blobs",
        )
    )
    print(row("recall search, 10 000 blobs (max)", max(search["10 000"]), max(search["100"]), ""))
    print(
        f"blob runs: open+end {', '.join(f'{t:.3f}' for t in opened[1_000_000])} s; "
        f"{len(search['10 000'])} searches ({', '.join(QUERIES)}); storing the 10 000 "
        f"blobs and the million-line one took {out['setup']['many']:.1f} s"
    )


if __name__ == "__main__":
    print(f"{'measure (median)':<44} {'agent-tui':>12} {'baseline':>12} {'ratio':>8}  target")
    print("-" * 100)
    print_blob_rows(asyncio.run(bench_blobs()))
