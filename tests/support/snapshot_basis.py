"""A fixed token basis for the SVG snapshots, so they pin the layout and not a figure.

The meter, /context and /tools show how many tokens the system prompt and the tool descriptions
take. Measured for real, every reworded tool description or prompt line changed those figures and
re-recorded every picture that shows one. In a snapshot test (any test using `snap_compare`) the
base prompt and each tool's description are replaced by the fixed stand-ins below, in what the
session measures and in what it sends (the local server counts the same request), so the figures
move only when the set of tools, their parameters or the layout does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

BASE_PROMPT_BASIS = """\
You are agent-tui, a coding agent working in a terminal in the user's workspace: {workspace}
(The base prompt's fixed stand-in for the snapshot tests: its real wording is measured elsewhere,
so rewording it does not re-record the pictures. The meter shows this text's tokens as `sys`.)
"""

TOOL_DESCRIPTION_BASIS = "A tool of agent-tui (its description's fixed stand-in for the snapshot tests)."


@pytest.fixture(autouse=True)
def declared_token_basis(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """For snapshot tests only: the stand-ins above replace the base prompt and tool descriptions."""
    if "snap_compare" not in request.fixturenames:
        return
    from agent_tui.agent import prompting
    from agent_tui.tools.base import ToolSpec

    def base_prompt(workspace: Path, specs: Any = ()) -> str:
        return BASE_PROMPT_BASIS.format(workspace=workspace)

    def schema(spec: ToolSpec) -> dict[str, Any]:
        # One dict per spec, like the real schema(): token counts cache by its identity.
        cached = spec.__dict__.get("_basis_schema")
        if cached is None:
            cached = {
                "type": "function",
                "function": {
                    "name": spec.name,
                    "description": TOOL_DESCRIPTION_BASIS,
                    "parameters": spec.parameters,
                },
            }
            object.__setattr__(spec, "_basis_schema", cached)
        return cached

    monkeypatch.setattr(prompting, "base_prompt", base_prompt)
    monkeypatch.setattr(ToolSpec, "schema", schema)
