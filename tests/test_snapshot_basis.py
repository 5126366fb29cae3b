"""The snapshot tests measure a fixed prompt and tool-description basis (tests/support/
snapshot_basis.py), so rewording a tool does not re-record the pictures; other tests measure the
real text."""

from __future__ import annotations

from pathlib import Path

from agent_tui.agent import prompting
from agent_tui.tools.registry import builtin_tools
from tests.support.snapshot_basis import BASE_PROMPT_BASIS, TOOL_DESCRIPTION_BASIS


def test_a_snapshot_test_measures_the_stand_ins(snap_compare):
    """Under `snap_compare` every tool offers the stand-in description and the prompt is the
    stand-in (the tools' parameters, which the layout depends on, stay real)."""
    tools = builtin_tools()
    assert {tool.spec.schema()["function"]["description"] for tool in tools} == {TOOL_DESCRIPTION_BASIS}
    assert tools[0].spec.schema()["function"]["parameters"] == tools[0].spec.parameters
    assert prompting.base_prompt(Path("/w"), []) == BASE_PROMPT_BASIS.format(workspace="/w")


def test_other_tests_measure_the_real_text():
    """Without `snap_compare` the schema carries the tool's own description."""
    bash = next(tool for tool in builtin_tools() if tool.spec.name == "bash")
    assert bash.spec.schema()["function"]["description"] == bash.spec.description
    assert "agent-tui" in prompting.base_prompt(Path("/w"), [])
