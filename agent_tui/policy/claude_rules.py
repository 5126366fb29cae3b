"""Claude Code's permission rules (`Bash(git status:*)`, `Read(./.env)`, `Edit(src/**)`,
`WebFetch(domain:docs.python.org)`, `mcp__server__tool`) parsed into agent-tui's own rule type.

A Claude Code user's `settings.json` applies as written: each rule becomes the `AllowRule`s
agent-tui's own syntax spells (`Edit(src/**)` is `edit_file:src/**` and `write_file:src/**`, as
Claude Code's Edit rules cover every tool that edits files), so matching, listing and revoking
are one mechanism whichever syntax a rule came in. `format_claude` goes the other way, for the
hint that suggests a rule in the syntax the user writes. Plain data: no layer is imported.
"""

from __future__ import annotations

import re

CLAUDE_RULE_TOOLS: dict[str, tuple[str, ...]] = {
    "Bash": ("bash",),
    "Read": ("read_file", "grep", "glob", "list_dir"),
    "Edit": ("edit_file", "write_file"),
    "MultiEdit": ("edit_file",),
    "Write": ("write_file",),
    "Grep": ("grep",),
    "Glob": ("glob",),
    "LS": ("list_dir",),
    "WebFetch": ("web_fetch",),
    "WebSearch": ("web_search",),
    "Task": ("task",),
}
"""Claude Code's rule names and the agent-tui tools each covers (Read covers every tool that
only reads files, Edit every tool that edits them, as Claude Code documents)."""

PATH_RULE_TOOLS = frozenset(CLAUDE_RULE_TOOLS["Read"] + CLAUDE_RULE_TOOLS["Edit"])
"""Tools whose rule takes a path glob (`edit_file:src/**`)."""

DOMAIN_RULE_TOOLS = frozenset(CLAUDE_RULE_TOOLS["WebFetch"])
"""Tools whose rule takes a domain (`web_fetch:docs.python.org`)."""

_CLAUDE = re.compile(r"([A-Z][A-Za-z]*)(?:\((.*)\))?", re.DOTALL)


def is_claude_syntax(text: str) -> bool:
    """`Bash(...)`, `Read`, …: a capitalised name, with or without a specifier in brackets."""
    return bool(_CLAUDE.fullmatch(text.strip()))


def claude_problem(text: str) -> str | None:
    """Why a Claude Code rule cannot be used here; None when it is fine."""
    found = _CLAUDE.fullmatch(text.strip())
    if found is None:
        return f"{text!r} is not a Claude Code rule"
    name, spec = found.group(1), (found.group(2) or "").strip()
    if name not in CLAUDE_RULE_TOOLS:
        known = ", ".join(CLAUDE_RULE_TOOLS)
        return f"{name!r} is not a Claude Code tool agent-tui has (known: {known}, mcp__server__tool)"
    if not spec or spec == "*":
        return None
    if name == "Bash":
        return None if spec.removesuffix(":*").strip() else f"{text!r}: Bash() needs a command"
    if name == "WebFetch":
        if not spec.startswith("domain:") or not spec[len("domain:") :].strip():
            return f'{text!r}: WebFetch takes "domain:HOST", e.g. WebFetch(domain:docs.python.org)'
        return None
    if set(CLAUDE_RULE_TOOLS[name]) <= PATH_RULE_TOOLS:
        return None
    return f"{text!r}: {name} takes no specifier here; write {name}"


def claude_to_own(text: str) -> list[str]:
    """The rule in agent-tui's syntax, one per tool it covers (call claude_problem first)."""
    found = _CLAUDE.fullmatch(text.strip())
    assert found is not None
    name, spec = found.group(1), (found.group(2) or "").strip()
    tools = CLAUDE_RULE_TOOLS[name]
    if not spec or spec == "*":
        return list(tools)
    if name == "Bash":
        if spec.endswith(":*"):
            return [f"bash:{spec[:-2].strip()}"]
        return [f"bash:{spec}"] if "*" in spec else [f"bash:={spec}"]
    if name == "WebFetch":
        return [f"web_fetch:{spec[len('domain:') :].strip()}"]
    return [f"{tool}:{spec}" for tool in tools]


def format_claude(tool: str, *, prefix: str | None = None, exact: str | None = None) -> str:
    """A rule for `tool` as Claude Code's settings.json spells it (for the hint)."""
    if tool == "bash":
        if prefix:
            return f"Bash({prefix}:*)" if "*" not in prefix else f"Bash({prefix})"
        return f"Bash({exact})" if exact else "Bash"
    for name, tools in CLAUDE_RULE_TOOLS.items():
        if tools[0] == tool:  # the name that covers it first: Read, Edit, Write, Grep, …
            return name
    if "__" in tool and not tool.startswith("mcp__"):
        return f"mcp__{tool}"
    return tool


def rule_syntax(tool: str) -> str:
    """How a rule names `tool`, in agent-tui's syntax and Claude Code's (for /tools)."""
    claude = format_claude(tool)
    if tool == "bash":
        return "bash:PREFIX · Bash(PREFIX:*)"
    if tool in DOMAIN_RULE_TOOLS:
        return f"{tool}:HOST · {claude}(domain:HOST)"
    if tool in PATH_RULE_TOOLS:
        return f"{tool}:GLOB · {claude}(GLOB)"
    return tool if claude == tool else f"{tool} · {claude}"
