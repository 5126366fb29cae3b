"""Start-up speed: how soon the first request leaves, a whole one-tool turn, the live meter.

Run: .venv/bin/python benchmarks/startup.py [--repeat 3]
Targets (issue 19 items 3-4): headless `agent-tui run` launch → first request ≤ 1.0 s; TUI Enter →
first request on turn 1 ≤ 0.3 s (Enter pressed as the first key, and after typing the message key
by key); launch → meter showing a percentage ≤ 1.0 s. Each is measured
on the direct path (`[provider] transport = "auto"`) and on the litellm path (`"litellm"`, the
path before this work) in the same run; `python -c "import litellm"` is printed beside them.

The strict local server runs in its own process (benchmarks/stamp_server.py) and stamps when each
request's first byte arrives (time.time(), same machine). Headless runs are real `agent-tui run`
subprocesses; the TUI runs in a subprocess under Textual's headless driver (run_test), which
records when the meter first shows a percentage and when Enter was pressed.

"First request" is the model's request: a pre-flight count the first turn may send ahead of it
(`/apply-template`, which this server answers 404 like any server that cannot count) is on the
way to it, not it. Before that was told apart, the TUI row timed Enter → the count's arrival.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
AGENT = str(Path(PYTHON).parent / "agent-tui")

TUI_DRIVER = r"""
import asyncio, json, os, sys, time
T0 = float(os.environ["BENCH_T0"])
from agent_tui.frontends.cli.tui import launch_tui  # what `agent-tui` imports first
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from agent_tui.frontends.tui.app import AgentApp
from agent_tui.frontends.tui.widgets.meter import ContextMeter
from agent_tui.frontends.tui.widgets.prompt import PromptInput

async def main():
    config = load_config(rule_words=SHIPPED_WORDS).config
    async def services():
        from agent_tui.compose.factory import build_services
        return await build_services(config)
    app = AgentApp(services, theme_name=config.ui.theme)
    out = {}
    async with app.run_test(size=(120, 40)) as pilot:
        while not any(m.budget is not None for m in app.query(ContextMeter)):
            await asyncio.sleep(0.002)
        out["meter"] = time.time() - T0
        prompt = app.query(PromptInput).first()
        prompt.focus()
        if os.environ.get("BENCH_TYPED"):  # a person typing: about ten keys a second
            for key in "hello there":
                await pilot.press("space" if key == " " else key)
                await asyncio.sleep(0.1)
        else:
            prompt.set_text("hello there")
        out["enter"] = time.time()
        await pilot.press("enter")
        deadline = time.time() + 30
        while time.time() < deadline and not os.path.exists(os.environ["BENCH_DONE"]):
            await asyncio.sleep(0.01)
    print(json.dumps(out))

