"""Loop mode's scripted model and the headless `loop` command line the loop tests share."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from testkit.fake_openai import FakeOpenAI, Reply
from tests.support import cli

ITERATION = re.compile(r"# Autonomous loop · iteration (\d+)")


COVERS = re.compile(r"Write the summary of iterations (\d+)–(\d+)")


SUMMARY_MARK = "You keep the memory of an autonomous loop"


def is_loop_summary(body: dict) -> bool:
    return not body.get("tools") and SUMMARY_MARK in body["messages"][-1]["content"]


def filler(n: int, words: int) -> str:
    """Token-dense text, different for every iteration."""
    return " ".join(f"w{n}x{i % 53}" for i in range(words))


@dataclass
class Logged:
    kind: str
    """iteration / summary / summary_failed."""
    body: dict
    number: int = 0
    """The iteration number (iteration requests)."""
    covers: tuple[int, int] = (0, 0)
    """The range a summary request asked for."""
    reply: str = ""


@dataclass
class LoopModel:
    """The responder. Every knob is about the iteration number it reads from the prompt."""

    tool_every: int = 3
    """Iterations divisible by this first call bash to write step_N.txt."""
    words: int = 900
    """Words of output per iteration (long enough to be cut everywhere)."""
    complete_at: int | None = None
    markers_until: int | None = None
    """After this iteration the model only repeats its first marker (no new progress)."""
    empty_at: tuple[int, ...] = ()
    error_at: int | None = None
    """This iteration's model call gets a 401 (a failure no retry fixes)."""
    failing_command: str | None = None
    """When set, every iteration first runs this (failing) command."""
    fail_summary: Callable[[int, int], bool] = lambda first, last: False
    log: list[Logged] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, body: dict) -> Reply:
        with self.lock:
            if is_loop_summary(body):
                return self._summary(body)
            return self._iteration(body)

    def _summary(self, body: dict) -> Reply:
        first, last = map(int, COVERS.search(body["messages"][-1]["content"]).groups())
        if self.fail_summary(first, last):
            self.log.append(Logged("summary_failed", body, covers=(first, last)))
            return Reply(status=500, retry_after=0)
        version = sum(1 for e in self.log if e.kind == "summary") + 1
        text = (
            f"Memory v{version} of iterations {first}–{last}. Decisions: one step per "
            f"iteration. Worked: steps {first} to {last}. Failed: nothing yet. State: "
            f"step files written. Next: step {last + 1}."
        )
        self.log.append(Logged("summary", body, covers=(first, last), reply=text))
        return Reply(text=text)

    def _iteration(self, body: dict) -> Reply:
        prompt = body["messages"][1]["content"]
        n = int(ITERATION.search(prompt).group(1))
        last = body["messages"][-1]
        if last["role"] == "user":
            self.log.append(Logged("iteration", body, number=n))
        if n in self.empty_at:
            return Reply(text="")
        if n == self.error_at:
            return Reply(status=401)
        if last["role"] == "user" and self.failing_command:
            return Reply(tool_calls=[("bash", {"command": self.failing_command})])
        if last["role"] == "user" and self.tool_every and n % self.tool_every == 0:
            return Reply(tool_calls=[("bash", {"command": f"printf 'step {n}\\n' > step_{n}.txt"})])
        new = self.markers_until is None or n <= self.markers_until
        marker = f"<progress>step {n} done</progress>" if new else "<progress>step 1 done</progress>"
        done = "\n<promise>COMPLETE</promise>" if n == self.complete_at else ""
        return Reply(
            text=f"Iteration {n} report. {filler(n, self.words)}\n{marker}{done}", words_per_chunk=200
        )

    def of(self, kind: str) -> list[Logged]:
        return [e for e in self.log if e.kind == kind]


def run_loop_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", "loop", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def flags(server: FakeOpenAI, db: Path) -> list[str]:
    """`run`'s flags for the local server, and --yes: a loop runs unattended."""
    return [*cli.flags(server, db), "--yes"]
