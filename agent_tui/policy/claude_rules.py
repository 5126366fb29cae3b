"""Claude Code's permission rules (`Bash(git status:*)`, `Read(./.env)`, `Edit(src/**)`,
`WebFetch(domain:docs.python.org)`, `mcp__server__tool`) parsed into agent-tui's own rule type.

A Claude Code user's `settings.json` applies as written: each rule becomes the `AllowRule`s
agent-tui's own syntax spells (`Edit(src/**)` is `edit_file:src/**` and `write_file:src/**`, as
Claude Code's Edit rules cover every tool that edits files), so matching, listing and revoking
are one mechanism whichever syntax a rule came in. `format_claude` goes the other way, for the
hint that suggests a rule in the syntax the user writes. Which names exist and which tools they
cover is what the tools declare, handed in as a `RuleVocabulary` (rule_vocabulary.py): no table of
tool names here. Plain data: no layer is imported.
"""

from __future__ import annotations

import re

from agent_tui.policy.rule_vocabulary import RuleVocabulary

_CLAUDE = re.compile(r"([A-Z][A-Za-z]*)(?:\((.*)\))?", re.DOTALL)


def is_claude_syntax(text: str) -> bool:
    """`Bash(...)`, `Read`, …: a capitalised name, with or without a specifier in brackets."""
    return bool(_CLAUDE.fullmatch(text.strip()))


def claude_problem(text: str, words: RuleVocabulary) -> str | None:
    """Why a Claude Code rule cannot be used here; None when it is fine."""
    found = _CLAUDE.fullmatch(text.strip())
    if found is None:
        return f"{text!r} is not a Claude Code rule"
    name, spec = found.group(1), (found.group(2) or "").strip()
    if name not in words.claude_tools:
        known = ", ".join(words.claude_tools)
        return f"{name!r} is not a Claude Code tool agent-tui has (known: {known}, mcp__server__tool)"
    if not spec or spec == "*":
        return None
    if name == "Bash":
        return None if spec.removesuffix(":*").strip() else f"{text!r}: Bash() needs a command"
    tools = set(words.claude_tools[name])
    if tools <= words.domain_tools:
        if not spec.startswith("domain:") or not spec[len("domain:") :].strip():
            return f'{text!r}: {name} takes "domain:HOST", e.g. {name}(domain:docs.python.org)'
        return None
    if tools <= words.path_tools:
        return None
    return f"{text!r}: {name} takes no specifier here; write {name}"


def claude_to_own(text: str, words: RuleVocabulary) -> list[str]:
    """The rule in agent-tui's syntax, one per tool it covers (call claude_problem first)."""
    found = _CLAUDE.fullmatch(text.strip())
    assert found is not None
    name, spec = found.group(1), (found.group(2) or "").strip()
    tools = words.claude_tools[name]
    if not spec or spec == "*":
        return list(tools)
    if name == "Bash":
        if spec.endswith(":*"):
            return [f"bash:{spec[:-2].strip()}"]
        return [f"bash:{spec}"] if "*" in spec else [f"bash:={spec}"]
    if set(tools) <= words.domain_tools:
        return [f"{tool}:{spec[len('domain:') :].strip()}" for tool in tools]
    return [f"{tool}:{spec}" for tool in tools]


def format_claude(
    tool: str, words: RuleVocabulary, *, prefix: str | None = None, exact: str | None = None
) -> str:
    """A rule for `tool` as Claude Code's settings.json spells it (for the hint)."""
    if tool == "bash":
        if prefix:
            return f"Bash({prefix}:*)" if "*" not in prefix else f"Bash({prefix})"
        return f"Bash({exact})" if exact else "Bash"
    if (name := words.claude_name_of(tool)) is not None:
        return name
    if "__" in tool and not tool.startswith("mcp__"):
        return f"mcp__{tool}"
    return tool


def rule_syntax(tool: str, words: RuleVocabulary) -> str:
    """How a rule names `tool`, in agent-tui's syntax and Claude Code's (for /tools)."""
    claude = format_claude(tool, words)
    if tool == "bash":
        return "bash:PREFIX · Bash(PREFIX:*)"
    if tool in words.domain_tools:
        return f"{tool}:HOST · {claude}(domain:HOST)"
    if tool in words.path_tools:
        return f"{tool}:GLOB · {claude}(GLOB)"
    return tool if claude == tool else f"{tool} · {claude}"
