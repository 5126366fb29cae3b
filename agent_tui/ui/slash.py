"""The slash commands: one typed registry from which the input's menu, the command palette,
`/help` and the README's command table are all built.

Each entry says what the command is called, what it takes, what it does, when it runs and which
handler runs it. Adding a command is one `SlashCommand(...)` line in `COMMANDS` plus its handler
(an `async def handler(view, argument)`, usually in `ui/session_commands.py`); the menu, palette,
`/help` and the README test (tests/test_ui_slash_registry.py) pick it up from here. A handler
gets a `CommandHost` (ui/command_host.py), never the session view: the command modules sit below
the view in the import graph.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.errors_text import one_line
from agent_tui.ui import session_commands as handlers
from agent_tui.ui import status_commands as more
from agent_tui.ui import task_commands

if TYPE_CHECKING:
    from agent_tui.factory import AppServices
    from agent_tui.ui.command_host import CommandHost

log = logging.getLogger(__name__)

Handler = Callable[["CommandHost", str], Awaitable[None]]
"""Runs a command in a tab: the tab's view and whatever followed the name ('' when nothing)."""


class Runs(enum.Enum):
    """When a command runs relative to the tab's running turn."""

    NOW = "now"
    """At once, even while a turn runs (screens and app-wide actions)."""
    IDLE = "idle"
    """On the tab's session once it is idle: queued behind a running turn like a prompt."""


@dataclass(frozen=True)
class SlashCommand:
    """One command the input understands."""

    name: str
    """Without the slash: `compact`."""
    args: str
    """What may follow the name: `[instructions]` (optional), `NAME` (required) or ''."""
    help: str
    """One line saying what it does."""
    runs: Runs
    handler: Handler
    palette: str | None = None
    """Its title in the command palette (Ctrl+P); None keeps it out of the palette."""

    @property
    def usage(self) -> str:
        """How it is typed: `/compact [instructions]`."""
        return f"/{self.name} {self.args}".rstrip()

    @property
    def takes_argument(self) -> bool:
        """True when text may follow the name (completion then leaves a space after it)."""
        return bool(self.args)

    @property
    def needs_argument(self) -> bool:
        """True when the argument is required (the palette then pre-fills the input)."""
        return bool(self.args) and not self.args.startswith("[")


async def _hooks(view: CommandHost, argument: str) -> None:
    """/hooks lists the registry's custom commands too, so it lives beside the registry."""
    from agent_tui.ui.transcript import NoticeEntry

    services = view.services
    if services is None:
        view.notify("Still opening: try /hooks again in a moment.", severity="warning")
        return
    await view.note(NoticeEntry(extensions_text(services)))


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("compact", "[instructions]", "condense the conversation now", Runs.IDLE, handlers.compact, "Compact"),
    SlashCommand("context", "", "show what fills the context window", Runs.NOW, handlers.context, "Context"),
    SlashCommand("blobs", "[REF]", "browse, search and read the stored tool outputs", Runs.NOW, handlers.blobs, "Blobs"),
    SlashCommand("new", "", "start a new session in this tab", Runs.IDLE, handlers.new, "New session"),
    SlashCommand("resume", "", "open an earlier session", Runs.NOW, handlers.resume, "Resume session"),
    SlashCommand("model", "NAME", "switch this tab to another model", Runs.IDLE, handlers.model, "Model"),
    SlashCommand("effort", "[minimal|low|medium|high|off]", "how hard a reasoning model thinks, for this session (no level: show it)", Runs.IDLE, handlers.effort, "Reasoning effort"),
    SlashCommand("undo", "[N] [--force]", "put back the files the last N turns changed", Runs.IDLE, handlers.undo, "Undo"),
    SlashCommand("rename", "TITLE", "give this session a title", Runs.IDLE, handlers.rename, "Rename session"),
    SlashCommand("remember", "TEXT", "save a note every session will see", Runs.IDLE, handlers.remember, "Remember"),
    SlashCommand("skill", "[NAME]", "activate a skill (no name: list them)", Runs.IDLE, handlers.skill, "Skills"),
    SlashCommand("hooks", "", "the hooks, custom commands and skills in effect, with their files", Runs.NOW, _hooks, "Hooks"),
    SlashCommand("tools", "", "the tools offered and what each description costs", Runs.IDLE, handlers.tools, "Tools"),
    SlashCommand("permissions", "[remove RULE]", "list approvals (session and saved) or remove one", Runs.NOW, handlers.permissions, "Permissions"),
    SlashCommand("sandbox", "[MODE | auto on|off]", "what the command sandbox allows; switch workspace-write, read-only, off", Runs.NOW, handlers.sandbox, "Sandbox"),
    SlashCommand("tasks", "", "background commands: output, elapsed time; Enter shows one, k kills it", Runs.NOW, task_commands.tasks, "Background commands"),
    SlashCommand("rewind", "", "back to before an earlier message: conversation, files or both (also Esc Esc)", Runs.IDLE, task_commands.rewind, "Rewind"),
    SlashCommand("fork", "[N] [NAME]", "continue a copy of this session in a new tab (before message N; alone: pick)", Runs.IDLE, task_commands.fork, "Fork session"),
    SlashCommand("init", "", "write an AGENTS.md skeleton for this project", Runs.IDLE, handlers.init, "Init AGENTS.md"),
    SlashCommand("theme", "[NAME]", "switch the colour theme (no name: list them)", Runs.NOW, handlers.theme),
    SlashCommand("help", "", "keys, commands and where the log file is", Runs.NOW, handlers.show_help, "Help"),
    SlashCommand("quit", "", "leave agent-tui", Runs.NOW, handlers.quit_app, "Quit"),
    SlashCommand("clear", "", "start a new session in this tab (as /new)", Runs.IDLE, more.clear, "Clear"),
    SlashCommand("status", "", "model, folder, trust, sandbox, session, rules and memories loaded, window", Runs.NOW, more.status, "Status"),
    SlashCommand("cost", "", "what this session has cost, in tokens and money", Runs.NOW, more.cost, "Cost"),
    SlashCommand("diff", "", "what this session changed in the workspace", Runs.NOW, more.diff, "Diff"),
    SlashCommand("config", "[KEY]", "the settings in effect and the files they come from", Runs.NOW, more.config, "Config"),
    SlashCommand("memory", "[memories|rules]", "open the memories or rules file in $EDITOR", Runs.NOW, more.memory, "Memory"),
)  # fmt: skip

