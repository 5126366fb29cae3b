"""Assembles what each request holds: system prompt sections, tool schemas, wire messages.

The wire form of each message is cached (messages are frozen), so building a request over a long
history costs a list comprehension of dict lookups, not a re-serialisation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from agent_tui.agent.base_prompt import base_prompt
from agent_tui.context.prompt import PromptBuilder, rules_section, status_note
from agent_tui.context.prompt_sections import PromptSection

if TYPE_CHECKING:
    from agent_tui.context.budget import ContextBudget
    from agent_tui.messages import Message
    from agent_tui.tools.registry import ToolRegistry


@dataclass(frozen=True)
class Request:
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]


class PromptAssembler:
    def __init__(self, workspace: Path, registry: ToolRegistry,
                 extra_sections: Sequence[PromptSection] = ()) -> None:
        self.workspace = workspace
        self.registry = registry
        self.builder = PromptBuilder()
        self._base = PromptSection("base", base_prompt(workspace))
        self._rules = rules_section(workspace)
        self.extra_sections = list(extra_sections)
        self._wire: dict[Message, dict[str, Any]] = {}

    def reload_rules(self) -> None:
        self._rules = rules_section(self.workspace)

    def sections(self, budget: ContextBudget | None) -> list[PromptSection]:
        out = [self._base]
        if self._rules is not None:
            out.append(self._rules)
        out.extend(self.extra_sections)
        if budget is not None and budget.should_warn:
            out.append(status_note(budget.used_fraction))
        return out

    def tool_schemas(self, history: Sequence[Message]) -> list[dict[str, Any]]:
        return [spec.schema() for spec in self.registry.specs()]

    def wire(self, message: Message) -> dict[str, Any]:
        data = self._wire.get(message)
        if data is None:
            data = self._wire[message] = message.to_openai()
        return data

    def request(self, history: Sequence[Message], sections: Sequence[PromptSection],
                tools: list[dict[str, Any]]) -> Request:
        built = self.builder.build(sections)
        if len(self._wire) > 4 * len(history) + 1000:
            live = set(history)
            self._wire = {m: d for m, d in self._wire.items() if m in live}
        messages = [{"role": "system", "content": built.text}]
        messages.extend(map(self.wire, history))
        return Request(messages, list(tools))
