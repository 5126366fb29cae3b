"""What each slash command does to the session, once for every front end (core/commands.py
registers them): an effect reads or changes the session and the core's files and returns a
`Reply`; the TUI, an editor and `run` each print that reply their way.

A command the front end cannot do right now raises `Unavailable` with one line saying why.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from agent_tui.agent import events as ev
from agent_tui.agent.undo import undo as undo_turns
from agent_tui.agent.web_search import why_not
from agent_tui.base.reasoning import EFFORTS, ReasoningSettings
from agent_tui.base.units import grouped, human_size
from agent_tui.config import config_files
from agent_tui.context.memory import memories_file, skills_dir
from agent_tui.context.memory import remember as save
from agent_tui.context.prompt import find_rules_file
from agent_tui.core.replies import Reply, Unavailable
from agent_tui.extensions.skill_resume import load_by_hand
from agent_tui.llm.cost import declared_prices, format_cost, prices_for, search_price
from agent_tui.policy.claude_rules import rule_syntax
from agent_tui.runtime import paths

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession
    from agent_tui.compose.factory import AppServices
    from agent_tui.core.command_host import CommandHost
    from agent_tui.extensions.commands import CustomCommand

DIFF_LINES = 400
"""Lines of `/diff` shown; the rest is counted (the files are on disk)."""

NO_SESSION = "No session here (no model configured)."


def require(host: CommandHost) -> AgentSession:
    session = host.session
    if session is None:
        raise Unavailable(NO_SESSION)
    return session


def _stored(host: CommandHost) -> AgentSession:
    session = require(host)
    if session.store is None:
        raise Unavailable("This command needs the session store, which is not open.")
    return session


async def context(host: CommandHost, argument: str) -> Reply:
    """The /context screen's header, usage line, components and cost, as text."""
    from agent_tui.core.context_report import build_report  # lazy: start-up

    session = require(host)
    report = build_report(session, session.measure())
    b = report.budget
    head = (
        f"{report.model} · window {grouped(b.total)} · reserved output {grouped(b.max_output_tokens)} · "
        f"effective {grouped(b.effective_window)}\n"
        f"Used {grouped(b.used)} of {grouped(b.effective_window)} tokens ({b.used_fraction:.0%})"
    )
    rows = tuple((name.replace("_", " "), grouped(tokens)) for name, tokens in b.components().items())
    lines = [report.calibration.describe()]
    if report.largest:
        lines += ["Largest items:"]
        lines += [
            f"  {item.role} {item.label}: {grouped(item.tokens)}" + (f" (ref {item.ref})" if item.ref else "")
            for item in report.largest
        ]
    lines += [*report.side, *report.compactions]
    lines += [
        f"Session cost: {format_cost(report.cost)} · {grouped(report.prompt_tokens)} prompt + "
        f"{grouped(report.output_tokens)} output tokens reported in this run"
    ]
    return Reply("Context", text=head, rows=rows, tail="\n".join(lines))


async def cost(host: CommandHost, argument: str) -> Reply:
    """The session's cost as stored (every run of it, also before a resume) and this run's tokens.
    A model without prices says `unknown`, never `$0.0000`; no call yet says so, not `0 tokens`."""

    session = require(host)
    usage = session.usage_total
    info = await session.store.sessions.get(session.session_id) if session.store is not None else None
    stored = info.cost if info is not None else session.cost_total
    model = session.config.model
    priced = declared_prices(model.input_price_per_mtok, model.output_price_per_mtok) or prices_for(
        session.model, model.api_base
    )
    if priced is None and not stored:  # nothing priced yet is not "$0": no price is known at all
        stored = None
    per_search = search_price(session.model)
    if stored is None and usage.web_searches and per_search is None:
        spent = f"unknown (no price for {session.model}'s web searches)"
    elif stored is None:
        spent = f"unknown (no prices for {session.model})"
    else:
        spent = format_cost(stored) + " for the whole session"
    rows = [
        ("Cost", spent),
        ("Input", f"{grouped(usage.input)} tokens since it was opened here"),
        ("Cached", f"{grouped(usage.cache_read)} read · {grouped(usage.cache_creation)} written"),
        ("Output", f"{grouped(usage.output)} tokens"),
    ]
    if usage.web_searches:  # billed per search, on top of the tokens
        each = "price unknown" if per_search is None else f"{format_cost(per_search * usage.web_searches)}"
        rows.append(("Searches", f"{usage.web_searches} web searches by the provider · {each}"))
    if not usage.total:
        rows.append(("Calls", "none since it was opened here (the tokens count from then)"))
    return Reply("/cost", rows=tuple(rows))


