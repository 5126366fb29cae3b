"""What each editor slash command does (acp/slash.py offers them): the TUI command's effect on
the session, its report as Markdown text the editor shows as the agent's message.

The effects are the session's and the core's own (compaction, undo, the session diff, memories,
the model switch); only the wording of the reports is here, since the TUI's handlers write into
its chat widget. A command the session cannot do right now says why in one line.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from agent_tui import paths
from agent_tui.units import grouped

if TYPE_CHECKING:
    from agent_tui.acp.host import CommandHost

DIFF_LINES = 400
"""Lines of `/diff` sent; the rest is counted (the files are on disk)."""


def _rows(pairs: list[tuple[str, str]]) -> str:
    """Label and value per line, as a Markdown list (editors render it; plain text stays readable)."""
    return "\n".join(f"- **{label}**: {value}" for label, value in pairs)


def _fenced(text: str, lang: str = "") -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"


async def compact(live: CommandHost, argument: str) -> str | None:
    session = live.require()
    await live.play(session.compact(argument or None, reason="forced"))
    return None


async def context(live: CommandHost, argument: str) -> str | None:
    """The /context screen's header, usage line, components and cost; the meter first."""
    from agent_tui.llm.cost import format_cost
    from agent_tui.ui.screens.context_data import build_report

    session = live.require()
    budget = session.measure()
    await live.send_usage(budget)
    report = build_report(session, budget)
    b = report.budget
    lines = [
        f"**Context** · {report.model} · window {grouped(b.total)} · reserved output "
        f"{grouped(b.max_output_tokens)} · effective {grouped(b.effective_window)}",
        "",
        f"Used {grouped(b.used)} of {grouped(b.effective_window)} tokens ({b.used_fraction:.0%})",
        "",
    ]
    lines += [f"- {name.replace('_', ' ')}: {grouped(tokens)}" for name, tokens in b.components().items()]
    lines += ["", report.calibration.describe()]
    if report.largest:
        lines += ["", "Largest items:"]
        lines += [
            f"- {item.role} {item.label}: {grouped(item.tokens)}" + (f" (ref {item.ref})" if item.ref else "")
            for item in report.largest
        ]
    lines += [
        "",
        f"Session cost: {format_cost(report.cost)} · {grouped(report.prompt_tokens)} prompt + "
        f"{grouped(report.output_tokens)} output tokens reported in this run",
    ]
    return "\n".join(lines)


async def cost(live: CommandHost, argument: str) -> str | None:
    from agent_tui.llm.cost import format_cost

    session = live.require()
    usage = session.usage_total
    spent = (
        "unknown (no prices for this model)"
        if session.cost_total is None
        else format_cost(session.cost_total)
    )
    return "**/cost**\n" + _rows(
        [
            ("Cost", f"{spent} this session (since the editor opened it)"),
            ("Input", f"{grouped(usage.input)} tokens"),
            ("Cached", f"{grouped(usage.cache_read)} read · {grouped(usage.cache_creation)} written"),
            ("Output", f"{grouped(usage.output)} tokens"),
        ]
    )


async def status(live: CommandHost, argument: str) -> str | None:
    from agent_tui import trust

    session = live.require()
    workspace = session.workspace
    if (
        not paths.project_config_file(workspace).is_file()
        and not paths.local_config_file(workspace).is_file()
    ):
        trusted = "no project settings (.agent-tui.toml) here"
    else:
        trusted = {"trusted": "trusted", "changed": "changed since trusted: not applied"}.get(
            trust.state(workspace), "not trusted: only harmless keys apply (agent-tui trust add)"
        )
    sandbox = live.services.sandbox
    budget = session.measure()
    stored = "" if session.session_id == live.session_id else f" (stored as {session.session_id})"
    return "**/status**\n" + _rows(
        [
            ("Model", session.model),
            ("Session", f"{live.session_id}{stored} · {session.title or 'untitled'}"),
            ("Folder", paths.shown(workspace)),
            ("Trust", trusted),
            ("Sandbox", sandbox.describe().splitlines()[0] if sandbox is not None else "not set up"),
            ("Mode", live.mode),
            (
                "Context",
                f"{budget.used_fraction:.0%} {grouped(budget.used)}/{grouped(budget.effective_window)} "
                f"(window {grouped(budget.total)}, reply reserve {grouped(budget.max_output_tokens)})",
            ),
        ]
    )


async def clear(live: CommandHost, argument: str) -> str | None:
    before = live.require().session_id
    session = await live.replace(live.services.new_session(live.approver()))
    return (
        f"New conversation (stored as {session.session_id}); the earlier one, {before}, stays in "
        "/resume and `agent-tui sessions list`."
    )


async def model(live: CommandHost, argument: str) -> str | None:
    from agent_tui.models import switched_model

    session = live.require()
    name = argument.strip()
    if not name:
        return f"Model: {session.model}\n\n/model NAME switches this session to another model."
    config = live.services.config
    settings, left = switched_model(config.model, name)
    services = dataclasses.replace(live.services, config=dataclasses.replace(config, model=settings))
    session = await live.replace(services.resume_session(session.session_id, live.approver()))
    live.services = services  # only once the session opened: a refused model changes nothing
    note = (
        f"\n\n{name} is not on the configured server: {', '.join(left)} from [model] stay behind."
        if left
        else ""
    )
    return f"Model: {session.model} (the conversation goes on){note}"


async def tools(live: CommandHost, argument: str) -> str | None:
    prompts = live.require().prompts
    rows = prompts.tool_table()
    lines = [
        f"{r.name:<28} {r.source:<8} {r.tokens:>6} tok  {r.state}" + (f" ({r.why})" if r.why else "")
        for r in rows
    ]
    total = sum(r.tokens for r in rows if r.state != "deferred")
    share = prompts.tool_share_line()
    head = f"{len(rows)} tools, {grouped(total)} tokens offered:" + (f"\n{share}" if share else "")
    return head + "\n\n" + _fenced("\n".join(lines))


