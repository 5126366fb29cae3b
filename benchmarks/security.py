"""What the walls cost: the sandbox per command, and the control-character filter per MB.

Run: .venv/bin/python benchmarks/security.py [N]
One table. The sandbox rows run `true` and `echo hello` N times (default 30) as bash does —
`bash -c …` — unsandboxed and wrapped by the public sandbox API (`probe()`, `Sandbox(...)`,
`Sandbox.wrap`) in workspace-write mode, and give the median and the ratio sandboxed /
unsandboxed. The filter rows time `visible()` (agent_tui/base/visible_text.py) on 8 MB of typical
text (ASCII log lines; accented and CJK text; text with typographic punctuation, whose UTF-8 lead
byte E2 it shares with the bidi and zero-width characters) and of escape-heavy text (coloured
test output: an ESC every ~12 characters), per MB, against a baseline measured in the same run: `str.encode("utf-8")` of the
same text (one full pass and copy, the least any output path does).
The /undo row puts back 100 files in 10 folders (median of 20 rounds) the way a restore did before
the confinement (`mkdir` + `write_bytes`) and the way it does now (agent/undo.py: `confine`, the
protected-path check and `write_confined`, which walks each folder with O_NOFOLLOW).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_tui.base.visible_text import visible  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.tools.sandbox import Sandbox, probe  # noqa: E402 - imported after the sys.path set-up above

MB = 1 << 20


def median_ms(argv: list[str], cwd: Path, n: int) -> float:
    times = []
    for _ in range(n):
        started = time.perf_counter()
        subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def sandbox_rows(n: int) -> list[tuple[str, str, str, str]]:
    found = probe()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        (ws / ".git").mkdir(parents=True)
        sandbox = Sandbox("workspace-write", workspace=ws, probe=found)
        if not sandbox.active:
            return [("sandbox", "-", "-", f"not available here: {found.problem}")]
        for command in ("true", "echo hello"):
            argv = ["bash", "-c", command]
            plain = median_ms(argv, ws, n)
            boxed = median_ms(sandbox.wrap(argv, cwd=ws), ws, n)
            rows.append(
                (
                    f"bash -c '{command}' (median of {n})",
                    f"{plain:.2f} ms",
                    f"{boxed:.2f} ms",
                    f"{boxed / plain:.2f}×",
                )
            )
        sandbox.close()
    return rows


def typical_text(size: int, line: str) -> str:
    return (line * (size // len(line.encode()) + 1))[: size // 2 * 2]


ASCII_LINE = "2026-11-25 22:31:07 INFO tests/test_cart.py::test_total PASSED [ 42%] ok\n"
ACCENTED_LINE = "2026-11-25 22:31:07 INFO Größe der Datei geprüft: 42 Einträge, 東京 ok\n"
PUNCTUATED_LINE = "2026-11-25 22:31:07 INFO tests/test_cart.py::test_total — ok ✓ “done”\n"


def escape_heavy_text(size: int) -> str:
    line = "\x1b[32mPASSED\x1b[0m \x1b[1mtests/test_cart.py\x1b[0m::\x1b[33mtest_total\x1b[0m\r\n"
    return (line * (size // len(line) + 1))[:size]


def per_mb(fn, text: str, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - started)
    return best * 1000 / (len(text.encode("utf-8")) / MB)


def filter_rows() -> list[tuple[str, str, str, str]]:
    rows = []
    samples = (
        ("ASCII log text", typical_text(8 * MB, ASCII_LINE)),
        ("accented/CJK text", typical_text(8 * MB, ACCENTED_LINE)),
        ("text with — ✓ “”", typical_text(8 * MB, PUNCTUATED_LINE)),
        ("escape-heavy text", escape_heavy_text(8 * MB)),
    )
    for name, text in samples:
        base = per_mb(lambda t: t.encode("utf-8"), text)
        cost = per_mb(visible, text)
        rows.append(
            (f"visible() on {name}, per MB", f"{base:.2f} ms", f"{cost:.2f} ms", f"{cost / base:.1f}×")
        )
    return rows


def undo_rows(rounds: int = 20, files: int = 100) -> list[tuple[str, str, str, str]]:
    from agent_tui.agent.undo import _unsafe
    from agent_tui.tools.workspace import write_confined

    def plain(ws: Path, targets: list[Path], data: bytes) -> None:
        for path in targets:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)

    def walled(ws: Path, targets: list[Path], data: bytes) -> None:
        for path in targets:
            if _unsafe(ws, str(path)) is None:
                write_confined(ws, path, data)

    with tempfile.TemporaryDirectory() as tmp:
        ws = (Path(tmp) / "ws").resolve()
        (ws / ".git").mkdir(parents=True)
        targets = [ws / "src" / f"d{i % 10}" / f"f{i}.py" for i in range(files)]
        data = b"x = 1\n" * 40
        times: dict[str, list[float]] = {"plain": [], "walled": []}
        plain(ws, targets, data)  # the folders exist before either is timed
        for _ in range(rounds):  # alternated, so the machine's load falls on both alike
            for name, restore in (("plain", plain), ("walled", walled)):
                started = time.perf_counter()
                restore(ws, targets, data)
                times[name].append((time.perf_counter() - started) * 1000)
    before, after = statistics.median(times["plain"]), statistics.median(times["walled"])
    return [
        (
            f"/undo of {files} files (median of {rounds})",
            f"{before:.2f} ms",
            f"{after:.2f} ms",
            f"{after / before:.2f}×",
        )
    ]


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    rows = sandbox_rows(n) + filter_rows() + undo_rows()
    header = ("what", "baseline", "with the wall", "ratio")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    print(
        "baseline: unsandboxed command / str.encode of the same text / an unconfined restore, in the same run"
    )
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))


if __name__ == "__main__":
    main()
