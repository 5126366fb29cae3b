"""Nothing said is lost: a fact typed in plain chat, dropped by several compactions, is found
again by the model through `recall` and `read_result` on the range the compaction named.

Real `agent-tui run` subprocesses, the strict local server in a 16 384 window, a real database.
The scripted model never sees the fact in its window when asked: it can only answer by
searching, so the answer holding it shows the way back works end to end.
"""

from __future__ import annotations

import json
import re

import pytest

from agent_tui.runtime import paths
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.cli import flags, run_cli

FACT = "ZEBRA-7431-KILO"
WINDOW = 16_384
RANGE = re.compile(r"m_\d+-\d+")


def is_summary_request(body: dict) -> bool:
    return not body.get("tools") and "<conversation>" in json.dumps(body)


class Model:
    """A scripted model: acknowledges the fact, runs big listings when asked, summarises without
    the fact, and answers the question only from what its own recall and read_result return."""

    def __init__(self, steps: int = 9, rows: int = 1200) -> None:
        self.steps = steps
        self.rows = rows
        self.listed = 0
        self.asked: list[dict] = []
        """Requests made while answering the question (before any tool result came back)."""

    def __call__(self, body: dict) -> Reply:
        if is_summary_request(body):
            return Reply(
                text="<retain>listing refs are in the notes</retain><summary>Ran listings.</summary>"
            )
        messages = body["messages"]
        last = messages[-1]
        question = next(m["content"] for m in reversed(messages) if m["role"] == "user" and m.get("content"))
        if last["role"] == "user" and "remember" in str(last["content"]).lower():
            return Reply(text="Noted.")
        if "listings" in str(question):
            if self.listed < self.steps:
                self.listed += 1
                cmd = f"seq 1 {self.rows} | sed 's/^/listing row {self.listed:02d} /'"
                return Reply(tool_calls=[("bash", {"command": cmd})])
            return Reply(text="Listed.")
        if last["role"] == "user":
            self.asked.append(body)
            return Reply(tool_calls=[("recall", {"query": "deploy code", "scope": "session"})])
        if last.get("name") == "recall" or "message(s) match" in str(last["content"]):
            found = RANGE.search(str(last["content"]))
            assert found, last["content"]
            return Reply(tool_calls=[("read_result", {"ref_id": found.group(0)})])
        code = re.search(r"deploy code is ([A-Z0-9-]+)", str(last["content"]))
        return Reply(text=f"The deploy code is {code.group(1)}." if code else "I could not find it.")


def write_user_config(text: str) -> None:
    path = paths.user_config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def run_json(prompt: str, server: FakeOpenAI, db, workspace, *extra: str) -> list[dict]:
    done = run_cli(
        ["run", prompt, "--yes", "--json", *extra, *flags(server, db, window=server.window)], workspace
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def compactions(events: list[dict]) -> list[dict]:
    return [e for e in events if e["type"] == "compaction_finished"]


@pytest.mark.parametrize(
    ("strategies", "expected"),
    [
        ("summarization = true\ntruncation = true\n", "summarization"),
        ("summarization = false\ntruncation = true\n", "truncation"),
    ],
    ids=["summary", "truncation-only"],
)
def test_fact_from_turn_one_is_recalled_after_compactions(workspace, tmp_path, strategies, expected):
    """Turn 1 states a fact; listings force several compactions that drop it (summaries never
    mention it); asked later, the model finds it with recall + read_result and answers with it."""
    # Clearing and pruning off so the chain must drop messages; no verbatim user messages, so the
    # fact can only come back through the transcript.
    write_user_config(
        "[compaction]\ntool_clearing = false\npruning = false\nkeep_user_messages_tokens = 0\n" + strategies
    )
    model = Model(steps=20)
    db = tmp_path / "recall.db"
    # Wide enough that no listing passes a quarter of it (in a smaller one the step in flight is
    # cut to its head and nothing needs compacting), with listings enough to compact twice.
    with FakeOpenAI(window=WINDOW, responder=model) as server:
        first = run_json(f"Please remember: the deploy code is {FACT}.", server, db, workspace)
        assert first[-1]["text"] == "Noted."
        work = run_json("Now run the listings.", server, db, workspace, "--continue")
        done = compactions(work)
        assert len(done) >= 2, [e["type"] for e in work]
        assert all(expected in c["result"]["strategies"] for c in done)
        assert done[0]["result"]["replaced"][0] == 1
        answer = run_json("What is the deploy code?", server, db, workspace, "--continue")

        assert answer[-1]["text"] == f"The deploy code is {FACT}."
        # When asked, the window no longer held the fact, but it named the way back.
        asked = json.dumps(model.asked[-1]["messages"])
        assert FACT not in asked
        assert 'read_result(ref_id=\\"m_1-' in asked
        for body in server.requests:
            assert server.prompt_tokens_of(body) + body.get("max_tokens", 0) <= WINDOW


def test_newest_user_messages_survive_a_summary_verbatim(workspace, tmp_path):
    """With keep_user_messages_tokens (default on), the retain block carries the user's own
    words: the fact stays in the window through the same compactions."""
    write_user_config("[compaction]\ntool_clearing = false\npruning = false\n")
    model = Model(rows=120)  # steps small enough that a summary alone fits the window
    db = tmp_path / "keep.db"
    # The room the compactions were tuned for, now that the built-ins go brief (~1 300 tokens
    # instead of ~3 000 at this size).
    with FakeOpenAI(window=6400, responder=model) as server:
        run_json(f"Please remember: the deploy code is {FACT}.", server, db, workspace)
        work = run_json("Now run the listings.", server, db, workspace, "--continue")
        done = compactions(work)
        assert len(done) >= 2 and all(c["result"]["strategies"] == ["summarization"] for c in done), [
            c["result"]["strategies"] for c in done
        ]
        last = server.requests[-1]["messages"]
        retain = next(m for m in last if "Kept verbatim" in str(m.get("content")))
        assert f"\nuser: Please remember: the deploy code is {FACT}.\n" in retain["content"]
