"""The way back is short: after 30 turns of large outputs in an 8 192 window, a detail of an early
output comes back in at most two tool calls (recall → grep), with truncation only and with
summarisation.

Real `agent-tui run` (in-process through typer, to keep 30+ turns affordable), the strict local
server, a real database and real bash. The scripted model behaves like a reasonable one: it only
uses refs, ranges and labels it can read in the request it was sent, and follows the trail a hit
or a page shows it, counting its calls.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent_tui.runtime import paths
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.cli import flags

TURNS = 30
LOG_LINES = 420
REF = re.compile(r"\br_[0-9a-f]{10}\b")
RANGE = re.compile(r"\bm_\d+-\d+\b")
NEEDLE = re.compile(r"needle: (\S+)")


def needle(step: int) -> str:
    return f"NDL-{step:03d}-{(step * 7919) % 10007:05d}"


def write_logs(workspace: Path) -> None:
    """20 KB logs whose needle sits in the middle, where no head-and-tail view shows it."""
    for step in range(1, TURNS + 1):
        rows = [
            f"{step:03d}.{i:04d} worker ok processed batch {i} of step {step} in 12 ms"
            for i in range(LOG_LINES)
        ]
        rows[LOG_LINES // 2] = f"{step:03d}.mid needle: {needle(step)}"
        (workspace / f"step_{step:03d}.log").write_text("\n".join(rows) + "\n")


def text_of(body: dict) -> str:
    """Everything the model was sent, as text (messages and tool-call arguments)."""
    return "\n".join(
        str(m.get("content") or "") + "".join(json.dumps(c) for c in m.get("tool_calls") or [])
        for m in body["messages"]
    )


class Model:
    """Inspects one log per turn; asked about a log, it greps a ref its request labels with that
    log's name, else recalls the name and follows the hit: a ref on a line naming the log, else
    a transcript range it pages through (the long way)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []
        """Tool calls made while answering the question."""
        self.asking = False

    def __call__(self, body: dict) -> Reply:
        if not body.get("tools"):  # the summariser: a reasonable summary that names no log
            return Reply(text="<retain></retain><summary>The user had logs inspected one by one.</summary>")
        messages = body["messages"]
        last = messages[-1]
        newest = next(m["content"] for m in reversed(messages) if m["role"] == "user" and m["content"])
        # What the user typed is the last paragraph: a compaction note can merge in before it,
        # and the context-status note after it.
        question = [p for p in str(newest).split("\n\n") if not p.startswith("[Context:")][-1]
        step = re.search(r"^step (\d+): inspect (step_\d+\.log)$", question)
        if step:
            if last["role"] == "user":
                return Reply(tool_calls=[("bash", {"command": f"cat {step.group(2)}"})])
            return Reply(text=f"Inspected step {step.group(1)}.")
        asked = re.search(r"(step_\d+\.log)", question)
        assert asked, question
        name = asked.group(1)
        if last["role"] == "tool":
            found = NEEDLE.search(str(last["content"]))
            if found:
                return Reply(text=f"The needle was {found.group(1)}.")
        if len(self.calls) >= 6:
            return Reply(text="I could not find it.")
        call = self.next_call(name, last, text_of(body))
        self.calls.append(call)
        return Reply(tool_calls=[call])

    def next_call(self, name: str, last: dict, sent: str) -> tuple[str, dict]:
        labelled = labelled_ref(sent if not self.calls else str(last["content"]), name)
        if labelled:
            return ("grep_result", {"ref_id": labelled, "pattern": "needle"})
        if not self.calls:
            return ("recall", {"query": name, "scope": "session"})
        ranges = RANGE.findall(str(last["content"]))
        if ranges:  # page on: a footer names where the rest is
            offset = re.search(r"offset=(\d+)", str(last["content"]))
            args: dict = {"ref_id": ranges[-1]}
            if offset and last.get("name") == "read_result":
                args["offset"] = int(offset.group(1))
            return ("read_result", args)
        refs = REF.findall(str(last["content"]))
        return ("grep_result", {"ref_id": refs[-1] if refs else "r_0000000000", "pattern": "needle"})


def labelled_ref(text: str, name: str) -> str | None:
    """A ref on the same line as the log's name (a label, a hit naming its output)."""
    for line in text.splitlines():
        if name in line:
            refs = REF.findall(line)
            if refs:
                return refs[0]
    return None


def run(prompt: str, server: FakeOpenAI, db: Path, *extra: str) -> list[dict]:
    result = CliRunner().invoke(
        _app(), ["run", prompt, "--yes", "--json", *extra, *flags(server, db, window=8192)]
    )
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def _app():
    from agent_tui.frontends.cli.main import app

    return app


@pytest.mark.parametrize(
    ("strategies", "expected"),
    [
        ("summarization = false\n", "truncation"),
        ("summarization = true\n", "summarization"),
    ],
    ids=["truncation-only", "summary"],
)
def test_early_output_detail_in_two_calls(workspace, tmp_path, monkeypatch, strategies, expected):
    """Thirty turns of 20 KB logs in an 8 192 window; asked for step 3's needle, the model gets
    it in at most two tool calls, using only what its requests showed it."""
    paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.user_config_file().write_text("[compaction]\ntool_clearing = false\npruning = false\n" + strategies)
    write_logs(workspace)
    monkeypatch.chdir(workspace)
    model = Model()
    db = tmp_path / "trail.db"
    ran: set[str] = set()
    with FakeOpenAI(window=8192, responder=model) as server:
        for step in range(1, TURNS + 1):
            more = ["--continue"] if step > 1 else []
            events = run(f"step {step}: inspect step_{step:03d}.log", server, db, *more)
            for e in events:
                if e["type"] == "compaction_finished":
                    ran.update(e["result"]["strategies"])
        assert expected in ran, ran
        answer = run("What was the needle in step 3's log (step_003.log)?", server, db, "--continue")
        for body in server.requests:
            assert server.prompt_tokens_of(body) + body.get("max_tokens", 0) <= 8192

    assert answer[-1]["text"] == f"The needle was {needle(3)}.", model.calls
    assert len(model.calls) <= 2, model.calls
