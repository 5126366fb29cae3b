"""Human-readable sizes, shared by the tool lines, the tools and the CLI tables."""

from __future__ import annotations


def human_size(n: int) -> str:
    """512 B, 47.9 KB, 3.1 MB."""
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"
