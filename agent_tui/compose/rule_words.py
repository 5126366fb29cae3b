"""The words agent-tui's permission rules may use: what every tool it ships declares.

Rules are checked when the config loads (`load_config(rule_words=...)`), before any session exists, and
a config command or `agent-tui sessions list` must not load every tool to do it: the vocabulary
imports the tools the first time a rule needs a word (`edit_file:src/**`, `Edit(src/**)`), never
for a config whose rules are plain tool names or bash prefixes. The composition root hands the
same vocabulary to the session's permission policy, so a rule means one thing wherever it is read.
"""

from __future__ import annotations

from agent_tui.base.tool_decl import Capabilities
from agent_tui.policy.rule_vocabulary import RuleVocabulary


def shipped_declarations() -> list[tuple[str, Capabilities]]:
    """Each tool agent-tui ships with its declaration: the registry's built-ins, the `task` tool
    (built per session) and the provider's own web search (declared without a spec)."""
    from agent_tui.agent import task_tool, web_search  # lazy: start-up, only once a rule names a tool
    from agent_tui.tools.registry import shipped_tools  # lazy: start-up, as above

    declared = [(t.spec.name, t.spec.capabilities) for t in shipped_tools() if t.spec.capabilities]
    return [*declared, (task_tool.NAME, task_tool.CAPABILITIES), (web_search.NAME, web_search.CAPABILITIES)]


SHIPPED_WORDS = RuleVocabulary(shipped_declarations)
"""The vocabulary of agent-tui's own tools (read once, when a rule first needs it)."""
