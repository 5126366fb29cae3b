"""The slash commands: ONE registry for every front end (the TUI, an editor over ACP, headless
`run`, the server), below all of them.

Each entry says what a command is called, what it takes, what it does, when it runs, which front
ends offer it and — when it has one — its effect (core/command_effects.py), which returns a
`Reply` each front end renders. A command without an effect is an action of the front end itself
(open a screen, replace the tab's session, quit); each front end that offers it binds a handler by
name (frontends/tui/slash.py `TUI_ACTIONS`, frontends/acp/slash.py `EDITOR_ACTIONS`), and tests/test_command_registry.py
fails when a front end offers a name that is not here or leaves an offered one unbound. The
README's command table is generated from here (docs_gen.py).
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.core import ops

if TYPE_CHECKING:
    from agent_tui.core.command_host import CommandHost
    from agent_tui.core.replies import Reply

Effect = Callable[["CommandHost", str], Awaitable["Reply"]]
"""A command's work on the session, with whatever followed its name ('' when nothing)."""


class _Effects:
    """Stands for a module of effects: `fx.cost` is the effect `cost`, imported when it first runs.

    Every front end reads this registry as it starts (names, help, the palette); the effects reach
    undo, the store and the providers, which the TUI's first frame does not need. The effects'
    names are checked by tests/test_command_registry.py, since a type checker cannot see them."""

    def __init__(self, module: str) -> None:
        self.module = module

    def __getattr__(self, name: str) -> Effect:
        module = self.module

        async def effect(host: CommandHost, argument: str) -> Reply:
            # lazy: start-up (the effects are not imported until a command runs)
            run: Effect = getattr(importlib.import_module(module), name)
            return await run(host, argument)

        effect.__name__ = effect.__qualname__ = name
        effect.__module__ = module
        return effect


fx = _Effects("agent_tui.core.command_effects")
pin_fx = _Effects("agent_tui.core.pin_effects")


class Front(enum.Flag):
    """The front ends that offer a command."""

    TUI = enum.auto()
    EDITOR = enum.auto()
    """An editor over ACP (acp/)."""
    RUN = enum.auto()
    """Headless `agent-tui run "/cost"` (and the server's `command` operation)."""


ALL = Front.TUI | Front.EDITOR | Front.RUN


class Runs(enum.Enum):
    """When a command runs relative to the tab's running turn."""

    NOW = "now"
    """At once, even while a turn runs (screens and app-wide actions)."""
    IDLE = "idle"
    """On the session once it is idle: queued behind a running turn like a prompt."""


@dataclass(frozen=True)
class Command:
    """One command."""

    name: str
    """Without the slash: `compact`."""
    args: str
    """What may follow the name: `[instructions]` (optional), `NAME` (required) or ''."""
    help: str
    """One line saying what it does."""
    runs: Runs
    fronts: Front
    effect: Effect | None = None
    """None: each front end that offers it binds its own action by name."""
    palette: str | None = None
    """Its title in the TUI's command palette (Ctrl+P); None keeps it out of the palette."""

    @property
    def usage(self) -> str:
        """How it is typed: `/compact [instructions]`."""
        return f"/{self.name} {self.args}".rstrip()

    @property
    def takes_argument(self) -> bool:
        return bool(self.args)

    @property
    def needs_argument(self) -> bool:
        """True when the argument is required (the palette then pre-fills the input)."""
        return bool(self.args) and not self.args.startswith("[")


TUI, EDITOR, RUN = Front.TUI, Front.EDITOR, Front.RUN
NOW, IDLE = Runs.NOW, Runs.IDLE

