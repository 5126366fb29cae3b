"""A tool result carries how its call ended (a code), and a resumed chat or an editor's replay reads
the code, not the result's text: an output that happens to say `Permission denied` is no denial."""

from __future__ import annotations

import asyncio
import json
import sqlite3

from agent_tui.base.messages import Message, ToolCall, tool_result
from agent_tui.frontends.acp.replay import replay
from agent_tui.frontends.tui.transcript import ToolEntry, entries_from_history
from agent_tui.store import open_store
from testkit.fake_openai import Reply
from tests.support.cli import flags, run_cli, stored_transcript

SAYS_DENIED = "printf 'Permission denied (publickey).\\n'"


def tool_lines(messages: list[Message]) -> list[ToolEntry]:
    return [e for e in entries_from_history(messages) if isinstance(e, ToolEntry)]


def replayed_statuses(messages: list[Message]) -> list[str]:
    return [u.status for u in replay(messages) if getattr(u, "session_update", "") == "tool_call_update"]


class TestTheCodeIsRead:
    def test_an_output_saying_permission_denied_is_not_a_denial_after_resume(
        self, server, workspace, tmp_path
    ):
        """A command that ran and printed `Permission denied …` reads ok after resume and in the
        editor's replay; a call the user refused reads denied in both."""
        db = tmp_path / "o.db"
        server.enqueue(Reply(tool_calls=[("bash", {"command": SAYS_DENIED})]), Reply(text="ran it"))
        first = run_cli(["run", "try ssh", "--yes", "--json", *flags(server, db)], workspace)
        assert first.returncode == 0, first.stderr
        session_id = json.loads(first.stdout.splitlines()[-1])["session_id"]
        server.enqueue(Reply(tool_calls=[("bash", {"command": "rm -rf build"})]), Reply(text="could not"))
        second = run_cli(["run", "clean", "--continue", *flags(server, db)], workspace)
        assert second.returncode == 0, second.stderr

        messages = stored_transcript(db, session_id)
        results = [m for m in messages if m.role == "tool"]
        assert [m.outcome for m in results] == ["ok", "denied"]
        assert (results[0].content or "").startswith("Permission denied (publickey).")
        ran, refused = tool_lines(messages)
        assert ran.state == "ok" and ran.detail != "denied"
        assert refused.state == "error" and refused.detail == "denied"
        assert replayed_statuses(messages) == ["completed", "failed"]

    async def test_the_code_survives_export_and_import(self, tmp_path):
        """The code lives in the message's stored JSON: an exported session imported elsewhere
        keeps each result's code, whatever its text says."""
        call = ToolCall("c1", "bash", '{"command": "x"}')
        refused = ToolCall("c2", "write_file", '{"path": "a"}')
        history = [
            Message(role="user", content="go"),
            Message(role="assistant", content=None, tool_calls=(call, refused)),
            tool_result(call, "Permission denied (publickey).", outcome="ok"),
            tool_result(refused, "the user said no", outcome="denied"),
        ]
        async with await open_store(tmp_path / "a.db") as store:
            session = await store.sessions.create(str(tmp_path), "m")
            await store.sessions.append(session.id, history)
            exported = await store.sessions.export(session.id, tmp_path / "s.json")
        async with await open_store(tmp_path / "b.db") as other:
            await other.sessions.import_(exported)
            back = await other.sessions.transcript(session.id)
        assert [m.outcome for m in back if m.role == "tool"] == ["ok", "denied"]
        assert [(e.state, e.detail) for e in tool_lines(back)][1] == ("error", "denied")
        assert tool_lines(back)[0].state == "ok"


class TestTheLiveEventCarriesTheCode:
    def test_json_tool_call_finished_says_how_the_call_ended(self, server, workspace, tmp_path):
        """`run --json`'s tool_call_finished carries `outcome`; `--output-format json` lists the
        refused call among its permission denials by that code, not by the summary's text."""
        db = tmp_path / "j.db"
        (workspace / ".agent-tui.toml").write_text('[tools]\nallow = ["bash:printf"]\n')
        calls = [("bash", {"command": SAYS_DENIED}), ("write_file", {"path": "a.txt", "content": "x"})]
        server.enqueue(Reply(tool_calls=calls))  # the denial ends the turn: no second reply
        out = run_cli(["run", "go", "--json", "--trust", *flags(server, db)], workspace)
        assert out.returncode == 0, out.stderr
        finished = [json.loads(line) for line in out.stdout.splitlines() if '"tool_call_finished"' in line]
        assert [(e["call"]["name"], e["outcome"]) for e in finished] == [
            ("bash", "ok"),
            ("write_file", "denied"),
        ]

        server.enqueue(Reply(tool_calls=calls))
        claude = run_cli(["run", "go", "--output-format", "json", "--trust", *flags(server, db)], workspace)
        assert claude.returncode == 0, claude.stderr
        denials = json.loads(claude.stdout)["permission_denials"]
        assert [d["tool_name"] for d in denials] == ["write_file"]


class TestOldRowsKeepWorking:
    def test_a_row_written_before_codes_is_read_by_its_text(self, tmp_path):
        """A transcript row from before the code (no `outcome` in its JSON) still reads denied,
        cancelled or ok as it did."""
        db = tmp_path / "old.db"
        call = ToolCall("c1", "edit_file", '{"path": "a.txt"}')
        cut = ToolCall("c2", "bash", '{"command": "sleep 9"}')
        fine = ToolCall("c3", "bash", '{"command": "true"}')
        history = [
            Message(role="user", content="go"),
            Message(role="assistant", content=None, tool_calls=(call, cut, fine)),
            tool_result(call, "Permission denied by the user for edit_file: a.txt."),
            tool_result(cut, "[cancelled by the user before it finished]"),
            tool_result(fine, "(no output)"),
        ]

        async def write() -> str:
            store = await open_store(db)
            try:
                session = await store.sessions.create(str(tmp_path), "m")
                await store.sessions.append(session.id, history)
                return session.id
            finally:
                await store.close()

        session_id = asyncio.run(write())
        with sqlite3.connect(db) as raw:  # as an older agent-tui wrote them: no code at all
            rows = raw.execute("SELECT json FROM messages WHERE role = 'tool'").fetchall()
        assert all("outcome" not in json.loads(row[0]) for row in rows)
        messages = stored_transcript(db, session_id)
        assert [(e.state, e.detail == "denied") for e in tool_lines(messages)] == [
            ("error", True),
            ("cancelled", False),
            ("ok", False),
        ]
        assert replayed_statuses(messages) == ["failed", "failed", "completed"]
