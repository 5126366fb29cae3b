"""Reading an iteration's output: progress markers, the completion promise, errors, the score.

The score answers "did this iteration move the work forward?" from evidence the loop can check:
new progress markers the model reported and files that actually changed count for it; failures
already seen in an earlier iteration count against it (the loop is going round in circles).

    score = clamp(0.6 · min(new_markers, 2) / 2  +  0.4 · min(files_changed, 3) / 3
                  − 0.25 · min(repeated_errors, 2),  0, 1)
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MARKER_WEIGHT = 0.6
"""Share of the score from new progress markers (full at MARKER_CAP markers)."""
MARKER_CAP = 2
FILES_WEIGHT = 0.4
"""Share of the score from changed files (full at FILES_CAP files)."""
FILES_CAP = 3
REPEAT_PENALTY = 0.25
"""Taken off per failure an earlier iteration already hit (at most REPEAT_CAP of them)."""
REPEAT_CAP = 2

_PROGRESS = re.compile(r"<progress>(.*?)</progress>", re.S | re.I)
_PROMISE = re.compile(r"<promise>\s*COMPLETE\s*</promise>", re.I)
_REF = re.compile(r"\br_[0-9a-f]{6,}\b")
_NUMBER = re.compile(r"\d+")
_STATUS = re.compile(r"^\[(exit code|timed out)")


def parse_markers(text: str) -> tuple[str, ...]:
    """Every <progress>…</progress>, whitespace collapsed, empty ones dropped."""
    found = (" ".join(m.split()) for m in _PROGRESS.findall(text or ""))
    return tuple(m for m in found if m)


def says_complete(text: str) -> bool:
    return bool(_PROMISE.search(text or ""))


def marker_key(marker: str) -> str:
    """Markers compare case-insensitively, ignoring punctuation at the ends."""
    return marker.lower().strip(" .!;:")


def new_markers(markers: Iterable[str], seen: set[str]) -> tuple[str, ...]:
    """The markers whose key is not in `seen` (nor repeated earlier in `markers`)."""
    out: list[str] = []
    local = set(seen)
    for marker in markers:
        key = marker_key(marker)
        if key not in local:
            local.add(key)
            out.append(marker)
    return tuple(out)


def error_signature(tool: str, view: str, detail: str = "") -> str:
    """A failure's identity across iterations: the tool, what it ran, and its last error line,
    with numbers and refs blurred so the same failure on another line or run still matches."""
    lines = [ln.strip() for ln in (view or "").splitlines() if ln.strip()]
    lines = [ln for ln in lines if not _STATUS.match(ln) and not ln.startswith("[… ")]
    last = lines[-1] if lines else ""
    text = f"{tool}:{detail[:80]}:{last[:160]}".lower()
    text = _REF.sub("r_?", text)
    return " ".join(_NUMBER.sub("#", text).split())


def score(new_marker_count: int, files_changed: int, repeated_errors: int) -> float:
    """The progress score of one iteration, 0–1 (formula in the module docstring)."""
    value = (
        MARKER_WEIGHT * min(new_marker_count, MARKER_CAP) / MARKER_CAP
        + FILES_WEIGHT * min(files_changed, FILES_CAP) / FILES_CAP
        - REPEAT_PENALTY * min(repeated_errors, REPEAT_CAP)
    )
    return round(min(1.0, max(0.0, value)), 2)
