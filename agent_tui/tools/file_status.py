"""write_file's and edit_file's one-line report and read_file's page footer, written and read
back in one place.

The model reads `Edited cart.py: replaced 1 occurrence (+1 -1 lines).`; the live tool line says
`edited · +1 -1`. A resumed chat has only the stored report, so it reads the status back from it
(as bash_status.py does for commands) instead of showing the report's own size and line count.
"""

from __future__ import annotations

import re

_EDITED = re.compile(r"^Edited .+: replaced \d+ occurrences? \((?P<stat>\+\d+ -\d+) lines\)\.$")
_PAGE_END = re.compile(r"\[lines (\d+)-(\d+) of (\d+); call read_file with offset=\d+ to continue\]$")
_NUMBERED = re.compile(r"^ *(\d+)\t", re.M)
_WRITTEN = re.compile(r"^(?P<verb>Created|Overwrote) .+ \((?P<size>\d+) bytes, (?P<count>\d+ lines?)\)\.$")


def edit_report(rel: str, replacements: int, stat: str) -> str:
    plural = "occurrence" if replacements == 1 else "occurrences"
    return f"Edited {rel}: replaced {replacements} {plural} ({stat} lines)."


def write_report(verb: str, rel: str, size: int, count: str) -> str:
    return f"{verb} {rel} ({size} bytes, {count})."


def page_footer(offset: int, last: int, total: int) -> str:
    """What ends a read_file page that is not the whole file."""
    return f"[lines {offset}-{last} of {total}; call read_file with offset={last + 1} to continue]"


def summary_from_page(content: str) -> str | None:
    """read_file's `lines 1-69 of 1931` from a stored page (a page without a footer is the whole
    file); None for anything else."""
    text = content.rstrip()
    if found := _PAGE_END.search(text):
        return f"lines {found[1]}-{found[2]} of {found[3]}"
    numbers = _NUMBERED.findall(text)
    if numbers and text.lstrip().startswith(numbers[0]):
        return f"lines {numbers[0]}-{numbers[-1]} of {numbers[-1]}"
    return None


def summary_from_report(content: str) -> str | None:
    """The live line's status (`edited · +1 -1`, `created · 4 lines · 19 B`) from a stored
    report; None when the content is something else."""
    text = content.strip()
    if found := _EDITED.match(text):
        return f"edited · {found['stat']}"
    if found := _WRITTEN.match(text):
        return f"{found['verb'].lower()} · {found['count']} · {found['size']} B"
    return None
