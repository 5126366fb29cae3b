"""The built-in tools' share of the window, per window size, before and after budgeting them.

Run: .venv/bin/python benchmarks/tool_share.py [--server]
Target (issue 41): from 4 096 tokens up, the offered tool descriptions stay under TOOL_SHARE
(25%) of the effective window, with the default reply reserve. Baseline in the same run: the
selection as it was before (every built-in always offered with its full description; only MCP,
skill and `task` tools deferred), got by lifting the share out of reach. Counts are tiktoken's
(the session's counter); a digit-splitting local tokenizer makes ~10% more of the same JSON.

With --server (needs the llm-test extra): the cost of the pre-flight count (llama.cpp's
/apply-template + /tokenize, llm/preflight.py) of a first request with the tools and a pasted log,
against the baseline of sending that request with max_tokens=1 (what the server spends reading it).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
import urllib.request
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_tui.agent.base_prompt import base_prompt  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.agent.prompting import PromptAssembler  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.base.tokens import TokenCounter  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.context import deferral  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.context.budget import BudgetMeter  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.llm.models import reply_reserve  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.tools.background_tools import background_tools  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.tools.context_tools import context_tools  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.tools.registry import ToolRegistry, builtin_tools  # noqa: E402 - imported after the sys.path set-up above

WINDOWS = (4096, 8192, 16_384, 32_768, 131_072)


def offered(window: int, counter: TokenCounter) -> tuple[int, int, bool]:
    """(tool-description tokens offered, tools deferred, described briefly) at `window`."""
    registry = ToolRegistry([*builtin_tools(), *context_tools(), *background_tools()])
    meter = BudgetMeter(counter, window, reply_reserve(window, None, None))
    prompts = PromptAssembler(ROOT, registry, counter=counter, meter=meter)
    schemas = prompts.tool_schemas([])
    selection = prompts.selection
    assert selection is not None
    return counter.count_tools(schemas), len(selection.deferred), selection.brief


def main() -> None:
    counter = TokenCounter("gpt-4o")
    system = counter.count_text(base_prompt(ROOT))
    share = deferral.TOOL_SHARE
    rows = []
    for window in WINDOWS:
        effective = window - reply_reserve(window, None, None)
        deferral.TOOL_SHARE = 1e9  # before: the built-ins were never budgeted
        before, _, _ = offered(window, counter)
        deferral.TOOL_SHARE = share
        after, deferred, brief = offered(window, counter)
        rows.append((window, effective, before, after, deferred, brief))
    print(f"system prompt: {system} tokens; TOOL_SHARE {share:.0%} of the effective window\n")
    head = f"{'window':>7} {'effective':>9} {'before':>7} {'share':>6} {'after':>6} {'share':>6} {'ratio':>6}  how"
    print(head)
    print("-" * len(head))
    for window, effective, before, after, deferred, brief in rows:
        how = (
            ", ".join([*(["brief"] if brief else []), *([f"{deferred} deferred"] if deferred else [])])
            or "full"
        )
        print(
            f"{window:>7} {effective:>9} {before:>7} {before / effective:>6.0%} {after:>6} "
            f"{after / effective:>6.0%} {after / before:>6.2f}  {how}"
        )
    room = [(w, e - system - a) for w, e, _, a, _, _ in rows]
    print("\nroom left for the conversation (after):", ", ".join(f"{w}: {r}" for w, r in room))


def preflight_cost() -> None:
    from agent_tui.llm.preflight import count_request
    from testkit.llama_server import start_test_server
    from tests.support.real_server import SERVER_SETTINGS, TEMPLATE, log_paste

    counter = TokenCounter("gpt-4o")
    registry = ToolRegistry([*builtin_tools(), *context_tools(), *background_tools()])
    meter = BudgetMeter(counter, 8192, 2048)
    tools = PromptAssembler(ROOT, registry, counter=counter, meter=meter).tool_schemas([])
    rows: list[tuple[int | None, int, float, float]] = []
    with start_test_server(TEMPLATE.read_text(), n_ctx=8192, extra=SERVER_SETTINGS) as server:
        for turn in range(3):
            messages = [
                {"role": "system", "content": base_prompt(ROOT)},
                {"role": "user", "content": f"Log {turn}:\n{log_paste(600, seed=turn)}"},
            ]
            started = time.perf_counter()
            counted = asyncio.run(count_request(server.base_url, messages, tools))
            count_ms = (time.perf_counter() - started) * 1000
            body = {"model": "m", "messages": messages, "tools": tools, "max_tokens": 1}
            request = urllib.request.Request(
                server.base_url + "/chat/completions",
                data=json.dumps(body).encode(),
                headers={"Content-Type": "application/json"},
            )
            started = time.perf_counter()
            with urllib.request.urlopen(request, timeout=600) as response:
                usage = json.loads(response.read())["usage"]
            send_ms = (time.perf_counter() - started) * 1000
            rows.append((counted, usage["prompt_tokens"], count_ms, send_ms))
    print("\npre-flight count vs sending the same first request (max_tokens=1), 3 requests:")
    print(f"{'counted':>8} {'served':>7} {'count ms':>9} {'send ms':>8} {'ratio':>6}")
    for counted, served, count_ms, send_ms in rows:
        print(f"{counted:>8} {served:>7} {count_ms:>9.0f} {send_ms:>8.0f} {count_ms / send_ms:>6.3f}")
    med = statistics.median(r[2] for r in rows), statistics.median(r[3] for r in rows)
    print(f"median: count {med[0]:.0f} ms, send {med[1]:.0f} ms ({med[0] / med[1]:.1%} of a send)")


if __name__ == "__main__":
    main()
    if "--server" in sys.argv:
        preflight_cost()