asyncio.run(main())
"""


class Server:
    """benchmarks/stamp_server.py in its own process (or one already running at `base`)."""

    def __init__(self, base: str | None = None, *, anthropic: bool = False) -> None:
        """The OpenAI chat-completions fake (base ends /v1), or Anthropic's Messages API fake."""
        self.proc: subprocess.Popen[str] | None = None
        if base is None:
            self.proc = subprocess.Popen(
                [
                    PYTHON,
                    str(ROOT / "benchmarks" / "stamp_server.py"),
                    *(["--anthropic"] if anthropic else []),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert self.proc.stdout is not None
            port = int(self.proc.stdout.readline())
            base = f"http://127.0.0.1:{port}" + ("" if anthropic else "/v1")
        self.base = base
        self.port = int(base.rsplit(":", 1)[1].split("/")[0])

    def stamps(self) -> list[dict[str, float]]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stamps") as answer:
            return list(json.loads(answer.read())["stamps"])

    def close(self) -> None:
        if self.proc is not None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(10)


def model_requests(stamps: list[dict[str, float]]) -> list[dict[str, float]]:
    """The model's requests among the arrivals: a session's first turn may first ask the server
    to count it (`/apply-template`, `/messages/count_tokens`), and that is not the request the
    user waits for."""
    return [s for s in stamps if str(s.get("path", "")).endswith(("/chat/completions", "/messages"))]


def home_for(tmp: Path, transport: str, base: str) -> dict[str, str]:
    home = tmp / f"home-{transport}"
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text(
        f'[model]\nname = "openai/fake-model"\napi_base = "{base}"\ncontext_window = 128000\n'
        f'[provider]\ntransport = "{transport}"\n'
    )
    # Byte-compiled as an installed package would be (this machine sets PYTHONDONTWRITEBYTECODE).
    env = {
        k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "PYTHONDONTWRITEBYTECODE"
    }
    env.update({"AGENT_TUI_HOME": str(home), "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    return env


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def headless(server: Server, env: dict[str, str], cwd: Path, prompt: str) -> tuple[float, float, float]:
    """(launch → first request, launch → exit, CPU seconds) of one `agent-tui run --yes PROMPT`."""
    server.stamps()
    cpu = child_cpu()
    start = time.time()
    done = subprocess.run(
        [AGENT, "run", "--yes", prompt], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )
    end = time.time()
    if done.returncode != 0:
        raise SystemExit(f"agent-tui run failed: {done.stderr.strip()}")
    stamps = model_requests(server.stamps())
    return stamps[0]["first_wall"] - start, end - start, child_cpu() - cpu


def tui(
    server: Server, env: dict[str, str], cwd: Path, tmp: Path, *, typed: bool = False
) -> tuple[float, float]:
    """(launch → meter shows a percentage, Enter → first request) of one TUI start: the message
    put in the input whole and Enter pressed at once (the first key), or `typed` key by key as a
    person does, which gives the TUI the typing time to get the first request's way ready."""
    server.stamps()
    done_file = tmp / "tui-done"
    done_file.unlink(missing_ok=True)
    start = time.time()
    proc = subprocess.Popen(
        [PYTHON, "-c", TUI_DRIVER],
        env={
            **env,
            "BENCH_T0": f"{start:.6f}",
            "BENCH_DONE": str(done_file),
            **({"BENCH_TYPED": "1"} if typed else {}),
        },
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 60
    stamps: list[dict[str, float]] = []
    while time.time() < deadline and not stamps:
        time.sleep(0.02)
        stamps = model_requests(server.stamps())  # /stamps forgets what it returned: a count's too
    done_file.write_text("done")
    out, err = proc.communicate(timeout=60)
    if not stamps or proc.returncode != 0:
        raise SystemExit(f"the TUI run failed: {err.strip()[-2000:]}")
    data = json.loads(out.strip().splitlines()[-1])
    return data["meter"], stamps[0]["first_wall"] - data["enter"]


def import_litellm(repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            [PYTHON, "-c", "import litellm"],
            check=True,
            env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    subprocess.run(
        [PYTHON, "-m", "compileall", "-q", str(ROOT / "agent_tui")], check=True, capture_output=True
    )
    server = Server()
    results: dict[str, dict[str, list[float]]] = {}
    try:
        with tempfile.TemporaryDirectory() as name:
            tmp = Path(name)
            work = tmp / "work"
            work.mkdir()
            (work / "notes.txt").write_text("a file to list\n")
            for transport in ("auto", "litellm"):
                env = home_for(tmp, transport, server.base)
                row = results.setdefault(transport, {})
                for _ in range(args.repeat):
                    first, _, cpu = headless(server, env, work, "say hi")
                    row.setdefault("first", []).append(first)
                    row.setdefault("cpu", []).append(cpu)
                    _, whole, _ = headless(server, env, work, "tool: list the files")
                    row.setdefault("turn", []).append(whole)
                    meter, enter = tui(server, env, work, tmp)
                    row.setdefault("meter", []).append(meter)
                    row.setdefault("enter", []).append(enter)
                    _, typed = tui(server, env, work, tmp, typed=True)
                    row.setdefault("typed", []).append(typed)
        litellm_import = import_litellm(args.repeat)
    finally:
        server.close()
    new, old = results["auto"], results["litellm"]
    lines = [
        ("headless launch → first request", "first", "≤ 1.0 s"),
        ("headless one-tool turn (launch → exit)", "turn", ""),
        ("headless `run` CPU seconds (user+sys)", "cpu", ""),
        ("TUI Enter → first request (turn 1)", "enter", "≤ 0.3 s"),
        ("TUI Enter → first request, typed (turn 1)", "typed", "≤ 0.3 s"),
        ("TUI launch → meter shows a %", "meter", "≤ 1.0 s"),
    ]
    print(f"medians of {args.repeat} runs; local server in its own process; load {os.getloadavg()[0]:.1f}")
    print(f"{'measure':42} {'direct':>9} {'litellm':>9} {'ratio':>7}  target")
    for label, key, target in lines:
        a, b = statistics.median(new[key]), statistics.median(old[key])
        print(f"{label:42} {a:8.3f}s {b:8.3f}s {b / a:6.1f}×  {target}")
    label = 'python -c "import litellm"'
    print(f"{label:42} {litellm_import:8.3f}s")


if __name__ == "__main__":
    main()
