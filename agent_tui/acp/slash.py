"""The slash commands an editor offers in its prompt box (`available_commands_update`).

Only those that make sense without our screens: `/compact [instructions]` runs the compaction
chain and reports it like the TUI does; `/context` answers with the /context screen's figures as
text (the same report object, `ui/screens/context_data.build_report`, which needs no Textual).
A prompt starting with any other `/word` goes to the model as written.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from acp import schema as s

if TYPE_CHECKING:
    from agent_tui.agent import events as ev
    from agent_tui.agent.session import AgentSession
    from agent_tui.context.budget import ContextBudget


@dataclass(frozen=True)
class EditorCommand:
    name: str
    hint: str | None
    """What may follow the name; None when nothing does."""
    description: str


COMMANDS: tuple[EditorCommand, ...] = (
    EditorCommand("compact", "instructions (optional)", "condense the conversation now"),
    EditorCommand("context", None, "show what fills the context window"),
)


def available_commands() -> s.AvailableCommandsUpdate:
    return s.AvailableCommandsUpdate(
        session_update="available_commands_update",
        available_commands=[
            s.AvailableCommand(
                name=c.name,
                description=c.description,
                input=s.AvailableCommandInput(root=s.UnstructuredCommandInput(hint=c.hint))
                if c.hint
                else None,
            )
            for c in COMMANDS
        ],
    )


def parse(text: str) -> tuple[str, str] | None:
    """(command, argument) when `text` is one of our commands, else None."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, argument = stripped[1:].partition(" ")
    if name not in {c.name for c in COMMANDS}:
        return None
    return name, argument.strip()


async def compact(session: AgentSession, instructions: str) -> AsyncIterator[ev.AgentEvent]:
    async for event in session.compact(instructions or None, reason="forced"):
        yield event


def context_text(session: AgentSession, budget: ContextBudget) -> str:
    """The /context screen's header, usage line, components and cost, as Markdown text."""
    from agent_tui.llm.cost import format_cost
    from agent_tui.ui.screens.context_data import build_report
    from agent_tui.units import grouped

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
    return "\n".join(lines) + "\n"
