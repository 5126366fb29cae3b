"""Tool deferral with 500 MCP tools: selection time per turn and tool-description tokens.

Run: .venv/bin/python benchmarks/deferral.py
Target (issue 9): selecting the tools of a request ≤ 2 ms per turn with 500 tools, through the
session's PromptAssembler (registry listing, usage read from the history, selection). Baseline in
the same run: a naive selector that re-counts every schema with tiktoken each turn. Tokens: what
all tool descriptions cost against what a request offers after deferral.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_tui.agent.prompting import PromptAssembler  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.base.messages import ToolCall, assistant, tool_result, user  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.base.tokens import TokenCounter  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.context.budget import BudgetMeter  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.context.deferral import rank  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.tools.base import ToolOutput, ToolSpec  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.tools.context_tools import context_tools  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.tools.registry import ToolRegistry, builtin_tools  # noqa: E402 - imported after the sys.path set-up above

N_TOOLS = 500
TURNS = 300
WINDOW, RESERVE = 200_000, 8_192
VERBS = "list get create update delete search sync export import watch render scan".split()
NOUNS = (
    "issue branch commit file folder ticket invoice user team project page record table "
    "metric alert build deploy secret image volume"
).split()
FILLER = (
    "returns the matching items with their identifiers and timestamps sorted by recency "
    "optionally filtered by owner label or state and paginated with a cursor"
).split()


class Synthetic:
    def __init__(self, spec: ToolSpec) -> None:
        self.spec = spec

    async def run(self, args, ctx) -> ToolOutput:
        return ToolOutput(text="")


def synthetic_tools(rng: random.Random) -> list[Synthetic]:
    out = []
    for i in range(N_TOOLS):
        verb, noun = rng.choice(VERBS), rng.choice(NOUNS)
        words = " ".join(rng.choice(FILLER) for _ in range(rng.randint(20, 90)))
        props = {
            f"{noun}_{k}": {
                "type": rng.choice(["string", "integer", "boolean"]),
                "description": " ".join(rng.choice(FILLER) for _ in range(8)),
            }
            for k in range(rng.randint(1, 4))
        }
        out.append(
            Synthetic(
                ToolSpec(
                    f"srv{i % 10}__{verb}_{noun}_{i}",
                    f"{verb.title()} {noun}s. {words}",
                    {"type": "object", "properties": props, "required": list(props)[:1]},
                    source="mcp",
                )
            )
        )
    return out


def naive_select(specs: list[ToolSpec], counter_text, budget: int, last_used: dict) -> list:
    """The baseline: count every schema afresh, then defer the least recently used."""
    costs = [8 + counter_text(json.dumps(s.schema(), separators=(",", ":"))) for s in specs]
    total = sum(costs)
    order = sorted((last_used.get(s.name, 0), i) for i, s in enumerate(specs) if s.source == "mcp")
    deferred = set()
    for _, i in order:
        if total <= budget:
            break
        deferred.add(i)
        total -= costs[i]
    return [s.schema() for i, s in enumerate(specs) if i not in deferred]


def main() -> None:
    rng = random.Random(9)
    registry = ToolRegistry([*builtin_tools(), *context_tools(), *synthetic_tools(rng)])
    counter = TokenCounter("anthropic/claude-sonnet-4-5")
    meter = BudgetMeter(counter, WINDOW, RESERVE)
    prompts = PromptAssembler(ROOT, registry, counter=counter, meter=meter)
    names = [s.name for s in registry.specs() if s.source == "mcp"]

    history = [user("start")]
    t = time.perf_counter()
    prompts.tool_schemas(history)
    cold = time.perf_counter() - t
    first = prompts.selection
    assert first is not None

    per_turn, cpu, naive, offered_tokens = [], [], [], []
    last_used: dict[str, int] = {}
    specs = registry.specs()
    budget = first.budget
    for turn in range(TURNS):
        history.append(user(f"turn {turn}: do the next thing"))
        offered = [s["function"]["name"] for s in (prompts.selection.schemas if prompts.selection else ())]
        picks = [rng.choice([n for n in offered if "__" in n] or names) for _ in range(2)]
        if turn % 10 == 0:  # now and then the model reaches a deferred tool by search
            found = prompts.search_tools(rng.choice(NOUNS), 3)
            picks.append(found[0].name if found else rng.choice(names))
        calls = tuple(ToolCall(f"c{turn}_{k}", name, "{}") for k, name in enumerate(picks))
        history.append(assistant(None, calls))
        history.extend(tool_result(c, "ok") for c in calls)
        for k, call in enumerate(calls):
            last_used[call.name] = turn * 10 + k
        t, c = time.perf_counter(), time.thread_time()
        schemas = prompts.tool_schemas(history)
        cpu.append(time.thread_time() - c)
        per_turn.append(time.perf_counter() - t)
        offered_tokens.append(counter.count_tools(schemas))
        if turn < 20:  # the baseline is slow: a sample is enough
            t = time.perf_counter()
            naive_select(specs, counter.count_text, budget, last_used)
            naive.append(time.perf_counter() - t)

    t = time.perf_counter()
    for noun in NOUNS:
        rank(f"list {noun}s", [s for s in specs if s.source == "mcp"], 5)
    search = (time.perf_counter() - t) / len(NOUNS)

    med, p95 = statistics.median(per_turn), sorted(per_turn)[int(0.95 * len(per_turn))]
    cpu_p95 = sorted(cpu)[int(0.95 * len(cpu))]
    naive_med = statistics.median(naive)
    all_tokens = first.tokens_all
    after = statistics.median(offered_tokens)
    rows = [
        ("tools (built-in + context + MCP)", f"{len(registry)}", f"{len(names)} MCP"),
        ("effective window / threshold", f"{WINDOW - RESERVE:,} / {budget:,}", "10% share"),
        ("selection per turn (median)", f"{med * 1e3:.3f} ms", "target ≤ 2 ms"),
        ("selection per turn (p95 wall)", f"{p95 * 1e3:.3f} ms", f"over {TURNS} turns"),
        ("selection per turn (p95 CPU time)", f"{cpu_p95 * 1e3:.3f} ms", "wall minus waiting for a busy CPU"),
        ("first selection (counts every schema)", f"{cold * 1e3:.1f} ms", "once per session"),
        (
            "naive re-count per turn (baseline)",
            f"{naive_med * 1e3:.1f} ms",
            f"ratio {naive_med / med:,.0f}× slower",
        ),
        ("tool_search ranking over 500", f"{search * 1e3:.2f} ms", "per query"),
        ("tool-description tokens, all", f"{all_tokens:,}", "baseline: no deferral"),
        ("tool-description tokens, offered", f"{after:,.0f}", f"ratio {after / all_tokens:.2f} of all"),
        ("tools deferred", f"{len(first.deferred)}", "first turn"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure'.ljust(width)}  {'result':>18}  note")
    for name, value, note in rows:
        print(f"{name.ljust(width)}  {value:>18}  {note}")


if __name__ == "__main__":
    main()
