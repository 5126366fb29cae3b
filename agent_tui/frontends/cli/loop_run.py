"""The work of `agent-tui loop`: build the services, run the iterations, report them.

Apart from `loop_cmd.py` (the command's options and checks) so that building the typer
application, which imports every command's declaration, loads no agent machinery: what the loop
needs loads when `loop` runs.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from agent_tui.agent import events as ev
from agent_tui.autoloop import LoopRunner
from agent_tui.autoloop import events as lev
from agent_tui.base.visible_text import json_visible, visible
from agent_tui.compose.factory import build_services
from agent_tui.config import ConfigError
from agent_tui.frontends.cli.common import fail, sandbox_notice
from agent_tui.store import StoreError

EXIT_CODES = {"complete": 0, "error": 1, "max_iterations": 3, "stalled": 3}
JSON_AGENT_EVENTS = ("error", "warning")


def _emit(data: dict[str, Any]) -> None:

    sys.stdout.write(json_visible(json.dumps(data, ensure_ascii=False, default=str)) + "\n")
    sys.stdout.flush()


class PlainReport:
    """Progress on stderr with Rich: a line per iteration, a spinner while one runs."""

    def __init__(self) -> None:
        from rich.console import Console

        self.console = Console(stderr=True, highlight=False, soft_wrap=True)
        self.status: Any = None
        self.max_iterations = 0
        self.current = 0

    def _spin(self, text: str) -> None:
        if not self.console.is_terminal:
            return
        if self.status is None:
            self.status = self.console.status(text)
            self.status.start()
        else:
            self.status.update(text)

    def _stop_spin(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None

    def line(self, text: str) -> None:

        self._stop_spin()
        self.console.print(visible(text))

    def event(self, event: Any) -> None:
        from rich.markup import escape

        if isinstance(event, lev.LoopStarted):
            self.max_iterations = event.settings["max_iterations"]
            self.line(
                f"[bold]loop[/] session {event.session_id} · {escape(event.model)} · "
                f"up to {self.max_iterations} iterations"
            )
        elif isinstance(event, lev.IterationStarted):
            if event.number == 1:
                a = event.allocation
                scaled = "" if a["scale"] >= 1 else f" (scaled ×{a['scale']:.2f} to the window)"
                self.line(
                    f"[dim]prompt allocation: goal {a['goal']:,} · summary "
                    f"{a['summary']:,} · raw {a['raw']:,} · instructions "
                    f"{a['instructions']:,} tokens{scaled}[/]"
                )
            self.current = event.number
            self._spin(
                f"iteration {event.number}/{self.max_iterations} · prompt {event.prompt_tokens:,} tokens"
            )
        elif isinstance(event, ev.ToolCallStarted):
            self._spin(f"iteration {self.current}/{self.max_iterations} · {event.call.name}")
        elif isinstance(event, lev.IterationFinished):
            self.line(self._iteration_line(event))
        elif isinstance(event, lev.SummaryUpdated):
            self.line(
                f"[dim]summary of iterations {event.covers[0]}–{event.covers[1]} "
                f"({event.mode}, {event.tokens:,} tokens)[/]"
            )
        elif isinstance(event, lev.SummaryFailed):
            self.line(
                f"[yellow]summary of iterations {event.wanted[0]}–{event.wanted[1]} "
                f"failed ({escape(event.error)}); they stay raw, next try after "
                f"iteration {event.retry_at}[/]"
            )
        elif isinstance(event, ev.Notice):
            self.line(f"[yellow]{escape(event.message)}[/]")
        elif isinstance(event, ev.ErrorEvent):
            self.line(f"[red]error: {escape(event.message)}[/]")
        elif isinstance(event, lev.LoopFinished):
            words = {
                "complete": "[green]goal complete[/]",
                "max_iterations": "[yellow]stopped at --max-iterations[/]",
                "stalled": "[yellow]stopped: no new progress[/]",
                "error": "[red]stopped by an error[/]",
            }
            self.line(
                f"{words.get(event.reason, event.reason)} after {event.iterations} "
                f"iteration(s); open it with `agent-tui --session {event.session_id}`"
            )

    def _iteration_line(self, e: Any) -> str:
        filled = round(e.score * 10)
        bar = "█" * filled + "░" * (10 - filled)
        colour = "green" if e.score >= 0.5 else "yellow" if e.score > 0 else "red"
        parts = [
            f"iter {e.number:>3}/{self.max_iterations}",
            f"[{colour}]{bar} {e.score:.2f}[/]",
            f"+{len(e.new_markers)} marker(s)",
            f"{len(e.files_changed)} file(s)",
            f"{e.tool_calls} tool call(s)",
            f"{e.duration:.1f} s",
            f"prompt {e.prompt_tokens:,} tok",
        ]
        if e.ref:
            parts.append(f"ref {e.ref}")
        if e.complete:
            parts.append("[green]COMPLETE[/]")
        return " · ".join(parts)

    def close(self) -> None:
        self._stop_spin()


async def run_loop(config: Any, goal: str, *, yes: bool, as_json: bool, db: Path | None) -> int:

    try:
        services = await build_services(config, db_path=db)
    except StoreError as exc:
        fail(str(exc), 1)
    sandbox_notice(services)
    report = None if as_json else PlainReport()
    try:
        try:
            title = "loop: " + " ".join(goal.split())[:54]
            session = await services.new_session(yes=yes, title=title)
        except ConfigError as exc:
            fail(str(exc), 2)
        runner = LoopRunner(session, goal, config.loop)
        finished: lev.LoopFinished | None = None
        try:
            async for event in runner.run():
                if as_json:
                    if type(event).__module__ == lev.__name__ or event.type in JSON_AGENT_EVENTS:
                        _emit(event.to_json())
                elif report is not None:
                    report.event(event)
                if isinstance(event, lev.LoopFinished):
                    finished = event
        except asyncio.CancelledError:
            if report:
                report.close()
            sys.stderr.write(f"agent-tui: interrupted; the loop's session is saved ({session.session_id})\n")
            raise
        assert finished is not None
        if not as_json and finished.text:
            sys.stdout.write(visible(finished.text).rstrip() + "\n")
        return EXIT_CODES.get(finished.reason, 1)
    finally:
        if report:
            report.close()
        await services.close()
