"""`agent-tui run` with every built-in tool against a real llama.cpp server whose window is the
small default of local servers (n_ctx 4 096): a session of pasted logs full of numbers and ids
never has a request refused, every turn is answered. At 8 192 no accepted request passes the
compaction trigger by the server's own count; at 2 048 the run ends in one clear error or works,
never a loop."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from testkit.llama_server import LlamaServer, start_test_server
from tests.support.real_server import MODEL, SERVER_SETTINGS, TEMPLATE, gemma_tokens, log_paste

ROOT = Path(__file__).parents[2]
REPLY = 16
"""`--max-output-tokens`: short replies keep 16 turns to a few minutes on two cores."""
USER_CONFIG = """
[agent]
warn_at = 0.95  # a stable prompt prefix, served from llama.cpp's cache (see QUIET)
[compaction]
summarization = false  # the base model's summaries cost minutes of prompt processing on 2 cores
"""


@dataclass
class Run:
    """One `agent-tui run` turn, from its JSON events."""

    code: int
    events: list[dict] = field(default_factory=list)
    stderr: str = ""

    def of(self, kind: str) -> list[dict]:
        return [e for e in self.events if e.get("type") == kind]

    @property
    def stop_reason(self) -> str | None:
        finished = self.of("turn_finished")
        return finished[-1].get("stop_reason") if finished else None


def agent_run(server: LlamaServer, window: int, db: Path, workspace: Path, prompt: str, first: bool) -> Run:
    args = [
        sys.executable, "-m", "agent_tui", "run", "-", "--json", "--yes",
        "--model", MODEL, "--api-base", server.base_url, "--context-window", str(window),
        "--max-output-tokens", str(REPLY), "--db", str(db),
    ]  # fmt: skip
    if not first:
        args.append("--continue")
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        args, cwd=workspace, input=prompt, capture_output=True, text=True, env=env, timeout=600
    )
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return Run(done.returncode, events, done.stderr)


@pytest.fixture(scope="module")
def llama_8k(tmp_path_factory) -> Iterator[LlamaServer]:
    log_path = tmp_path_factory.mktemp("llama8k") / "server.log"
    server = start_test_server(TEMPLATE.read_text(), n_ctx=8192, log_path=log_path, extra=SERVER_SETTINGS)
    yield server
    server.stop()


def soak(server: LlamaServer, window: int, tmp_path: Path, turns: int, paste_tokens: int) -> list[Run]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    config = Path(os.environ["AGENT_TUI_HOME"]) / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(USER_CONFIG)
    runs = []
    for turn in range(turns):
        prompt = f"Here is log {turn}:\n{log_paste(paste_tokens, seed=turn)}\nWhich request ids failed?"
        runs.append(agent_run(server, window, tmp_path / "agent.db", workspace, prompt, first=turn == 0))
    return runs


def test_log_paste_is_what_tiktoken_undercounts(llama):
    from agent_tui.base.tokens import TokenCounter

    text = log_paste(1200)
    real, ours = gemma_tokens(llama, text), TokenCounter(MODEL).count_text(text)
    assert 1000 < real < 1500 and ours < 0.8 * real, (real, ours)


def requests_of(runs: list[Run]) -> list[int]:
    """The prompt tokens the server reported for every accepted request, in order."""
    usages = [e["usage"] for r in runs for e in r.of("usage")]
    return [u["input"] + u["cache_creation"] + u["cache_read"] for u in usages]


def test_sixteen_turns_at_4096_never_overflow(llama, tmp_path):
    """16 turns of ~350-token log pastes through 4 096 tokens with every built-in tool: no
    request is refused, every turn is answered, and the history is compacted on the way. (Before
    the tools were budgeted: 32 refusals of 32 requests — 4 223 tokens and more. ~400 s on two
    busy cores; 350 tokens a turn keeps it there and still passes the window three times.)"""
    before = llama.overflows()
    started = time.monotonic()
    runs = soak(llama, 4096, tmp_path, 16, 350)
    took = time.monotonic() - started
    summary = [(r.code, r.stop_reason, [e.get("message") for e in r.of("error")]) for r in runs]
    print(f"16 turns at 4096 in {took:.0f} s; prompt tokens by the server: {requests_of(runs)}")
    assert llama.overflows() == before, (llama.errors()[-3:], summary)
    assert all(r.code == 0 and r.stop_reason == "done" and not r.of("error") for r in runs), summary
    assert sum(len(r.of("compaction_finished")) for r in runs) >= 1
    assert max(requests_of(runs)) < 4096


def test_8192_never_accepts_a_request_past_the_compaction_trigger(llama_8k, tmp_path):
    """By the server's own count, no accepted request passes 95% of the effective window."""
    runs = soak(llama_8k, 8192, tmp_path, 6, 1200)
    summary = [(r.code, r.stop_reason, [e.get("message") for e in r.of("error")]) for r in runs]
    assert llama_8k.overflows() == 0, (llama_8k.errors()[-3:], summary)
    assert all(r.code == 0 and r.stop_reason == "done" for r in runs), summary
    trigger = 0.95 * (8192 - REPLY)
    assert max(requests_of(runs)) <= trigger, requests_of(runs)


def test_2048_works_or_says_once_what_to_set(tmp_path):
    """A window hardly bigger than the system prompt and the tools: the turn is answered, or one
    clear error names the part too big — never a loop of refusals."""
    log_path = tmp_path / "server2k.log"
    with start_test_server(
        TEMPLATE.read_text(), n_ctx=2048, log_path=log_path, extra=SERVER_SETTINGS
    ) as server:
        runs = soak(server, 2048, tmp_path, 2, 600)
        overflows = server.overflows()
    for run in runs:
        errors = [e["message"] for e in run.of("error")]
        assert run.stop_reason == "done" and not errors or (len(errors) == 1 and "is too big" in errors[0]), (
            errors
        )
    assert overflows <= 2 * len(runs), overflows
