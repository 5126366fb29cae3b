"""One approval rule as a value (parse, match, format) and the set of rules a session holds.

A rule is `edit_file` (a tool; a trailing `*` globs the name, as in `mcp__time__*`, and an MCP
tool answers to Claude Code's `mcp__server__tool` as to ours, `server__tool`), `bash:git status`
(a command prefix, `*` globs) or, for an "allow for this session" answer without a prefix,
`bash:=make && make install` (exactly that command).
The same type is read from the config files, checked by the config's validation pass, granted by
the approval's answers, listed and revoked by /permissions and written by "Always". Each rule in a
`RuleSet` carries the tier it came from: the user's config, the project's `.agent-tui.toml`, its
git-ignored `.agent-tui.local.toml`, or this session.

A file tool's rule may name a path glob (`edit_file:src/**`, `read_file:.env`) and web_fetch's a
domain (`web_fetch:docs.python.org`); rule_targets.py says how they match. Claude Code's
syntax (`Bash(git status:*)`, `Edit(src/**)`, `WebFetch(domain:x)`) parses to the same rules
(claude_rules.py): `parse_all` takes either. Which tools take a path or a domain, and what Claude
Code's names cover, is the tools' declarations, handed in as a `RuleVocabulary`.

A bash rule is a command prefix, never a loophole: a command that chains, substitutes or
redirects beyond the prefix (`git status; rm -rf /`) does not match it. Plain data: no layer of
the program is imported here, so the config can check rules with it.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent_tui.policy.claude_rules import claude_problem, claude_to_own, is_claude_syntax
from agent_tui.policy.rule_targets import domain_matches, domain_problem, path_matches
from agent_tui.policy.rule_vocabulary import RuleVocabulary

SHELL_META = re.compile(r"[;&|`<>\n\r]|\$\(")
"""Chaining, pipes, backgrounding, substitution and redirection: what may not follow a prefix."""

Tier = Literal["user", "project", "local", "session"]
"""Where a rule came from: the user's config (or the command line), the project's shared file,
its local file (where "Always" writes), or an answer given in this session."""

TIERS: tuple[Tier, ...] = ("user", "project", "local", "session")

_TOOL_NAME = re.compile(r"[A-Za-z0-9_.\-]+\*?")
_SHELL_WORDS = ("bash", "shell", "sh", "cmd", "command", "run")
MCP_PREFIX = "mcp__"
"""How Claude Code spells an MCP tool's name before ours (`server__tool`)."""


class RuleError(ValueError):
    """Text that is not a rule; the message says what was probably meant."""


def normalize_command(command: str) -> str:
    """The form rules match against: trimmed, runs of spaces and tabs as one space. Newlines stay:
    they separate commands."""
    return re.sub(r"[ \t]+", " ", command.strip())


def bash_prefix_matches(prefix: str, command: str) -> bool:
    """Whether the rule `bash:<prefix>` covers `command`.

    `prefix` matches a command equal to it or starting with it plus a space; with a `*` it is a
    glob. Either way, what follows the literal part of the rule may not chain, pipe, substitute
    or redirect.
    """
    prefix, command = normalize_command(prefix), normalize_command(command)
    if not prefix:
        return False
    if "*" in prefix:
        literal = prefix[: prefix.index("*")]
        if not command.startswith(literal) or not fnmatch.fnmatchcase(command, prefix):
            return False
        rest = command[len(literal) :]
    elif command == prefix:
        return True
    elif command.startswith(prefix + " "):
        rest = command[len(prefix) :]
    else:
        return False
    return not SHELL_META.search(rest)


def tool_name_matches(pattern: str, tool: str) -> bool:
    """Whether a rule's tool part names `tool`: equal, or its prefix when the rule ends in `*`.
    An MCP tool (ours: `server__tool`) also answers to Claude Code's `mcp__server__tool`."""
    names = (tool, f"{MCP_PREFIX}{tool}") if "__" in tool and not tool.startswith(MCP_PREFIX) else (tool,)
    if pattern.startswith(MCP_PREFIX) and "__" not in pattern[len(MCP_PREFIX) :] and "*" not in pattern:
        pattern = f"{pattern}__*"  # Claude Code's `mcp__server`: every tool of that server
    if pattern.endswith("*"):
        return any(name.startswith(pattern[:-1]) for name in names)
    return pattern in names