def _trust_line(host: CommandHost) -> str:
    from agent_tui.core.welcome import trust_line  # lazy: start-up

    services = host.services
    return trust_line(host.workspace, bool(services and services.config.provenance.folder_trusted))


async def status(host: CommandHost, argument: str) -> Reply:
    services = host.services
    sandbox = services.sandbox.describe().splitlines()[0] if services and services.sandbox else "not set up"
    rows = [
        ("Folder", paths.shown(host.workspace)),
        ("Trust", _trust_line(host)),
        ("Sandbox", sandbox.removeprefix("Sandbox ")),  # the row is already named Sandbox
    ]
    session = host.session
    if session is None:
        rows.insert(0, ("Model", "none configured (/model NAME)"))
    else:
        budget = session.measure()
        window = (
            f"{budget.used_fraction:.0%} {grouped(budget.used)}/{grouped(budget.effective_window)}"
            f" (window {grouped(budget.total)}, reply reserve {grouped(budget.max_output_tokens)})"
        )
        from agent_tui.core.welcome import loaded_files  # lazy: start-up

        rows[:0] = [
            ("Model", session.model),
            ("Session", f"{session.session_id} · {session.shown_title or 'untitled'}"),
        ]
        rows.append(("Loaded", " · ".join(loaded_files(session)) or "no CLAUDE.md or AGENTS.md, no memories"))
        rows.append(("Context", window))
    return Reply("/status", rows=tuple(rows))


async def tools(host: CommandHost, argument: str) -> Reply:

    session = require(host)
    rows = session.prompts.tool_table()
    lines = [
        f"{r.name:<28} {r.source:<8} {grouped(r.tokens):>6} tok  {r.state}" + (f" ({r.why})" if r.why else "")
        for r in rows
    ]
    rules = [rule_syntax(r.name, session.runner.policy.words) for r in rows]
    lines.append("permission rules (ours · Claude Code's; other tools: the name):")
    lines += [f"  {rule}" for rule, r in zip(rules, rows, strict=True) if rule != r.name]
    servers = session.runner.services.diagnostics
    found = servers.available() if servers is not None else []
    lines.append(
        "diagnostics after edits: "
        + ("; ".join(found) if found else "off" if servers is None else "no language server on PATH")
    )

    lines.append(why_not(session.config, session.provider))
    total = sum(r.tokens for r in rows if r.state != "deferred")
    share = session.prompts.tool_share_line()  # what a small window shortened or deferred, and why
    head = f"{len(rows)} tools, {grouped(total)} tokens offered:" + (f"\n{share}" if share else "")
    return Reply("/tools", text=head, block="\n".join(lines))


async def undo(host: CommandHost, argument: str) -> Reply:

    session = _stored(host)
    assert session.store is not None
    words = argument.split()
    turns = next((int(w) for w in words if w.isdigit()), 1)
    report = await undo_turns(session.store, session.session_id, turns, force="--force" in words)
    if report.restored:
        await session.add_note(
            f"[The user undid file changes of the last {report.turns} turn(s): "
            + report.describe(session.workspace)
            + " Re-read these files before relying on earlier views.]"
        )
    return Reply(
        "/undo", text=report.describe(session.workspace), level="warning" if report.refused else "info"
    )


