"""Budget re-measure vs litellm.token_counter on a 1 500-message (~300k token) conversation.

Run: .venv/bin/python benchmarks/budget.py
Targets (issue 2): re-measure after appending one message ≤ 1 ms median and ≥ 300× faster than
litellm.token_counter on the same conversation; full measure within 2% of tiktoken per-message
sums plus overheads; `agent-tui --help` ≤ 0.3 s, beside `python -c "import litellm"`.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_tui.base.messages import ToolCall, assistant, tool_result, user  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.base.tokens import MESSAGE_OVERHEAD, REPLY_PRIMING, TOOL_CALL_OVERHEAD, TokenCounter  # noqa: E402 - imported after the sys.path set-up above
from agent_tui.context.budget import BudgetMeter  # noqa: E402 - imported after the sys.path set-up above

MODEL = "gpt-4o"
WORDS = (
    "the cart total ignored quantities fixed src cart py tests pass failing assert "
    "error traceback module import def return value config window budget"
).split()
THAI = "การจัดการบริบทเป็นสิ่งสำคัญสำหรับเอเจนต์ "
JAPANESE = "コンテキスト管理はエージェントにとって重要です。"


def synthetic(n: int = 1500, seed: int = 7) -> list:
    rng = random.Random(seed)
    out = []
    i = 0
    while len(out) < n:
        i += 1
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 180)))
        if i % 7 == 0:
            words += " " + (THAI if i % 2 else JAPANESE) * rng.randint(2, 10)
        out.append(user(words))
        call = ToolCall(f"call_{i}", "bash", json.dumps({"command": f"pytest -q tests/t{i}.py"}))
        out.append(assistant(None, (call,)))
        size = rng.randint(400, 4000)
        body = "\n".join(" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(size // 80))
        if i % 5 == 0:
            body += "\n" + JAPANESE * 5
        out.append(tool_result(call, body[:size]))
    return out[:n]


def timed(fn, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times


def wall(cmd: list[str], repeat: int = 5) -> float:
    return statistics.median(timed(lambda: subprocess.run(cmd, capture_output=True, check=True), repeat))


def main() -> None:
    conv = synthetic()
    counter = TokenCounter(MODEL)
    meter = BudgetMeter(counter, 400_000, 8_192)
    full = meter.measure(conv)
    # Reference: tiktoken per message plus the documented overheads, computed independently.
    import tiktoken

    enc = tiktoken.get_encoding("o200k_base")
    ref = REPLY_PRIMING
    for m in conv:
        ref += MESSAGE_OVERHEAD + len(enc.encode_ordinary(m.content or ""))
        for c in m.tool_calls:
            ref += TOOL_CALL_OVERHEAD + len(enc.encode_ordinary(c.name))
            ref += len(enc.encode_ordinary(c.arguments))
        if m.name:
            ref += 1 + len(enc.encode_ordinary(m.name))
    agreement = abs(full.conversation - ref) / ref

    extra = [user(f"follow-up question number {k}, what failed?") for k in range(400)]
    grown = list(conv)
    remeasure = []
    for msg in extra:
        grown.append(msg)
        t = time.perf_counter()
        meter.measure(grown)
        remeasure.append(time.perf_counter() - t)
    re_median = statistics.median(remeasure)

    from agent_tui.llm.lazy import litellm

    lite = litellm()
    wire = [m.to_openai() for m in conv]
    lite_times = timed(lambda: lite.token_counter(model=MODEL, messages=wire), 3)
    lite_median = statistics.median(lite_times)
    lite_count = lite.token_counter(model=MODEL, messages=wire)

    py = sys.executable
    help_wall = wall([py, "-m", "agent_tui", "--help"])
    import_litellm = wall(
        [py, "-c", "import os; os.environ['LITELLM_LOCAL_MODEL_COST_MAP']='True'; import litellm"], 3
    )

    rows = [
        (
            "messages / tokens (ours, litellm)",
            f"{len(conv)} / {full.conversation:,}",
            f"litellm {lite_count:,}",
        ),
        ("full measure vs tiktoken sum", f"{agreement:.3%} apart", "target ≤ 2%"),
        ("re-measure after append (median)", f"{re_median * 1e3:.3f} ms", "target ≤ 1 ms"),
        ("litellm.token_counter (median)", f"{lite_median * 1e3:.1f} ms", "baseline"),
        ("speed-up vs litellm", f"{lite_median / re_median:,.0f}×", "target ≥ 300×"),
        ("agent-tui --help wall", f"{help_wall:.3f} s", "target ≤ 0.3 s"),
        (
            "python -c 'import litellm' wall",
            f"{import_litellm:.3f} s",
            f"ratio {import_litellm / help_wall:.1f}×",
        ),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure'.ljust(width)}  {'result':>22}  note")
    for name, value, note in rows:
        print(f"{name.ljust(width)}  {value:>22}  {note}")


if __name__ == "__main__":
    main()
