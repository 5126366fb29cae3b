"""Issue 45 #8: `/review [base]` — a sub-agent reviews the working tree's diff (or the diff
against a base) and the conversation gains only its findings with file:line; the diff itself
never enters the main window. A real git repository, the real app and the local fake server."""

from __future__ import annotations

import json
import re
import subprocess

from agent_tui.core import protocol_events as pe
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, notices, send, settle, until

CHANGED = "    return round(total, 2)  # CHANGED-LINE"
FINDING = "cart.py:2 — medium — rounding to 2 places hides sub-cent totals — keep 4 places"


def repo(path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(path), *args], check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "t@example.org")
    git("config", "user.name", "t")
    (path / "cart.py").write_text("def total(items):\n    return round(total, 1)\n")
    git("add", ".")
    git("commit", "-qm", "start")
    git("tag", "v1")


def responder(body: dict) -> Reply:
    """The child reads the diff by its ref, then reports; the main session just answers."""
    text = json.dumps(body)
    if "You are reviewing a code change" in text and body["messages"][-1]["role"] == "user":
        ref = re.search(r'ref_id=\\"([^"\\]+)\\"', text)
        assert ref is not None, text[:2000]
        return Reply(tool_calls=[("read_result", {"ref_id": ref.group(1)})])
    if "You are reviewing a code change" in text:
        return Reply(text=f"{FINDING}\nOne finding.")
    return Reply(text="noted")


class TestReview:
    async def test_findings_reach_the_conversation_and_the_diff_does_not(self, workspace, tmp_path):
        repo(workspace)
        (workspace / "cart.py").write_text(f"def total(items):\n{CHANGED}\n")
        with FakeOpenAI(window=32_000, responder=responder) as server:
            config = make_config(server, tmp_path / "r.db", cwd=workspace, sandbox={"mode": "off"})
            app = make_app(config, workspace)
            async with app.run_test(size=(120, 36)) as pilot:
                await settle(pilot)
                await send(pilot, "/review v1")
                await until(pilot, lambda: len(server.requests) >= 2 and not app.view.busy, what="the review")
                child = json.dumps(server.requests[-1])
                assert "CHANGED-LINE" in child  # the child read the diff through read_result
                # The `review` operation on the tab's driver, not a worker of the tab's own.
                done = [e for _, e in app.view.driver.log.after(0) if isinstance(e, pe.WorkFinished)]
                assert done == [pe.WorkFinished("review", "done")]
                await send(pilot, "fix what it found")
                await until(pilot, lambda: len(server.requests) >= 3 and not app.view.busy, what="the turn")
            main = json.dumps(server.requests[-1]["messages"], ensure_ascii=False)
        assert "cart.py:2 — medium" in main and "a sub-agent's findings" in main
        assert "CHANGED-LINE" not in main  # the diff stayed out of the main window

    async def test_nothing_to_review_is_said(self, server, workspace, tmp_path):
        repo(workspace)
        app = make_app(make_config(server, tmp_path / "n.db", cwd=workspace), workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/review")
            await until(
                pilot, lambda: "no changes against HEAD" in notices(app) or _chat_has(app), what="notice"
            )
        assert server.requests == []


def _chat_has(app) -> bool:
    from tests.support.ui_helpers import screen_text

    return "no changes against HEAD" in screen_text(app)


async def test_a_projects_own_review_command_replaces_the_builtin(server, workspace, tmp_path):
    """A Claude Code user's `.claude/commands/review.md` stays theirs: /review sends its prompt."""
    from agent_tui.frontends.tui import slash
    from agent_tui.policy import trust

    repo(workspace)
    (workspace / ".claude" / "commands").mkdir(parents=True)
    (workspace / ".claude" / "commands" / "review.md").write_text(
        "---\ndescription: ours\n---\nOUR REVIEW.\n"
    )
    trust.add(workspace)
    server.enqueue(Reply(text="done"))
    app = make_app(make_config(server, tmp_path / "c.db", cwd=workspace), workspace)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "/review")
            await until(pilot, lambda: server.requests and not app.view.busy, what="the turn")
        sent = json.dumps(server.requests[0]["messages"][-1])
        assert "OUR REVIEW." in sent and "You are reviewing a code change" not in sent
    finally:
        slash.set_custom([])