async def diff(host: CommandHost, argument: str) -> Reply:
    from agent_tui.agent.session_diff import session_diff  # lazy: start-up

    session = _stored(host)
    assert session.store is not None
    diffs = [d for d in await session_diff(session.store, session.session_id, session.workspace) if d.diff]
    if not diffs:
        return Reply("/diff", text="This session has changed no files (or /undo put them back).")
    head = ", ".join(f"{d.path} (+{d.added} −{d.removed})" for d in diffs)
    lines = "".join(d.diff for d in diffs).splitlines()
    more = f"… {grouped(len(lines) - DIFF_LINES)} more lines" if len(lines) > DIFF_LINES else ""
    files = "1 file" if len(diffs) == 1 else f"{len(diffs)} files"
    return Reply(
        "/diff",
        text=f"{files} changed: {head}",
        block="\n".join(lines[:DIFF_LINES]),
        block_lang="diff",
        tail=more,
    )


def extensions_text(services: AppServices, custom: list[CustomCommand]) -> str:
    """The /hooks block (and the TUI's /help section): hooks, custom commands, skills, with files."""
    from agent_tui.extensions.report import hook_lines, skill_lines  # lazy: start-up

    parts = ["Hooks:", *(f"  {line}" for line in hook_lines(services.hooks))]
    if custom:
        parts += [
            "Custom commands:",
            *(f"  /{c.name}: {c.description or 'custom command'} ({c.source})" for c in custom),
        ]
    skills = skill_lines(services.skills) if services.skills is not None else []
    if skills:
        parts += ["Skills (the model loads them with the skill tool; /skill NAME by hand):"]
        parts += [f"  {line}" for line in skills]
    return "\n".join(parts)


async def hooks(host: CommandHost, argument: str) -> Reply:
    services = host.services
    if services is None:
        raise Unavailable("Still opening: try /hooks again in a moment.")
    return Reply("/hooks", block=extensions_text(services, host.custom_commands()))


async def config(host: CommandHost, argument: str) -> Reply:
    from agent_tui.core.config_text import config_lines  # lazy: start-up

    services = host.services
    if services is None:
        raise Unavailable("The configuration is still loading.")
    files = [f"{paths.shown(f)}{'' if f.is_file() else ' (absent)'}" for f in config_files(host.workspace)]
    word = argument.strip()
    lines = config_lines(services.config, host.workspace, word)
    return Reply(
        "/config" + (f" {word}" if word else ""),
        text="Files, later wins: " + ", ".join(files),
        block="\n".join(lines) or f"no key matches {word!r}",
        block_lang="toml",
        tail="`agent-tui config show` also says where each came from.",
    )


MEMORY_SHOWN = 4000
"""Characters of the memories or rules file `/memory` shows where no $EDITOR can be handed the
terminal (an editor's chat, `run`); the rest is named, the file holds it."""


async def memory(host: CommandHost, argument: str) -> Reply:
    """Where the memories, rules and skills files are, with the memories' text (`rules`: the
    rules file's). The TUI opens the file in $EDITOR instead; an editor or `run` shows it."""

    word = argument.strip().lower()
    if word not in ("", "memories", "rules"):
        raise Unavailable(f"Usage: /memory [memories|rules], not {word!r}")
    mem = memories_file()
    rules = find_rules_file(host.workspace)
    shown = rules if word == "rules" else mem
    text = (
        shown.read_text(encoding="utf-8", errors="replace") if shown is not None and shown.is_file() else ""
    )
    if len(text) > MEMORY_SHOWN:
        text = text[:MEMORY_SHOWN] + f"\n[… {len(text) - MEMORY_SHOWN} more characters in the file]"
    return Reply(
        "/memory" + (f" {word}" if word else ""),
        rows=(
            ("Memories", f"{paths.shown(mem)} · {_size(mem)} (/remember TEXT adds one)"),
            ("Rules", f"{paths.shown(rules)} · {_size(rules)}" if rules else "none (/init writes AGENTS.md)"),
            ("Skills", f"{paths.shown(skills_dir())} (/skill lists them)"),
        ),
        block=text,
        tail="Edit them in any editor; they are read again on the next turn.",
    )