@dataclass(frozen=True)
class AllowRule:
    """A tool allowed whole, or a bash command prefix, or one exact bash command."""

    tool: str
    prefix: str | None = None
    """For bash: the command prefix (may glob with `*`)."""
    exact: str | None = None
    """For bash: exactly this command (normalized); session answers and `Bash(cmd)` make these."""
    path: str | None = None
    """For a file tool: the path glob its `path` argument must fall under (rule_targets.py)."""
    domain: str | None = None
    """For web_fetch: the host its `url` must be on (`*.example.com` for subdomains)."""

    @staticmethod
    def problem(text: str, words: RuleVocabulary) -> str | None:
        """Why `text` can never match as a rule, with the likely intended rule; None when it is fine."""
        text = text.strip()
        tool, sep, pattern = text.partition(":")
        tool, pattern = tool.strip(), pattern.strip()
        if not text:
            return 'empty rule: use a tool name ("edit_file") or "bash:PREFIX" ("bash:git status")'
        if not sep:
            if _TOOL_NAME.fullmatch(text):
                return None
            return f'{text!r} is not a tool name; did you mean "bash:{text}"?'
        if tool == "bash":
            return None if pattern else 'rule "bash:" needs a command prefix, e.g. "bash:git status"'
        if tool in words.path_tools:
            return None if pattern else f'rule "{tool}:" needs a path glob, e.g. "{tool}:src/**"'
        if tool in words.domain_tools:
            return domain_problem(pattern.removeprefix("domain:").strip())
        if tool.lower() in _SHELL_WORDS:
            return f'did you mean "bash:{pattern}"?'
        return (
            'only "bash:", the file tools (a path) and web_fetch (a domain) take a specifier; '
            f'did you mean "{tool}" or "bash:{pattern}"?'
        )

    @classmethod
    def parse_all(cls, text: str, words: RuleVocabulary) -> tuple[AllowRule, ...]:
        """The rules `text` spells in either syntax: agent-tui's (one rule) or Claude Code's
        (`Edit(src/**)` covers two tools); RuleError with a hint otherwise."""

        if not is_claude_syntax(text):
            return (cls.parse(text, words),)
        problem = claude_problem(text, words)
        if problem is not None:
            raise RuleError(problem)
        return tuple(cls.parse(own, words) for own in claude_to_own(text, words))

    @staticmethod
    def problem_any(text: str, words: RuleVocabulary) -> str | None:
        """`problem` for either syntax."""

        return claude_problem(text, words) if is_claude_syntax(text) else AllowRule.problem(text, words)

    @classmethod
    def parse(cls, text: str, words: RuleVocabulary) -> AllowRule:
        """The rule `text` spells (as `format` writes it); RuleError with a hint otherwise."""
        problem = cls.problem(text, words)
        if problem is not None:
            raise RuleError(problem)
        tool, sep, pattern = text.strip().partition(":")
        tool, pattern = tool.strip(), pattern.strip()
        if not sep:
            return cls(tool)
        if tool in words.path_tools:
            return cls(tool, path=pattern)
        if tool in words.domain_tools:
            return cls(tool, domain=pattern.removeprefix("domain:").strip().lower())
        if pattern.startswith("=") and normalize_command(pattern[1:]):
            return cls(tool, exact=normalize_command(pattern[1:]))
        return cls(tool, prefix=pattern)

    @classmethod
    def for_command(cls, prefix: str | None, command: str) -> AllowRule:
        """A bash rule from an approval's answer: its prefix, else exactly the command."""
        if prefix and prefix.strip():
            return cls("bash", prefix=prefix.strip())
        if command.strip():
            return cls("bash", exact=normalize_command(command))
        raise RuleError("a bash rule needs a prefix or an exact command")

    def matches(self, tool: str, args: Mapping[str, Any], workspace: Path | None = None) -> bool:
        if not tool_name_matches(self.tool, tool):
            return False
        if self.path is not None:
            return path_matches(self.path, args, workspace)
        if self.domain is not None:
            url = args.get("url")
            return isinstance(url, str) and domain_matches(self.domain, url)
        if self.prefix is None and self.exact is None:
            return True
        command = args.get("command")
        if not isinstance(command, str):
            return False
        if self.exact is not None:
            return normalize_command(command) == self.exact
        return bash_prefix_matches(self.prefix or "", command)

    def format(self) -> str:
        """The rule as it is written in a config file and listed by /permissions."""
        if self.exact is not None:
            return f"{self.tool}:={self.exact}"
        if self.prefix is not None:
            return f"{self.tool}:{self.prefix}"
        if self.path is not None:
            return f"{self.tool}:{self.path}"
        if self.domain is not None:
            return f"{self.tool}:{self.domain}"
        return self.tool

    def __str__(self) -> str:
        return self.format()


@dataclass
class RuleSet:
    """The rules that let a call run unasked, each with its tier; the first match wins, the
    config tiers before the session's."""

    _rules: list[tuple[AllowRule, Tier]] = field(default_factory=list)

    @classmethod
    def of(cls, rules: Iterable[tuple[AllowRule, Tier]]) -> RuleSet:
        found = cls()
        for rule, tier in rules:
            found.add(rule, tier)
        return found

    def add(self, rule: AllowRule, tier: Tier) -> None:
        if (rule, tier) not in self._rules:
            self._rules.append((rule, tier))

    def remove(self, rule: AllowRule) -> bool:
        """Forget `rule` in every tier; False when no tier held it."""
        kept = [(r, t) for r, t in self._rules if r != rule]
        found = len(kept) != len(self._rules)
        self._rules = kept
        return found

    def match(
        self, tool: str, args: Mapping[str, Any], workspace: Path | None = None
    ) -> tuple[AllowRule, Tier] | None:
        ordered = sorted(self._rules, key=lambda entry: entry[1] == "session")  # stable
        for rule, tier in ordered:
            if rule.matches(tool, args, workspace):
                return rule, tier
        return None

    def entries(self) -> list[tuple[AllowRule, Tier]]:
        """Every rule with its tier, in tier order (user, project, local, session)."""
        return sorted(self._rules, key=lambda entry: TIERS.index(entry[1]))

    def __len__(self) -> int:
        return len(self._rules)
