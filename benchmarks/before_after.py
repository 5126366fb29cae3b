"""Every benchmark of the loop, the TUI and start-up, before and after a change, in one table.

Run: .venv/bin/python benchmarks/before_after.py --base REV [--sittings 3] [--only turn_overhead,startup]

The base revision is exported (`git archive`) into a temporary folder and each benchmark runs there
and in this tree with the same interpreter, alternating which tree goes first in each sitting, so a
change in the machine's load falls on both sides. A benchmark prints its own table; its rows are
paired between the trees by their label — a Markdown row's first cell, or a padded row's text
before its first wide gap (`name      0.512 s …`), else the whole line with every number blanked —
the n-th row of a label with the n-th, so a changed target or note after the figures does not
unpair a row; each number is the median over the sittings. A figure whose value differs between the trees is
shown as `base → head (ratio)`; one that is the same on both (a history size, a turn number) is part
of the row's label; a row whose figures differ in number between the trees is shown as both
lines. A benchmark that fails in a tree is a row saying so. The exported base gets this tree's
`.venv` (linked), so a benchmark that starts `agent-tui` from its own tree's `.venv` runs the base
code with the same interpreter. The load average and the date head the output: the figures are
CPU-sensitive.
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
GAP = re.compile(r"\s{2,}")
"""What separates a padded row's label from its figures (`f"{name:<44} {value:>9.3f}"`)."""
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
    if (ROOT / ".venv").is_dir():
        (into / "tree" / ".venv").symlink_to(ROOT / ".venv")
    return into / "tree"


def compiled(tree: Path) -> None:
    """Write the tree's bytecode first, as an install does: without it every launch compiles what
    it imports (PYTHONDONTWRITEBYTECODE, set on these machines, keeps it from being written), and
    a tree that imports more source pays for its size, not its start-up."""
    for folder in ("agent_tui", "testkit", "benchmarks"):
        if (tree / folder).is_dir():
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / folder)], check=True)


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


Row = tuple[str, list[float], list[str]]
"""The text after a row's label with its numbers blanked (`#`), those numbers, and as written
(`1 000 000` reads as three numbers: a figure the trees share is shown as written)."""


def split_row(line: str) -> tuple[str, str]:
    """A row's label and the rest: a Markdown row's first cell, a padded row's text before its
    first wide gap, else nothing (the whole line is the rest)."""
    stripped = line.strip()
    if stripped.startswith("|"):
        cells = stripped.strip("|").split("|", 1)
        return cells[0].strip(), cells[1] if len(cells) > 1 else ""
    parts = GAP.split(stripped, maxsplit=1)
    if len(parts) == 2 and parts[0] and not NUMBER.fullmatch(parts[0]):
        return parts[0], parts[1]
    return "", stripped


def keyed(lines: list[str]) -> dict[tuple[str, int], Row]:
    """Each line with numbers, keyed by its label (or, without one, its blanked text) and which
    occurrence of that key it is."""
    seen: dict[str, int] = defaultdict(int)
    out: dict[tuple[str, int], Row] = {}
    for line in lines:
        if not NUMBER.search(line) or line.startswith(("http://", "load", "medians of", "(failed")):
            continue
        label, rest = split_row(line)
        template = " ".join(NUMBER.sub("#", rest).split())
        key = label or template
        out[(key, seen[key])] = (template, numbers(rest), NUMBER.findall(rest))
        seen[key] += 1
    return out


def medians(sittings: list[dict[tuple[str, int], Row]]) -> dict[tuple[str, int], Row]:
    out: dict[tuple[str, int], Row] = {}
    for key, (template, first, written) in sittings[0].items():
        rows = [s[key][1] for s in sittings if key in s and len(s[key][1]) == len(first)]
        out[key] = (template, [statistics.median(column) for column in zip(*rows, strict=True)], written)
    return out


def failures(runs: list[list[str]]) -> list[str]:
    return sorted({line for lines in runs for line in lines if line.startswith("(failed")})


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
        for tree in trees.values():
            compiled(tree)
        results: dict[str, dict[str, list[list[str]]]] = defaultdict(lambda: defaultdict(list))
        for sitting in range(args.sittings):
            order = ["base", "head"] if sitting % 2 == 0 else ["head", "base"]
            for name in chosen:
                for side in order:
                    results[name][side].append(run(trees[side], name, BENCHMARKS.get(name, [])))
    print(f"load at end {os.getloadavg()[0]:.1f}; medians of {args.sittings} sittings, trees alternating")
    print(f"| benchmark | row | base {args.base} → head |")
    print("|---|---|---|")
    for name in chosen:
        for side in ("base", "head"):
            for failed in failures(results[name][side]):
                print(f"| {name} | {side} {failed} | |")
        before = medians([keyed(lines) for lines in results[name]["base"]])
        after = medians([keyed(lines) for lines in results[name]["head"]])
        for key, (template, values, written) in after.items():
            if key not in before:
                continue
            label = f"{key[0]} " if key[0] != template else ""
            base_template, base_values, _ = before[key]
            if len(base_values) != len(values):
                print(
                    f"| {name} | {label}(figures differ) | {filled(base_template, base_values)} → "
                    f"{filled(template, values)} |"
                )
                continue
            pieces = template.split("#")
            label, changed = label + pieces[0], []
            for piece, b, a, text in zip(pieces[1:], base_values, values, written, strict=True):
                shown = cell(b, a)
                same = text if numbers(text) == [a] else shown  # as written, when it is the figure
                label += ("·" if "→" in shown else same) + piece
                changed += [shown] if "→" in shown else []
            print(f"| {name} | {label} | {'; '.join(changed) or 'same'} |")


def filled(template: str, values: list[float]) -> str:
    """The row's text with its figures put back."""
    pieces = template.split("#")
    return pieces[0] + "".join(f"{v:g}{p}" for v, p in zip(values, pieces[1:], strict=False))


if __name__ == "__main__":
    main()
