"""The words a permission rule may use, derived from the tools' declarations.

A rule names tools (`edit_file:src/**`, Claude Code's `Edit(src/**)`), and which names exist, which
take a path glob and which a domain is what the tools declare (base/tool_decl.py): a Claude name,
path arguments, the `fetch` kind. The rule parsers (claude_rules.py, permission_rules.py) are plain
data below the tools, so they cannot look the tools up; whoever builds them — the composition root
(compose/rule_words.py) — hands them this vocabulary instead. It reads the declarations only the
first time a rule needs a word, so a config whose rules name no tool, or have none, never loads a
tool module (`agent-tui sessions list` stays light).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

from agent_tui.base.tool_decl import Capabilities

Declarations = Iterable[tuple[str, Capabilities]]
"""Each tool's name with what it declares."""


class RuleVocabulary:
    """Claude Code's rule names and the tools each covers, and the tools whose rules take a path
    glob or a domain, from a source of declarations read once, when first needed."""

    def __init__(self, declarations: Callable[[], Declarations]) -> None:
        self._declarations = declarations

    @classmethod
    def of(cls, declarations: Declarations) -> RuleVocabulary:
        """The vocabulary of these declarations (tests, a registry at hand)."""
        held = tuple(declarations)
        return cls(lambda: held)

    @functools.cached_property
    def _declared(self) -> dict[str, Capabilities]:
        return dict(self._declarations())

    @functools.cached_property
    def claude_tools(self) -> dict[str, tuple[str, ...]]:
        """Claude Code's rule names and the tools each covers: a tool's own Claude names, plus, as
        Claude Code documents, `Read` for every tool that reads files (a path argument, nothing
        checkpointed) and `Edit` for every tool that edits them (checkpointed). The tool that
        carries a name comes first (a hint spells a tool by the first rule it leads)."""
        rules: dict[str, list[str]] = {}
        for name, capabilities in self._declared.items():
            for alias in capabilities.claude_names:
                rules.setdefault(alias, []).append(name)
        families: dict[str, Callable[[Capabilities], bool]] = {"Read": _reads_files, "Edit": _edits_files}
        for family, member in families.items():
            if family in rules:
                rules[family] += [
                    n for n, c in self._declared.items() if member(c) and n not in rules[family]
                ]
        return {alias: tuple(tools) for alias, tools in rules.items()}

    @functools.cached_property
    def path_tools(self) -> frozenset[str]:
        """Tools whose rule takes a path glob (`edit_file:src/**`): those with a path argument."""
        return frozenset(name for name, c in self._declared.items() if c.path_args)

    @functools.cached_property
    def domain_tools(self) -> frozenset[str]:
        """Tools whose rule takes a domain (`web_fetch:docs.python.org`): the fetching ones."""
        return frozenset(name for name, c in self._declared.items() if c.kind == "fetch")

    def claude_name_of(self, tool: str) -> str | None:
        """The rule name that covers `tool` first (Read, Edit, Write, Grep, …), or None."""
        return next((name for name, tools in self.claude_tools.items() if tools[0] == tool), None)


def _reads_files(capabilities: Capabilities) -> bool:
    return (
        bool(capabilities.path_args)
        and not capabilities.checkpointed
        and capabilities.kind in ("read", "search")
    )


def _edits_files(capabilities: Capabilities) -> bool:
    return capabilities.checkpointed
