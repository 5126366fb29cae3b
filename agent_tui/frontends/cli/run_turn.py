"""The work of `agent-tui run`: build the services, drive one session's operations, print.

Kept apart from `run_cmd.py` (the command's options and checks) because the typer application
imports every command's declaration to build itself: what a turn needs (the composition root,
the driver, the store) loads only when `run` runs, not for the TUI, `--help` or `sessions list`.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.agent import events as ev
from agent_tui.agent.user_command import user_command
from agent_tui.base.utf8 import clean_text, clean_value
from agent_tui.base.visible_text import json_visible, visible
from agent_tui.compose.factory import build_services
from agent_tui.config import ConfigError
from agent_tui.core import ops
from agent_tui.core.driver import SessionDriver
from agent_tui.core.protocol_events import WorkFinished
from agent_tui.frontends.cli.claude_format import ClaudeStream
from agent_tui.frontends.cli.common import fail, fail_startup, sandbox_notice
from agent_tui.frontends.cli.run_slash import CommandFailed, command_reply
from agent_tui.hooks.ran_line import describe
from agent_tui.llm.cost import why_unknown
from agent_tui.runtime.logs import current_log
from agent_tui.store import StoreError

if TYPE_CHECKING:
    from agent_tui.base.messages import ResultRef
    from agent_tui.policy.permission_modes import PermissionMode


def _emit(data: dict[str, Any]) -> None:

    # Valid UTF-8 JSON lines whatever the text held (a file name with an undecodable byte), no
    # control character raw (JSON escapes C0; json_visible the rest).
    sys.stdout.write(json_visible(json.dumps(clean_value(data), ensure_ascii=False, default=str)) + "\n")
    sys.stdout.flush()


def _stderr(line: str) -> None:

    sys.stderr.write(visible(clean_text(line)) + "\n")
    sys.stderr.flush()


async def run_turn(
    config: Any,
    prompt: str,
    *,
    session_id: str | None,
    continue_: bool,
    yes: bool,
    as_json: bool,
    compact_first: bool,
    db: Path | None,
    instructions: str | None = None,
    output_format: str = "text",
    mode: PermissionMode = "default",
    handoff: bool = False,
    max_turns: int | None = None,
    max_budget: float | None = None,
) -> int:
    import asyncio

    # No one is there to give direction after a denial: as in Claude Code, the model is told
    # and answers anyway, and the result lists the denials ([tools] deny_ends_turn is the TUI's).
    config = dataclasses.replace(config, tools=dataclasses.replace(config.tools, deny_ends_turn=False))
    try:
        services = await build_services(config, db_path=db)
    except StoreError as exc:
        fail_startup(str(exc), 1)
    sandbox_notice(services)
    session = None
    try:
        await services.mcp_ready()  # headless: the first request must already offer MCP tools
        try:
            if continue_ and not session_id:
                session_id = await services.newest_session_id()
                if session_id is None:  # stderr: --json's stdout stays JSON lines
                    _stderr("agent-tui: no earlier session in this directory; starting a new one")
            first = None if handoff else mode  # --handoff: the mode is the new session's
            if session_id:
                session = await services.resume_session(session_id, yes=yes, mode=first)
            else:
                session = await services.new_session(yes=yes, mode=first)
        except ConfigError as exc:
            fail(str(exc), 2)
        except StoreError as exc:  # another live process has the session open
            fail(str(exc), 1)
        if handoff:  # --handoff: the prompt runs in a new session seeded from this one
            from agent_tui.agent.handoff import hand_off  # lazy: start-up

            handed = await hand_off(services.store, session, prompt)
            session = await services.resume_session(handed, yes=yes, mode=mode)
            _stderr(f"agent-tui: handed off to session {session.session_id}")

        driver = SessionDriver(services, session)  # `run` maps its arguments to operations
        try:
            reply = await command_reply(driver, prompt)  # `run "/cost"`: no model call
        except CommandFailed as exc:
            fail(f"{exc} (details in {current_log()})", 1)
        if reply is not None:
            if as_json:
                _emit({"type": "command", "title": reply.title, "text": reply.plain(), "level": reply.level})
            else:
                sys.stdout.write(reply.plain().rstrip() + "\n")
            return 0 if reply.level == "info" else 1
        final_text, failed, stop_reason = "", False, "done"
        refs: list[ResultRef] = []
        claude = None  # --output-format json|stream-json: Claude Code's shapes (claude_format.py)
        if output_format != "text":
            claude = ClaudeStream(_emit, streaming=output_format == "stream-json")
            claude.init(
                session_id=session.session_id,
                model=session.model,
                cwd=str(session.workspace),
                tools=[row.name for row in session.prompts.tool_table()],
                yes=yes,
            )

        work: list[ops.Op] = [ops.Compact(instructions)] if compact_first else []
        command = user_command(prompt.strip())  # `run "!ls"`: the user's own command, no model call
        if command is not None:
            work.append(ops.Shell(command))
        elif prompt.strip():
            work.append(ops.Send(prompt))  # a custom /command expands first
        limit: str | None = None  # what stopped the run early: max_turns, max_budget, budget_unknown
        try:
            for op in work:
                async for event in driver.drive(op):
                    if isinstance(event, WorkFinished):
                        if event.state == "failed":
                            _stderr(f"agent-tui: {event.message}")
                            failed = True
                        continue
                    if max_budget is not None and isinstance(event, ev.UsageReported) and limit is None:
                        limit = _over_budget(event.session_cost, max_budget)
                        if limit is not None:  # interrupted like Ctrl-C: the turn is saved, then we stop
                            await driver.submit(ops.Interrupt())
                    if as_json:
                        _emit(event.to_json())
                    if claude is not None:
                        claude.feed(event)
                    _report(event, as_json)
                    if isinstance(event, ev.ErrorEvent):
                        failed = True
                    if isinstance(event, ev.TurnFinished):
                        final_text, stop_reason = event.text, event.stop_reason
                        refs.extend(event.refs)
                    elif command is not None and isinstance(event, ev.ToolCallFinished):
                        final_text = event.view
                        refs.extend([event.ref] if event.ref else [])
        except asyncio.CancelledError:
            await driver.submit(ops.Interrupt())  # the turn's task ends with its commands
            _stderr(
                f"agent-tui: interrupted; the session is saved (resume with --session {session.session_id})"
            )
            raise
        if limit is None and max_turns is not None and stop_reason == "max_steps":
            limit = "max_turns"
        if limit is not None:
            stop_reason = limit

            why = why_unknown(session.model, session.usage_total.web_searches)
            _stderr(f"agent-tui: {_limit_text(limit, max_turns, max_budget, session.cost_total, why)}")
            _stderr(f"agent-tui: the session is saved (resume with --session {session.session_id})")
        for event in await session.end_hooks():  # SessionEnd, reported like the turn's hooks
            if as_json:
                _emit(event.to_json())
            _report(event, as_json)
        from agent_tui.frontends.cli.background_report import end_background  # lazy: start-up

        background = await end_background(session, _emit if as_json else None, _stderr)
        budget = session.measure()
        if claude is not None:
            claude.result(
                text=final_text,
                failed=failed,
                stop_reason=stop_reason,
                usage=session.usage_total,
                cost=session.cost_total,
            )
        elif as_json:
            _emit(
                {
                    "type": "result",
                    "session_id": session.session_id,
                    "text": final_text,
                    "budget": budget.to_json(),
                    "usage": session.usage_total.to_json(),
                    "cost": session.cost_total,
                    "children": _children(session),
                    "refs": [r.to_json() for r in refs],
                    "background": background,
                    "ok": not failed and limit is None,
                    "stop_reason": stop_reason,
                }
            )
        elif final_text:
            sys.stdout.write(visible(clean_text(final_text)).rstrip() + "\n")
        return 1 if failed else (3 if limit is not None else 0)
    finally:
        if session is not None and session.background is not None:
            await session.background.end_all()  # cancelled or failed: none may outlive the run
        await services.close()


def _over_budget(session_cost: float | None, max_budget: float) -> str | None:
    """Whether the run must stop for `--max-budget-usd`: spent it, or cannot tell (no prices)."""
    if session_cost is None:
        return "budget_unknown"
    return "max_budget" if session_cost >= max_budget else None


def _limit_text(
    limit: str, max_turns: int | None, max_budget: float | None, cost: float | None, why: str
) -> str:
    """The one line that says which limit stopped the run."""
    if limit == "max_turns":
        return f"stopped: --max-turns {max_turns} reached ({max_turns} model calls in the turn)"
    if limit == "budget_unknown":
        return (
            f"stopped: --max-budget-usd {max_budget:g} cannot be kept: {why}, "
            "so its cost is unknown (not 0); stopped after the first model call"
        )
    return f"stopped: --max-budget-usd {max_budget:g} reached (spent ${cost or 0:.4f})"


def _children(session: Any) -> dict[str, Any]:
    """What the session's sub-agents used: already inside `usage` and `cost`, shown apart."""
    agents = session.runner.services.agents
    if agents is None:
        return {"sessions": [], "usage": None, "cost": 0.0}
    return {"sessions": list(agents.children), "usage": agents.usage.to_json(), "cost": agents.cost}


def _report(event: Any, as_json: bool) -> None:
    """Plain mode: compactions, notices and errors as one line each on stderr."""

    if as_json:
        return
    if isinstance(event, ev.Blocked):
        _stderr(f"agent-tui: context {event.budget.used_fraction:.0%} full: blocked, compacting")
    elif isinstance(event, ev.CompactionFinished):
        _stderr(f"agent-tui: {event.result.describe()}")
    elif isinstance(event, ev.Notice):
        _stderr(f"agent-tui: {event.message}")
    elif isinstance(event, ev.ErrorEvent):
        _stderr(f"agent-tui: error: {event.message}")
    elif isinstance(event, ev.Retrying):
        _stderr(f"agent-tui: {event.describe()}")
    elif isinstance(event, ev.HookRan):
        _stderr(f"agent-tui: {describe(event)}")
