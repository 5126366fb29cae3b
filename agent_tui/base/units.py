"""Human-readable figures, written once: the tool lines, the tools, the UI and the CLI tables
all show sizes and counts the same way."""

from __future__ import annotations


def grouped(n: int) -> str:
    """An exact count with its digits grouped by spaces: 1 204, 102 851."""
    return f"{n:,}".replace(",", " ")


def lines(n: int) -> str:
    """A line count that reads right at one: `1 line`, `1 204 lines`."""
    return f"{grouped(n)} line" + ("" if n == 1 else "s")


def short_tokens(n: int) -> str:
    """Token counts at a glance (the meter, compaction notices): 950, 8k, 9.4k, 117k, 1.2M."""
    if n < 1000:
        return str(n)
    if n < 10_000:
        return f"{n / 1000:.1f}".removesuffix(".0") + "k"
    if n < 1_000_000:
        return f"{round(n / 1000)}k"
    return f"{n / 1_000_000:.1f}".removesuffix(".0") + "M"


def human_size(n: int) -> str:
    """Bytes: 512 B, 9.4 KB, 48 KB, 3.1 MB, 120 MB, 1.2 GB — one decimal below 10 units."""
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KB", "MB", "GB"):
        value /= 1024
        if value < 1024 or unit == "GB":
            return f"{value:.1f} {unit}" if value < 10 else f"{round(value)} {unit}"
    raise AssertionError("unreachable: GB is the last unit")


def seconds(value: float) -> str:
    """`2.1 s`, and `under 0.1 s` where one decimal would say `0.0 s` (the call did take time)."""
    return "under 0.1 s" if value < 0.05 else f"{value:.1f} s"
