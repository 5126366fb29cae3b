"""What a hook costs a tool call: the same read_file call through the session's ToolRunner with
no hook (the baseline), a hook whose matcher does not match, `true` as a PreToolUse hook, and a
Claude Code style script (bash + jq answering with permissionDecision JSON).

Run: .venv/bin/python benchmarks/hooks.py
No target in the issue: the point is that no hook (or a non-matching one) costs nothing, and that
a matching hook costs one process start (plus the transcript export before it).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CALLS = 40
JQ_HOOK = """jq -n --arg c "$(jq -r .tool_input.path)" '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: $c}}'"""


async def per_call(hooks: object, tmp: Path, label: str) -> tuple[str, float]:
    from agent_tui.base.messages import ToolCall
    from agent_tui.compose.factory import build_services
    from agent_tui.compose.rule_words import SHIPPED_WORDS
    from agent_tui.config import load_config

    overrides = {
        "model": {"name": "openai/fake-model", "api_base": "http://127.0.0.1:9", "context_window": 32000}
    }
    config = load_config(overrides=overrides, cwd=tmp, env={}, rule_words=SHIPPED_WORDS).config
    services = await build_services(config, workspace=tmp, db_path=tmp / f"{label}.db", start_mcp=False)
    services.hooks = hooks
    try:
        session = await services.new_session(yes=True)
        times = []
        for i in range(CALLS):
            call = ToolCall(id=f"c{i}", name="read_file", arguments='{"path": "small.txt"}')
            started = time.perf_counter()
            await session.runner.run(call)
            times.append(time.perf_counter() - started)
        if session.hooks is not None:
            session.hooks.drain()
        return label, statistics.median(times) * 1000
    finally:
        await services.close()


async def main() -> None:
    from agent_tui.hooks.sources import HookSet
    from agent_tui.hooks.spec import HookSpec

    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        os.environ["AGENT_TUI_HOME"] = str(tmp / "home")
        (tmp / "small.txt").write_text("hello\n" * 20)
        cases = [
            ("no hooks (baseline)", HookSet()),
            ("hook not matching", HookSet((HookSpec("PreToolUse", "true", matcher="bash"),))),
            ("PreToolUse `true`", HookSet((HookSpec("PreToolUse", "true"),))),
            ("PreToolUse bash+jq JSON", HookSet((HookSpec("PreToolUse", JQ_HOOK),))),
        ]
        rows = [
            await per_call(hooks, tmp, label.split()[0] + str(i)) for i, (label, hooks) in enumerate(cases)
        ]
    base = rows[0][1]
    print(f"{'case':<28} {'ms / call (median)':>20} {'× baseline':>12}")
    for (label, _), (_, ms) in zip(cases, rows, strict=True):
        print(f"{label:<28} {ms:>20.2f} {ms / base:>12.1f}")


if __name__ == "__main__":
    asyncio.run(main())
