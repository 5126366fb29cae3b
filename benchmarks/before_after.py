"""Every benchmark of the loop, the TUI and start-up, before and after a change, in one table.

Run: .venv/bin/python benchmarks/before_after.py --base REV [--sittings 3] [--only turn_overhead,startup]

The base revision is exported (`git archive`) into a temporary folder and each benchmark runs there
and in this tree with the same interpreter, alternating which tree goes first in each sitting, so a
change in the machine's load falls on both sides. A benchmark prints its own table; its lines are
paired between the trees by their text with every number blanked (the n-th such line with the n-th),
and each number is the median over the sittings. A figure whose value differs between the trees is
shown as `base → head (ratio)`; one that is the same on both (a history size, a turn number) is part
of the row's label. The load average and the date head the output: the figures are CPU-sensitive.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*")
BENCHMARKS = {
    "turn_overhead": ["--turns", "100"],
    "startup": ["--repeat", "3"],
    "tui": [],
    "tui_step": [],
}
"""The loop (per-turn overhead), start-up (first request, first frame, the meter) and the TUI
(first frame, opening a long session, keys, a step's cost): the set issue 39 asks to hold."""


def export(rev: str, into: Path) -> Path:
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
    tar = into / "base.tar"
    tar.write_bytes(archive)
    with tarfile.open(tar) as bundle:
        bundle.extractall(into / "tree", filter="data")
    return into / "tree"


def run(tree: Path, name: str, args: list[str]) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, str(tree / "benchmarks" / f"{name}.py"), *args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0:
        return [
            f"(failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode})"
        ]
    return done.stdout.splitlines()


def numbers(line: str) -> list[float]:
    return [float(n.replace(",", "")) for n in NUMBER.findall(line)]


def keyed(lines: list[str]) -> dict[tuple[str, int], list[float]]:
    """Each line with numbers, keyed by its blanked text and which occurrence of that text it is."""
    seen: dict[str, int] = defaultdict(int)
    out: dict[tuple[str, int], list[float]] = {}
    for line in lines:
        values = numbers(line)
        if not values or line.startswith(("http://", "load", "medians of")):
            continue
        text = " ".join(NUMBER.sub("#", line).split())
        out[(text, seen[text])] = values
        seen[text] += 1
    return out


def medians(sittings: list[dict[tuple[str, int], list[float]]]) -> dict[tuple[str, int], list[float]]:
    out: dict[tuple[str, int], list[float]] = {}
    for key in sittings[0]:
        rows = [s[key] for s in sittings if key in s and len(s[key]) == len(sittings[0][key])]
        out[key] = [statistics.median(column) for column in zip(*rows, strict=True)]
    return out


def cell(before: float, after: float) -> str:
    if before == after:
        return f"{after:g}"
    ratio = f" ({after / before:.2f}×)" if before else ""
    return f"{before:g} → {after:g}{ratio}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the revision to compare against")
    parser.add_argument("--sittings", type=int, default=3)
    parser.add_argument("--only", default=",".join(BENCHMARKS))
    args = parser.parse_args()
    chosen = [name for name in args.only.split(",") if name]
    print(f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; load at start {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as temp:
        base = export(args.base, Path(temp))
        trees = {"base": base, "head": ROOT}
        results: dict[str, dict[str, list[dict[tuple[str, int], list[float]]]]] = defaultdict(
            lambda: defaultdict(list)
        )
        for sitting in range(args.sittings):
            order = ["base", "head"] if sitting % 2 == 0 else ["head", "base"]
            for name in chosen:
                for side in order:
                    results[name][side].append(keyed(run(trees[side], name, BENCHMARKS.get(name, []))))
    print(f"load at end {os.getloadavg()[0]:.1f}; medians of {args.sittings} sittings, trees alternating")
    print(f"| benchmark | row | base {args.base} → head |")
    print("|---|---|---|")
    for name in chosen:
        before, after = medians(results[name]["base"]), medians(results[name]["head"])
        for key, values in after.items():
            if key not in before or len(before[key]) != len(values):
                continue
            pieces = key[0].split("#")
            label, changed = pieces[0], []
            for piece, b, a in zip(pieces[1:], before[key], values, strict=True):
                shown = cell(b, a)
                label += ("·" if "→" in shown else shown) + piece
                changed += [shown] if "→" in shown else []
            print(f"| {name} | {label} | {'; '.join(changed) or 'same'} |")


if __name__ == "__main__":
    main()
