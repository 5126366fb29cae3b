"""What the model sees of a long tool output: its head and its tail, and a footer with the ref.

Errors come last in logs and test runs, so a view keeps the tail as well as the head, with
`[… N lines omitted …]` between them, and a footer naming the tool, the full size and how to
read the rest (`read_result` / `grep_result`). The store builds views of stored outputs from the
lines it reads around the cut; the loop uses `inline_view` when the store is down, so the model
still gets a bounded output (then without a ref: the middle is gone).

Pure functions: no I/O, no third-party imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_tui.base.units import grouped

CUT_MARK = " …[line cut]"
READ_LIMIT = 200
"""Lines the footer suggests reading at once."""


@dataclass(frozen=True)
class OutputTotals:
    """What the footer says about the whole output."""

    tool_name: str
    """Tool that produced it."""
    byte_size: int
    """Size of the whole output in bytes."""
    line_count: int
    """Lines in the whole output."""
    ref_id: str | None = None
    """Ref holding it whole; None when it could not be stored."""


def cut_line(line: str, max_line_length: int) -> tuple[str, bool]:
    """The line cut at `max_line_length` characters (with a mark), and whether it was cut."""
    if len(line) <= max_line_length:
        return line, False
    return line[:max_line_length] + CUT_MARK, True


def omitted_marker(count: int) -> str:
    return f"[… {grouped(count)} lines omitted …]"


def read_hint(ref_id: str, offset: int, limit: int = READ_LIMIT) -> str:
    return f'read_result(ref_id="{ref_id}", offset={offset}, limit={limit})'


def grep_hint(ref_id: str) -> str:
    return f'grep_result(ref_id="{ref_id}", pattern="…")'


def _cost(text: str) -> int:
    return len(text.encode("utf-8", "replace")) + 1


def fit_head_tail(
    head_candidates: Sequence[str],
    tail_candidates: Sequence[str],
    total_lines: int,
    size: int,
    max_line_length: int,
) -> tuple[list[str], list[str], int]:
    """Pick the head and tail lines (already cut) that fit in about `size` bytes.

    `head_candidates` are the output's first lines in order, `tail_candidates` its last lines in
    order. Half the budget goes to the head, the rest (plus what the head left) to the tail; each
    side keeps at least one line, and the tail never repeats a head line. Also returns how
    many of the kept lines were cut.
    """
    head: list[str] = []
    used = cut = 0
    for line in head_candidates:
        text, was_cut = cut_line(line, max_line_length)
        if head and used + _cost(text) > size // 2:
            break
        head.append(text)
        used += _cost(text)
        cut += was_cut
    tail: list[str] = []
    left = size - used
    first_tail_number = total_lines - len(tail_candidates) + 1
    for index in range(len(tail_candidates) - 1, -1, -1):
        if first_tail_number + index <= len(head):
            break
        text, was_cut = cut_line(tail_candidates[index], max_line_length)
        if tail and _cost(text) > left:
            break
        tail.append(text)
        left -= _cost(text)
        cut += was_cut
    tail.reverse()
    return head, tail, cut


def footer(
    totals: OutputTotals, head_count: int, tail_count: int, cut_count: int, max_line_length: int
) -> str:
    """The closing line: what the output is, what was left out, how to get it."""
    omitted = totals.line_count - head_count - tail_count
    parts = [f"{totals.tool_name} output: {totals.line_count} lines, {totals.byte_size} bytes"]
    if totals.ref_id is None:
        if omitted > 0:
            parts.append(
                f"lines {head_count + 1}-{totals.line_count - tail_count} were "
                "dropped and could not be stored (the result store is unavailable)"
            )
        if cut_count:
            parts.append(f"{cut_count} long lines cut at {max_line_length} characters")
        return "[" + "; ".join(parts) + "]"
    ref = totals.ref_id
    parts[0] += f", stored whole as ref {ref}"
    if omitted > 0:
        shown = f"lines 1-{head_count}" if head_count else "no head lines"
        if tail_count:
            shown += f" and {totals.line_count - tail_count + 1}-{totals.line_count}"
        parts.append(f"shown: {shown}")
    if cut_count:
        parts.append(f"{cut_count} long lines cut at {max_line_length} characters")
    more = read_hint(ref, head_count + 1 if omitted > 0 else 1)
    parts.append(f"read more: {more}; search: {grep_hint(ref)}")
    return "[" + "; ".join(parts) + "]"


def render_view(
    head_candidates: Sequence[str],
    tail_candidates: Sequence[str],
    totals: OutputTotals,
    size: int,
    max_line_length: int,
) -> str:
    """The view of an output over `size` bytes: head, omission marker, tail, footer."""
    head, tail, cut = fit_head_tail(
        head_candidates, tail_candidates, totals.line_count, size, max_line_length
    )
    omitted = totals.line_count - len(head) - len(tail)
    body = list(head)
    if omitted > 0:
        body.append(omitted_marker(omitted))
    body.extend(tail)
    body.append(footer(totals, len(head), len(tail), cut, max_line_length))
    return "\n".join(body)


def render_whole(lines: Sequence[str], totals: OutputTotals, max_line_length: int) -> str:
    """An output within the size limit: every line (cut if too long); a footer only if cut."""
    if not lines:
        return f"[{totals.tool_name}: no output]"
    shown = [cut_line(line, max_line_length) for line in lines]
    cut = sum(was_cut for _, was_cut in shown)
    body = [text for text, _ in shown]
    if cut:
        body.append(footer(totals, len(lines), 0, cut, max_line_length))
    return "\n".join(body)


def split_lines(text: str) -> list[str]:
    """Lines as the store counts them: a final newline does not start another line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _shown(text: str, start: int, stop: int, max_line_length: int) -> str:
    """Line `text[start:stop]` as a view holds it: one trailing CR dropped, and a line too long
    to show whole copied only as far as `cut_line` needs to cut it (a 5 MB line costs nothing)."""
    if stop - start > max_line_length + 1:
        return text[start : start + max_line_length + 1]
    line = text[start:stop]
    return line[:-1] if line.endswith("\r") else line


