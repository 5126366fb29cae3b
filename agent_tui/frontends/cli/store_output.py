"""What `sessions` and `blobs` share: opening the store with one-line failures, and output.

Rich tables on a terminal; plain tab-separated lines (no header, raw numbers) when piped, so the
output feeds `cut`/`awk`. Every failure is one line on stderr. The store and rich are imported
inside the functions: `agent-tui --help` must stay fast.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from agent_tui.base.units import human_size
from agent_tui.base.visible_text import visible
from agent_tui.frontends.cli.common import fail, fail_startup, is_piped, load_or_fail
from agent_tui.runtime.paths import default_db_path

if TYPE_CHECKING:
    from agent_tui.store import Store

T = TypeVar("T")

DB_HELP = "SQLite database path (default: [store] db from the config, else the user data dir)."


def resolve_db(db: Path | None) -> Path:
    if db is not None:
        return db.expanduser()
    configured = load_or_fail().config.store.db
    if configured:
        return Path(configured).expanduser()

    return default_db_path()


def _session_lookups() -> frozenset[str]:
    # lazy: start-up — only an import or a migration indexes messages; a listing loads no tool
    from agent_tui.tools.registry import session_lookups

    return session_lookups()


def run_with_store(
    db: Path | None, work: Callable[[Store], Awaitable[T]], search_timeout: float | None = None
) -> T:
    """Open the store, run `work`, close it; any store failure becomes one line and exit 1.
    `search_timeout`: a grep's budget (default: the store's own)."""
    import sqlite3

    # lazy: start-up — the `sessions` and `blobs` commands' --help must not load the store
    from agent_tui.store import ConversationIndex, StoreError, StoreSettings, open_store

    path = resolve_db(db)
    index = ConversationIndex(_session_lookups)
    settings = StoreSettings(index=index) if search_timeout is None else StoreSettings(search_timeout, index)

    async def main() -> T:
        store = await open_store(path, settings)
        try:
            return await work(store)
        finally:
            await store.close()

    try:
        return asyncio.run(main())
    except StoreError as exc:
        fail_startup(str(exc))
    except sqlite3.Error as exc:
        fail_startup(f"database error in {path}: {exc}")
    except OSError as exc:
        fail_startup(f"{exc.filename or path}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        fail("interrupted", 130)


def fmt_time(stamp: float | None) -> str:
    if stamp is None:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def fmt_size(size: int) -> str:

    return str(size) if is_piped() else human_size(size)


def one_line(text: str | None, limit: int = 80) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def project_filter(project: Path | None, here: bool) -> str | None:
    """The project folder `--here` or `--project` names (None: every project)."""
    if here:
        return str(Path.cwd())
    return str(project.expanduser().absolute()) if project else None


def print_table(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    empty: str | None = None,
    fixed: Sequence[str] = (),
    cut_left: Sequence[str] = (),
) -> None:
    """A rich table on a terminal (or `empty` when there are no rows); tab-separated lines,
    no header, when piped. A cell may be a rich Text (styled on a terminal, plain when piped).

    `fixed` columns (ids, counts, times) are never cut or wrapped; the others share what is left
    of the terminal's width, one line each, cut with an ellipsis (`cut_left` ones keep their end:
    a path's last folder says more than its first)."""
    if fixed and not is_piped():
        _print_fitted(title, columns, rows, empty, set(fixed), set(cut_left))
        return
    if not rows and empty is not None and not is_piped():
        typer.echo(empty)
        return

    if is_piped():
        for row in rows:
            typer.echo(visible("\t".join(str(v).replace("\t", " ").replace("\n", " ") for v in row)))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left", header_style="bold")
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        # Text, not str: a message's `[a.txt]` or a ref's `[r_7f3a]` is not Rich markup.
        # Cells are stored text (a message, a command): their control characters are shown.
        table.add_row(*(_visible_cell(v) for v in row))
    Console().print(table)


def _visible_cell(value: Any) -> Any:
    from rich.text import Text

    if isinstance(value, Text):
        plain = value.plain
        shown = visible(plain)
        return value if shown is plain else Text(shown, style=value.style)
    return Text(visible(str(value)))


async def find_session(store: Store, session_id: str) -> Any:
    return await store.sessions.find(session_id)


def _print_fitted(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    empty: str | None,
    fixed: set[str],
    cut_left: set[str],
) -> None:
    from rich import box
    from rich.cells import cell_len
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    if not rows and empty is not None:
        typer.echo(empty)
        return
    console = Console()
    cells = [[v if isinstance(v, Text) else Text(" ".join(str(v).split())) for v in row] for row in rows]
    natural = [max([cell_len(c), *(row[i].cell_len for row in cells)]) for i, c in enumerate(columns)]
    widths = list(natural)
    flexible = [i for i, c in enumerate(columns) if c not in fixed]
    # One space between columns (the box draws it), none at the edges.
    room = (
        console.width
        - (len(columns) - 1)
        - sum(n for c, n in zip(columns, natural, strict=True) if c in fixed)
    )
    wanted = sum(natural[i] for i in flexible)
    if wanted > room:
        # Each keeps its header whole; what is left over goes by how much more each would show.
        mins = {i: cell_len(columns[i]) for i in flexible}
        spare = max(0, room - sum(mins.values()))
        extra = sum(natural[i] - mins[i] for i in flexible)
        for i in flexible:
            widths[i] = mins[i] + spare * (natural[i] - mins[i]) // max(extra, 1)
    table = Table(
        title=title,
        title_justify="left",
        header_style="bold",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        padding=0,
    )
    for column, width in zip(columns, widths, strict=True):
        table.add_column(column, no_wrap=True, overflow="ellipsis", width=width)
    for row in cells:
        for i, column in enumerate(columns):
            text = row[i]
            if column in cut_left and text.cell_len > widths[i] > 1:
                row[i] = Text("…" + text.plain[len(text.plain) - widths[i] + 1 :])
        table.add_row(*row)
    console.print(table)