BY_NAME = {command.name: command for command in COMMANDS}

_custom: dict[str, SlashCommand] = {}
"""Custom commands from Markdown files (ui/custom_commands.py), beside the built-ins. They are
sent as prompts (extensions/invoke.py expands them), so `parse` never returns one."""


def set_custom(commands: list[SlashCommand]) -> list[SlashCommand]:
    """Replace the custom commands; returns those a built-in of the same name shadows."""
    _custom.clear()
    shadowed = []
    for command in commands:
        if command.name.lower() in BY_NAME:
            shadowed.append(command)
        else:
            _custom[command.name.lower()] = command
    return shadowed


def all_commands() -> tuple[SlashCommand, ...]:
    """Built-ins, then custom commands: what the menu, palette and /help list."""
    return COMMANDS + tuple(_custom.values())


def lookup(name: str) -> SlashCommand | None:
    return BY_NAME.get(name) or _custom.get(name.lower())


@dataclass(frozen=True)
class ParsedCommand:
    """A line the user sent that names a command."""

    command: SlashCommand
    argument: str
    """Whatever followed the name, stripped ('' when nothing)."""


def parse(text: str) -> ParsedCommand | None:
    """The command `text` invokes, or None when it is a prompt (or an unknown `/word`)."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, argument = stripped[1:].partition(" ")
    command = BY_NAME.get(name.strip().lower())
    if command is None:
        return None
    return ParsedCommand(command, argument.strip())


async def run(view: CommandHost, parsed: ParsedCommand) -> None:
    """Run a parsed command's handler; a failure is one line, never a traceback on screen."""
    name = parsed.command.name
    try:
        await parsed.command.handler(view, parsed.argument)
    except Exception as exc:
        log.exception("/%s failed", name)
        view.notify(f"/{name} failed: {one_line(exc, 160)}", severity="error")


def extensions_text(services: AppServices) -> str:
    """The /hooks block (and /help's section): hooks, custom commands, skills, with files."""
    from agent_tui.extensions.report import hook_lines, skill_lines

    parts = ["Hooks:", *(f"  {line}" for line in hook_lines(services.hooks))]
    custom = list(_custom.values())
    if custom:
        parts += ["Custom commands:", *(f"  /{c.name}: {c.help}" for c in custom)]
    skills = skill_lines(services.skills) if services.skills is not None else []
    if skills:
        parts += ["Skills (the model loads them with the skill tool; /skill NAME by hand):"]
        parts += [f"  {line}" for line in skills]
    return "\n".join(parts)


def unknown_command(text: str) -> str | None:
    """The `/word` of a line that looks like a command but names none, for a helpful notice."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//") or parse(stripped):
        return None
    word = stripped[1:].split(" ", 1)[0]
    if word.lower() in _custom:
        return None
    # A path like /etc/hosts is a prompt, not a mistyped command.
    return None if not word or "/" in word else word


def completions(text: str) -> list[SlashCommand]:
    """Commands whose name starts with what follows the slash (only while the name is typed)."""
    if not text.startswith("/") or " " in text or "\n" in text:
        return []
    prefix = text[1:].lower()
    return [command for command in all_commands() if command.name.lower().startswith(prefix)]


def readme_table() -> list[str]:
    """The README's command table, one line per command (a test keeps the README equal to it)."""
    rows = ["| command | runs | what it does |", "|---|---|---|"]
    for command in COMMANDS:
        when = "at once" if command.runs is Runs.NOW else "after the running turn"
        usage = command.usage.replace("|", "\\|")  # a bare | would end the table cell
        rows.append(f"| `{usage}` | {when} | {command.help} |")
    return rows
