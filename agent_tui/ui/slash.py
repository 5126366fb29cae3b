"""The slash commands: one table the input's completion, `/help` and the command palette share."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SlashCommand:
    """One command the input understands."""

    name: str
    """Without the slash: `compact`."""
    usage: str
    """How it is typed: `/compact [instructions]`."""
    help: str
    """One line saying what it does."""
    takes_argument: bool = False
    """True when text may follow the name (completion then leaves a space after it)."""
    queued: bool = False
    """True when it waits for a running turn like a prompt does (it needs the session idle)."""


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand(
        "compact",
        "/compact [instructions]",
        "condense the conversation now",
        takes_argument=True,
        queued=True,
    ),
    SlashCommand("context", "/context", "show what fills the context window"),
    SlashCommand(
        "blobs", "/blobs [REF]", "browse, search and read the stored tool outputs", takes_argument=True
    ),
    SlashCommand("new", "/new", "start a new session in this tab"),
    SlashCommand("resume", "/resume", "open an earlier session"),
    SlashCommand("model", "/model NAME", "switch this tab to another model", takes_argument=True),
    SlashCommand(
        "undo",
        "/undo [N] [--force]",
        "put back the files the last N turns changed",
        takes_argument=True,
        queued=True,
    ),
    SlashCommand("rename", "/rename TITLE", "give this session a title", takes_argument=True),
    SlashCommand("remember", "/remember TEXT", "save a note every session will see", takes_argument=True),
    SlashCommand("skill", "/skill NAME", "activate a skill for this session", takes_argument=True),
    SlashCommand("tools", "/tools", "the tools offered and what each description costs"),
    SlashCommand(
        "permissions", "/permissions [remove RULE]", "list or remove allow rules", takes_argument=True
    ),
    SlashCommand(
        "sandbox",
        "/sandbox [MODE | auto on|off]",
        "what the command sandbox allows; switch workspace-write, read-only, off",
        takes_argument=True,
    ),
    SlashCommand("init", "/init", "write an AGENTS.md skeleton for this project"),
    SlashCommand(
        "theme", "/theme [NAME]", "switch the colour theme (no name: list them)", takes_argument=True
    ),
    SlashCommand("help", "/help", "keys, commands and where the log file is"),
    SlashCommand("quit", "/quit", "leave agent-tui"),
)

BY_NAME = {command.name: command for command in COMMANDS}


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


def unknown_command(text: str) -> str | None:
    """The `/word` of a line that looks like a command but names none, for a helpful notice."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//") or parse(stripped):
        return None
    word = stripped[1:].split(" ", 1)[0]
    # A path like /etc/hosts is a prompt, not a mistyped command.
    return None if not word or "/" in word else word


def completions(text: str) -> list[SlashCommand]:
    """Commands whose name starts with what follows the slash (only while the name is typed)."""
    if not text.startswith("/") or " " in text or "\n" in text:
        return []
    prefix = text[1:].lower()
    return [command for command in COMMANDS if command.name.startswith(prefix)]