async def remember(host: CommandHost, argument: str) -> Reply:

    if not argument.strip():
        raise Unavailable("Usage: /remember TEXT (a note every session will see)")
    return Reply(
        "/remember", text=f"Remembered (in {paths.shown(save(argument.strip()))}); used from the next step."
    )


async def rename(host: CommandHost, argument: str) -> Reply:
    session = _stored(host)
    title = " ".join(argument.split())
    if not title:
        raise Unavailable("Usage: /rename TITLE")
    await session.rename(title)
    return Reply("/rename", text=f"Renamed: {title}", renamed=title)


async def skill(host: CommandHost, argument: str) -> Reply:

    session = require(host)
    name = argument.strip()
    if not name:
        found = ", ".join(session.prompts.user_prompts.available()) or "none"
        return Reply("/skill", text=f"Skills: {found}", tail="/skill NAME activates one for this session.")
    try:
        await load_by_hand(session, name)  # recorded, so a resumed session has it too
    except ValueError as exc:
        raise Unavailable(str(exc)) from exc
    return Reply(f"/skill {name}", text=f"Skill {name} active in this session.")


async def init(host: CommandHost, argument: str) -> Reply:
    from agent_tui.agent.project_init import AlreadyExists, write_agents_md  # lazy: start-up

    session = require(host)
    try:
        path = write_agents_md(session.workspace)
    except AlreadyExists as exc:
        raise Unavailable(str(exc)) from exc
    session.prompts.reload_rules()
    return Reply("/init", text=f"Wrote {path.name}: fill in the blanks; the agent reads it every turn.")


async def effort(host: CommandHost, argument: str) -> Reply:
    """How hard a reasoning model thinks, for this session: from its next request on."""

    session = require(host)
    provider = session.provider
    word = argument.strip().lower()
    if not word:
        return Reply(
            "/effort",
            text=f"Reasoning: {provider.reasoning.describe()}.",
            tail=f"/effort {'|'.join(EFFORTS)}|off changes it for this session.",
        )
    if word not in (*EFFORTS, "off"):
        raise Unavailable(f"Unknown effort {word!r}: use {', '.join(EFFORTS)} or off.")
    # off clears the thinking budget too; a level keeps the configured budget (Anthropic's).
    settings = ReasoningSettings() if word == "off" else dataclasses.replace(provider.reasoning, effort=word)
    session.set_reasoning(settings)
    if host.services is not None:  # a later /model builds its provider from this config
        config = host.services.config
        kept = dataclasses.replace(
            config.model,
            reasoning_effort=settings.effort,
            thinking_budget_tokens=settings.thinking_budget_tokens,
        )
        host.use_config(dataclasses.replace(config, model=kept))
    return Reply(f"/effort {word}", text=f"Reasoning: {settings.describe()} (from the next request).")


def _size(path: Any) -> str:

    try:
        return human_size(path.stat().st_size)
    except OSError:
        return "absent"


async def review(host: CommandHost, argument: str) -> Reply:
    """/review [base] where the front end has no form of its own (`run`, an editor): the same
    sub-agent review (agent/review.py), answered with its findings."""
    from agent_tui.agent.review import review_events  # lazy: start-up

    session = require(host)
    base = argument.strip() or None
    title = f"/review {base}" if base else "/review"
    said: list[str] = []
    async for event in review_events(session, base):
        if isinstance(event, ev.Notice):
            said.append(event.message)
        elif isinstance(event, ev.ToolCallFinished):
            return Reply(title, text=event.view, level="error" if event.is_error else "info")
    return Reply(title, text=" ".join(said) or "/review: the review gave no answer.", level="warning")