COMMANDS: tuple[Command, ...] = (
    Command("compact", "[instructions]", "condense the conversation now", IDLE, TUI | EDITOR, None, "Compact"),
    Command("context", "", "show what fills the context window", NOW, ALL, fx.context, "Context"),
    Command("blobs", "[REF]", "browse, search and read the stored tool outputs", NOW, TUI, None, "Blobs"),
    Command("new", "", "start a new session in this tab", IDLE, TUI, None, "New session"),
    Command("resume", "", "open an earlier session", NOW, TUI, None, "Resume session"),
    Command("model", "NAME", "switch this tab to another model", IDLE, TUI | EDITOR, None, "Model"),
    Command("effort", "[minimal|low|medium|high|off]", "how hard a reasoning model thinks, for this session (no level: show it)", IDLE, TUI | EDITOR, fx.effort, "Reasoning effort"),
    Command("undo", "[N] [--force]", "put back the files the last N turns changed", IDLE, ALL, fx.undo, "Undo"),
    Command("rename", "TITLE", "give this session a title", IDLE, ALL, fx.rename, "Rename session"),
    Command("remember", "TEXT", "save a note every session will see", IDLE, ALL, fx.remember, "Remember"),
    Command("skill", "[NAME]", "activate a skill (no name: list them)", IDLE, TUI | EDITOR, fx.skill, "Skills"),
    Command("hooks", "", "the hooks, custom commands and skills in effect, with their files", NOW, ALL, fx.hooks, "Hooks"),
    Command("tools", "", "the tools offered and what each description costs", IDLE, ALL, fx.tools, "Tools"),
    Command("permissions", "[remove RULE]", "list approvals (session and saved) or remove one", NOW, TUI, None, "Permissions"),
    Command("sandbox", "[MODE | auto on|off]", "what the command sandbox allows; switch workspace-write, read-only, off", NOW, TUI, None, "Sandbox"),
    Command("tasks", "", "background commands: output, elapsed time; Enter shows one, k kills it", NOW, TUI, None, "Background commands"),
    Command("rewind", "", "back to before an earlier message: conversation, files or both (also Esc Esc)", IDLE, TUI, None, "Rewind"),
    Command("fork", "[N] [NAME]", "continue a copy of this session in a new tab (before message N; alone: pick)", IDLE, TUI, None, "Fork session"),
    Command("init", "", "write an AGENTS.md skeleton for this project", IDLE, ALL, fx.init, "Init AGENTS.md"),
    Command("theme", "[NAME]", "switch the colour theme (no name: list them)", NOW, TUI, None),
    Command("help", "", "keys, commands and where the log file is", NOW, TUI, None, "Help"),
    Command("quit", "", "leave agent-tui", NOW, TUI, None, "Quit"),
    Command("clear", "", "start a new session in this tab (as /new)", IDLE, TUI | EDITOR, None, "Clear"),
    Command("status", "", "model, folder, trust, sandbox, session, rules and memories loaded, window", NOW, ALL, fx.status, "Status"),
    Command("cost", "", "what this session has cost, in tokens and money", NOW, ALL, fx.cost, "Cost"),
    Command("diff", "", "what this session changed in the workspace", NOW, ALL, fx.diff, "Diff"),
    Command("review", "[base]", "a sub-agent reviews the diff (working tree, or against BASE): findings with file:line", IDLE, ALL, fx.review, "Review changes"),
    Command("config", "[KEY]", "the settings in effect and the files they come from", NOW, ALL, fx.config, "Config"),
    Command("pin", "[TEXT | r_…:L3-9 | m_N[-M]]", "keep TEXT (or stored lines, or a message) verbatim in every request, whatever compaction drops", IDLE, ALL, pin_fx.pin, "Pin"),
    Command("unpin", "[ID]", "remove a pin (yours or the model's); alone: list them", IDLE, ALL, pin_fx.unpin, "Unpin"),
    Command("handoff", "[goal]", "continue in a new session: a summary for the goal, the pins, the task list and refs back to this one", IDLE, ALL, pin_fx.handoff, "Hand off"),
    Command("trust", "[off]", "trust this folder: its hooks, commands and settings apply (off: stop trusting it)", IDLE, TUI, None, "Trust this folder"),
    Command("memory", "[memories|rules]", "the memories or rules file: opened in $EDITOR in the TUI, shown elsewhere", NOW, ALL, fx.memory, "Memory"),
)  # fmt: skip

BY_NAME = {command.name: command for command in COMMANDS}

YIELDING = frozenset({"review"})
"""Built-ins a project's own command of the same name replaces in every front end: a Claude Code
user's `.claude/commands/review.md` stays theirs (every other built-in shadows a custom command)."""


def offered(front: Front) -> tuple[Command, ...]:
    """The commands `front` offers, in the registry's order."""
    return tuple(command for command in COMMANDS if command.fronts & front)


def parse(
    text: str, front: Front, custom: Collection[str] = (), withheld: Collection[str] = ()
) -> tuple[Command, str] | None:
    """(command, argument) when `text` invokes a command `front` offers, else None (a prompt,
    an unknown `/word`, a path like /etc/hosts, `//` escaping a slash, or a YIELDING built-in
    whose name is among the `custom` command names in use or the `withheld` ones: a folder's own
    /review that trust holds back is named (`withheld_text`), never replaced by the built-in)."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, argument = stripped[1:].partition(" ")
    command = BY_NAME.get(name.strip().lower())
    if command is None or not command.fronts & front:
        return None
    if command.name in YIELDING and command.name in {c.lower() for c in (*custom, *withheld)}:
        return None
    return command, argument.strip()


def _undo(argument: str) -> ops.Op:
    words = argument.split()
    return ops.Undo(next((int(w) for w in words if w.isdigit()), 1), force="--force" in words)


OPERATIONS: dict[str, Callable[[str], ops.Op]] = {
    "effort": ops.SetEffort,
    "rename": ops.Rename,
    "remember": ops.Remember,
    "skill": lambda argument: ops.ActivateSkill(argument.strip()),
    "undo": _undo,
}
"""Commands that are an operation of their own (core/ops.py), from what followed the name."""


def as_operation(command: Command, argument: str) -> ops.Op | None:
    """What a front end submits to its driver for `/command argument`: the command's own
    operation, else the driver's `command` operation when headless `run` offers it (the driver
    runs those), else None: a front end's action (a command without an effect)."""
    if command.name in OPERATIONS:
        return OPERATIONS[command.name](argument)
    if command.effect is not None and command.fronts & RUN:
        return ops.RunCommand(f"/{command.name} {argument}")
    return None


def withheld_text(name: str, source: str, *, trust_with: str = "/trust") -> str:
    """What every front end says of `/name`, a command of the untrusted folder (`source`, its
    file) that trust holds back: why it is missing and how to turn it on."""
    return (
        f"/{name} is this folder's command ({source}), off until you trust the folder: "
        f"{trust_with} turns its commands, hooks and settings on."
    )


def readme_table() -> list[str]:
    """The README's command table, one line per command (a test keeps the README equal to it)."""
    rows = ["| command | runs | where | what it does |", "|---|---|---|---|"]
    for command in COMMANDS:
        when = "at once" if command.runs is Runs.NOW else "after the running turn"
        where = ", ".join(_FRONT_WORDS[f] for f in (TUI, EDITOR, RUN) if command.fronts & f)
        usage = command.usage.replace("|", "\\|")  # a bare | would end the table cell
        rows.append(f"| `{usage}` | {when} | {where} | {command.help} |")
    return rows


_FRONT_WORDS = {TUI: "TUI", EDITOR: "editor", RUN: "`run`"}