def _head(text: str, budget: int, max_line_length: int) -> list[str]:
    """The first lines, up to the first one that no longer fits in `budget` bytes of view."""
    out: list[str] = []
    used = pos = 0
    end = len(text)
    while pos < end and used <= budget:
        newline = text.find("\n", pos)
        stop = end if newline < 0 else newline
        out.append(_shown(text, pos, stop, max_line_length))
        used += _cost(cut_line(out[-1], max_line_length)[0])
        pos = stop + 1
    return out


def _tail(text: str, budget: int, max_line_length: int) -> list[str]:
    """The last lines, back to the first one that no longer fits in `budget` bytes of view."""
    out: list[str] = []
    used = 0
    stop = len(text) - 1 if text.endswith("\n") else len(text)
    while stop >= 0 and used <= budget:
        start = text.rfind("\n", 0, stop) + 1
        out.append(_shown(text, start, stop, max_line_length))
        used += _cost(cut_line(out[-1], max_line_length)[0])
        stop = start - 1
    out.reverse()
    return out


def count_lines(text: str) -> int:
    """Lines as the store counts them (`split_lines`), without splitting."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def inline_view(
    text: str,
    size: int,
    max_line_length: int,
    tool_name: str,
    ref_id: str | None = None,
    byte_size: int | None = None,
) -> str:
    """A view built from text in memory: the same view the store builds of the stored text, so
    the loop need not read a fresh output back (and the fallback when the store is down). Only
    the lines around the cut are looked at; `byte_size`, when the caller knows it, saves
    encoding the whole text again."""
    if byte_size is None:
        byte_size = len(text.encode("utf-8", "replace"))
    totals = OutputTotals(tool_name, byte_size, count_lines(text), ref_id)
    if totals.byte_size <= size:
        return render_whole(split_lines(text), totals, max_line_length)
    return render_view(
        _head(text, size // 2, max_line_length),
        _tail(text, size, max_line_length),
        totals,
        size,
        max_line_length,
    )


def kept_view(
    head: str,
    tail: str,
    whole: bool,
    totals: OutputTotals,
    size: int,
    max_line_length: int,
) -> str | None:
    """The view of a streamed output from what was kept of it while it streamed: its first
    bytes (`head`) and its last (`tail`), decoded; `whole` when they are all of it (then
    `head` is the whole text). None when a line the view needs runs past what was kept (a very
    long line): the caller reads the store instead. Otherwise the very view `inline_view`, and
    so the store, builds."""
    if whole:
        if totals.byte_size <= size:
            return render_whole(split_lines(head), totals, max_line_length)
        return render_view(
            _head(head, size // 2, max_line_length),
            _tail(head, size, max_line_length),
            totals,
            size,
            max_line_length,
        )
    if totals.byte_size <= size:
        return None
    first, last = _kept_head(head, size // 2, max_line_length), _kept_tail(tail, size, max_line_length)
    if first is None or last is None:
        return None
    return render_view(first, last, totals, size, max_line_length)


def _kept_head(text: str, budget: int, max_line_length: int) -> list[str] | None:
    """`_head` over the first part of a longer text; None when it needs more than that part."""
    out: list[str] = []
    used = pos = 0
    end = len(text)
    while used <= budget:
        if pos >= end:
            return None  # the next line starts past what was kept
        newline = text.find("\n", pos)
        if newline < 0:
            # The line runs on past what was kept. Its shown part is known when it is cut anyway
            # (a few characters spare: the kept bytes may end inside a character) — but not
            # where the next line starts.
            if end - pos <= max_line_length + 4:
                return None
            out.append(text[pos : pos + max_line_length + 1])
            used += _cost(cut_line(out[-1], max_line_length)[0])
            return out if used > budget else None
        out.append(_shown(text, pos, newline, max_line_length))
        used += _cost(cut_line(out[-1], max_line_length)[0])
        pos = newline + 1
    return out


def _kept_tail(text: str, budget: int, max_line_length: int) -> list[str] | None:
    """`_tail` over the last part of a longer text; None when it needs more than that part."""
    out: list[str] = []
    used = 0
    stop = len(text) - 1 if text.endswith("\n") else len(text)
    while used <= budget:
        newline = text.rfind("\n", 0, stop) if stop >= 0 else -1
        if newline < 0:
            return None  # the line starts before what was kept
        out.append(_shown(text, newline + 1, stop, max_line_length))
        used += _cost(cut_line(out[-1], max_line_length)[0])
        stop = newline
    out.reverse()
    return out