async def memory(live: CommandHost, argument: str) -> str | None:
    from agent_tui.context.memory import memories_file, skills_dir
    from agent_tui.context.prompt import find_rules_file

    mem = memories_file()
    rules = find_rules_file(live.require().workspace)
    text = _rows(
        [
            ("Memories", f"{paths.shown(mem)} · {_size(mem)} (/remember TEXT adds one)"),
            ("Rules", f"{paths.shown(rules)} · {_size(rules)}" if rules else "none (/init writes AGENTS.md)"),
            ("Skills", f"{paths.shown(skills_dir())} (/skill lists them)"),
        ]
    )
    text += "\n\nOpen them in the editor; they are read again on the next turn."
    if mem.is_file():
        text += "\n\n" + _fenced(mem.read_text(encoding="utf-8", errors="replace")[:2000])
    return "**/memory**\n" + text


async def undo(live: CommandHost, argument: str) -> str | None:
    from agent_tui.agent.undo import undo as undo_turns

    session = live.require()
    if session.store is None:
        return "/undo needs the session store, which is not open."
    words = argument.split()
    turns = next((int(w) for w in words if w.isdigit()), 1)
    report = await undo_turns(session.store, session.session_id, turns, force="--force" in words)
    if report.restored:
        await session.add_note(
            f"[The user undid file changes of the last {report.turns} turn(s): "
            + report.describe(session.workspace)
            + " Re-read these files before relying on earlier views.]"
        )
    return report.describe(session.workspace)


async def diff(live: CommandHost, argument: str) -> str | None:
    from agent_tui.agent.session_diff import session_diff

    session = live.require()
    if session.store is None:
        return "/diff needs the session store, which is not open."
    diffs = [d for d in await session_diff(session.store, session.session_id, session.workspace) if d.diff]
    if not diffs:
        return "This session has changed no files (or /undo put them back)."
    head = ", ".join(f"{d.path} (+{d.added} −{d.removed})" for d in diffs)
    lines = "".join(d.diff for d in diffs).splitlines()
    more = f"\n\n… {grouped(len(lines) - DIFF_LINES)} more lines" if len(lines) > DIFF_LINES else ""
    return f"{len(diffs)} file(s) changed: {head}\n\n" + _fenced("\n".join(lines[:DIFF_LINES]), "diff") + more


async def hooks(live: CommandHost, argument: str) -> str | None:
    from agent_tui.extensions.report import hook_lines, skill_lines

    services = live.services
    parts = ["**Hooks**", *(f"- {line}" for line in hook_lines(services.hooks))]
    custom = live.custom_commands()
    if custom:
        parts += ["", "**Custom commands**", *(f"- /{c.name}: {c.description} ({c.source})" for c in custom)]
    skills = skill_lines(services.skills) if services.skills is not None else []
    if skills:
        parts += ["", "**Skills** (the model loads them with the skill tool; /skill NAME by hand)"]
        parts += [f"- {line}" for line in skills]
    return "\n".join(parts)


async def remember(live: CommandHost, argument: str) -> str | None:
    from agent_tui.context.memory import remember as save

    if not argument.strip():
        return "Usage: /remember TEXT (a note every session will see)"
    return f"Remembered (in {paths.shown(save(argument.strip()))}); used from the next step."


async def rename(live: CommandHost, argument: str) -> str | None:
    session = live.require()
    title = " ".join(argument.split())
    if not title:
        return "Usage: /rename TITLE"
    if session.store is not None:
        await session.store.sessions.rename(session.session_id, title)
    session.title = title
    return f"Renamed: {title}"


async def skill(live: CommandHost, argument: str) -> str | None:
    session = live.require()
    name = argument.strip()
    if not name:
        found = ", ".join(session.prompts.user_prompts.available()) or "none"
        return f"Skills: {found}\n\n/skill NAME activates one for this session."
    try:
        described = session.prompts.activate_skill(name)
    except ValueError as exc:
        return str(exc)
    return f"Skill {name} active in this session: {described}"


async def init(live: CommandHost, argument: str) -> str | None:
    from agent_tui.project_init import AlreadyExists, write_agents_md

    session = live.require()
    try:
        path = write_agents_md(session.workspace)
    except AlreadyExists as exc:
        return str(exc)
    session.prompts.reload_rules()
    return f"Wrote {path.name}: fill in the blanks; the agent reads it every turn."


async def effort(live: CommandHost, argument: str) -> str | None:
    from agent_tui.reasoning import EFFORTS, ReasoningSettings

    provider = live.require().provider
    word = argument.strip().lower()
    if not word:
        return f"Reasoning: {provider.reasoning.describe()}.\n\n/effort {'|'.join(EFFORTS)}|off changes it."
    if word not in (*EFFORTS, "off"):
        return f"Unknown effort {word!r}: use {', '.join(EFFORTS)} or off."
    settings = ReasoningSettings() if word == "off" else dataclasses.replace(provider.reasoning, effort=word)
    provider.reasoning = settings
    config = live.services.config
    kept = dataclasses.replace(
        config.model, reasoning_effort=settings.effort, thinking_budget_tokens=settings.thinking_budget_tokens
    )
    live.services = dataclasses.replace(live.services, config=dataclasses.replace(config, model=kept))
    return f"Reasoning: {settings.describe()} for this session."


def _size(path: Any) -> str:
    from agent_tui.units import human_size

    try:
        return human_size(path.stat().st_size)
    except OSError:
        return "absent"