def test_run_review_prints_the_findings_from_one_registry_entry(workspace, tmp_path):
    """`agent-tui run "/review v1"`: the same sub-agent review, its findings printed; the diff
    goes to the child only."""
    from tests.support.cli import flags, run_cli

    repo(workspace)
    (workspace / "cart.py").write_text(f"def total(items):\n{CHANGED}\n")
    with FakeOpenAI(window=32_000, responder=responder) as server:
        done = run_cli(
            ["run", "/review v1", "--yes", "--sandbox", "off", *flags(server, tmp_path / "h.db")], workspace
        )
        assert done.returncode == 0, done.stderr
        assert FINDING in done.stdout
        assert "CHANGED-LINE" in json.dumps(server.requests[-1])  # the child read the diff
        assert "CHANGED-LINE" not in done.stdout


def test_run_review_says_when_there_is_nothing_to_review(server, workspace, tmp_path):
    from tests.support.cli import flags, run_cli

    repo(workspace)
    done = run_cli(["run", "/review", "--sandbox", "off", *flags(server, tmp_path / "e.db")], workspace)
    assert done.returncode == 1 and "no changes against HEAD" in done.stdout
    assert server.requests == []


def test_run_review_yields_to_a_projects_own_review_command(server, workspace, tmp_path):
    from agent_tui.policy import trust
    from tests.support.cli import flags, run_cli

    repo(workspace)
    (workspace / ".claude" / "commands").mkdir(parents=True)
    (workspace / ".claude" / "commands" / "review.md").write_text(
        "---\ndescription: ours\n---\nOUR REVIEW.\n"
    )
    trust.add(workspace)
    server.enqueue(Reply(text="done"))
    done = run_cli(["run", "/review", "--sandbox", "off", *flags(server, tmp_path / "o.db")], workspace)
    assert done.returncode == 0, done.stderr
    assert "OUR REVIEW." in json.dumps(server.requests[0]["messages"][-1])


async def test_an_editor_review_answers_with_the_findings(workspace, tmp_path):
    """/review from an editor (ACP): the registry's effect runs the same review."""
    from tests.support.acp_client import WAIT, open_agent

    repo(workspace)
    (workspace / "cart.py").write_text(f"def total(items):\n{CHANGED}\n")
    with FakeOpenAI(window=32_000, responder=responder) as server:
        async with open_agent(server, tmp_path / "a.db", workspace) as (conn, _proc, client):
            import asyncio

            from acp import text_block

            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            await client.wait_for(lambda: bool(client.of("available_commands_update")))
            names = {c.name for c in client.of("available_commands_update")[0].available_commands}
            assert "review" in names
            client.clear()
            done = await asyncio.wait_for(
                conn.prompt(session_id=new.session_id, prompt=[text_block("/review v1")]), WAIT
            )
            assert done.stop_reason == "end_turn"
            assert FINDING in client.text()
        assert "CHANGED-LINE" in json.dumps(server.requests[-1])


async def test_an_editor_names_an_untrusted_folders_own_review(server, workspace, tmp_path):
    """The editor (ACP) does as the TUI and `run` do with a withheld `.claude/commands/review.md`:
    it names it, never runs the built-in review in its place nor sends `/review` to the model."""
    import asyncio

    from acp import text_block

    from tests.support.acp_client import WAIT, open_agent

    repo(workspace)
    (workspace / ".claude" / "commands").mkdir(parents=True)
    (workspace / ".claude" / "commands" / "review.md").write_text("---\ndescription: ours\n---\nOURS.\n")
    async with open_agent(server, tmp_path / "u.db", workspace) as (conn, _proc, client):
        new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
        await client.wait_for(lambda: bool(client.of("available_commands_update")))
        client.clear()
        done = await asyncio.wait_for(
            conn.prompt(session_id=new.session_id, prompt=[text_block("/review")]), WAIT
        )
        assert done.stop_reason == "end_turn"
        assert "/review is this folder's command (.claude/commands/review.md)" in client.text()
    assert server.requests == []
