"""`agent-tui sessions …` and `agent-tui blobs …` against a real database file."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from agent_tui.base.messages import ToolCall, assistant, tool_result, user
from agent_tui.frontends.cli import blobs_cmd, sessions_cmd
from agent_tui.store import open_store
from tests.support.pty_run import on_a_pty

ROOT = Path(__file__).resolve().parents[1]

cli = typer.Typer()
cli.add_typer(sessions_cmd.app, name="sessions")
cli.add_typer(blobs_cmd.app, name="blobs")


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def filled(db, seed):
    """What `seed(store)` returns, run against the database at `db` (created if missing)."""

    async def run_seed():
        store = await open_store(db)
        try:
            return await seed(store)
        finally:
            await store.close()

    return asyncio.run(run_seed())


@pytest.fixture
def seeded(tmp_path):
    """A database with one session holding a transcript and one stored output."""
    db = tmp_path / "agent.db"

    async def seed(store):
        s = await store.sessions.create("/work/proj", "openai/gpt-4o-mini")
        ref = await store.results.offload(
            s.id, "bash", "c1", "".join(f"row {i} kiwi\n" for i in range(1, 501))
        )
        call = ToolCall("c1", "bash", '{"command": "make"}')
        await store.sessions.append(
            s.id,
            [user("build it please"), assistant(None, (call,)), tool_result(call, "view", ref)],
            [3, 4, 5],
        )
        return s.id, ref.id

    session_id, ref_id = filled(db, seed)
    return db, session_id, ref_id


class TestSessionsCommand:
    def test_list_piped_is_tab_separated(self, seeded):
        """Piped output is one tab-separated line per session: id, title, project, …"""
        db, session_id, _ = seeded
        result = run("sessions", "list", "--db", str(db))
        assert result.exit_code == 0, result.output
        fields = result.output.strip().split("\t")
        assert fields[:4] == [session_id, "build it please", "/work/proj", "openai/gpt-4o-mini"]
        assert fields[4:6] == ["3", "12"]

    def test_show_lists_messages(self, seeded):
        """show prints one line per message with role, kind and a preview (and the ref)."""
        db, session_id, ref_id = seeded
        result = run("sessions", "show", session_id[:8], "--db", str(db))
        assert result.exit_code == 0, result.output
        lines = result.output.strip().splitlines()
        assert lines[0].split("\t") == ["1", "user", "chat", "build it please"]
        assert "bash(" in lines[1] and ref_id in lines[2]

    def test_export_import_delete(self, seeded, tmp_path):
        """export writes a file, delete removes the session, import brings it back."""
        db, session_id, ref_id = seeded
        out = tmp_path / "s.json"
        assert run("sessions", "export", session_id, "-o", str(out), "--db", str(db)).exit_code == 0
        assert json.loads(out.read_text())["session"]["id"] == session_id
        refused = run("sessions", "delete", session_id, "--db", str(db))
        assert refused.exit_code == 1 and "--yes" in refused.output
        assert run("sessions", "delete", session_id, "--yes", "--db", str(db)).exit_code == 0
        assert run("sessions", "list", "--db", str(db)).output == ""
        imported = run("sessions", "import", str(out), "--db", str(db))
        assert imported.exit_code == 0 and session_id in imported.output
        assert ref_id in run("blobs", "list", "--db", str(db)).output

    def test_import_leaves_the_declared_lookups_out_of_recall(self, tmp_path):
        """`sessions import` indexes the transcript as an append does: a `recall` call's query
        is not searchable afterwards (the command gives the store the tools' declared lookups),
        a `bash` call's command is."""
        db, out = tmp_path / "a.db", tmp_path / "s.json"

        async def seed(store):
            s = await store.sessions.create("/work/proj", "m")
            calls = (
                ToolCall("c1", "recall", '{"query": "zebra"}'),
                ToolCall("c2", "bash", '{"command": "echo okapi"}'),
            )
            await store.sessions.append(s.id, [user("look"), assistant(None, calls)])
            return s.id

        session_id = filled(db, seed)
        assert run("sessions", "export", session_id, "-o", str(out), "--db", str(db)).exit_code == 0
        fresh = tmp_path / "b.db"
        assert run("sessions", "import", str(out), "--db", str(fresh)).exit_code == 0

        async def search(store):
            return [len(await store.transcript.recall(word)) for word in ("zebra", "okapi")]

        assert filled(fresh, search) == [0, 1]

    def test_unknown_session_one_line(self, seeded):
        """A missing session is a one-line error and exit 1, no traceback."""
        db, _, _ = seeded
        result = run("sessions", "show", "s_ffffffffffff", "--db", str(db))
        assert result.exit_code == 1
        assert result.output.strip().startswith("agent-tui: no session id starts with")
        assert "Traceback" not in result.output


class TestBlobsCommand:
    def test_list_show_grep_recall(self, seeded):
        """The blob commands list, page, grep and recall the stored output."""
        db, _, ref_id = seeded
        listed = run("blobs", "list", "--db", str(db))
        fields = listed.output.strip().split("\t")
        assert fields[0] == ref_id and fields[1] == "bash" and fields[3] == "500"
        shown = run("blobs", "show", ref_id, "--offset", "10", "--limit", "2", "--db", str(db))
        assert shown.output.splitlines()[1:3] == ["10\trow 10 kiwi", "11\trow 11 kiwi"]
        grep = run("blobs", "grep", ref_id, r"^row 25\d ", "--db", str(db))
        assert grep.output.splitlines()[1] == "250:row 250 kiwi"
        recall = run("blobs", "recall", "kiwi", "--db", str(db))
        assert f"/{ref_id}:L" in recall.output and "row 1 kiwi" in recall.output

    def test_transcript_ranges_and_conversation_recall(self, seeded):
        """show and grep read a transcript range by URI; recall --conversation finds messages;
        none of it counts as a read of the output."""
        db, session_id, ref_id = seeded
        uri = f"ctx:///work/proj/{session_id}/messages:1-3"
        shown = run("blobs", "show", uri, "--db", str(db))
        assert "#1 user" in shown.output and '→ bash {"command": "make"}' in shown.output
        assert f"#3 tool (bash result, ref={ref_id}, 6.2 KB, 500 lines): view" in shown.output
        assert "#2 assistant: → bash" in run("blobs", "grep", uri, "make", "--db", str(db)).output
        said = run("blobs", "recall", "build", "please", "--conversation", "--db", str(db))
        assert f"ctx:///work/proj/{session_id}/messages:1-1" in said.output and "user" in said.output
        run("blobs", "show", ref_id, "--db", str(db))
        run("blobs", "grep", ref_id, "kiwi", "--db", str(db))
        fields = run("blobs", "list", "--db", str(db)).output.strip().split("\t")
        assert fields[0] == ref_id and fields[7] == "0"  # the access count: no model read

    def test_show_raw_is_byte_exact(self, seeded):
        """--raw writes the stored bytes unchanged."""
        db, _, ref_id = seeded
        result = CliRunner().invoke(cli, ["blobs", "show", ref_id, "--raw", "--db", str(db)])
        assert result.stdout_bytes == "".join(f"row {i} kiwi\n" for i in range(1, 501)).encode()

    def test_gc_dry_run_and_real(self, seeded):
        """gc --dry-run reports without deleting; referenced outputs are kept."""
        db, _, ref_id = seeded
        result = run("blobs", "gc", "--max-size", "0", "--dry-run", "--db", str(db))
        assert result.exit_code == 0 and result.output.startswith("would remove 0 outputs")
        assert "kept 1 still referenced" in result.output

    def test_bad_inputs_are_one_line_errors(self, seeded, tmp_path):
        """Bad refs, regexes, sizes and a non-database file each give one line and exit 1."""
        db, _, ref_id = seeded
        cases = [
            (["blobs", "show", "nonsense"], "is not a ref"),
            (["blobs", "grep", ref_id, "a("], "invalid regular expression"),
            (["blobs", "gc", "--max-size", "lots"], "bad size"),
            (["blobs", "gc", "--older-than", "soon"], "bad age"),
        ]
        for args, message in cases:
            result = run(*args, "--db", str(db))
            assert result.exit_code == 1 and message in result.output, (args, result.output)
            assert len(result.output.strip().splitlines()) == 1
        junk = tmp_path / "junk.db"
        junk.write_text("hello")
        result = run("sessions", "list", "--db", str(junk))
        assert result.exit_code == 1 and str(junk) in result.output
        assert junk.read_text() == "hello"


class TestTerminalOutput:
    def test_rich_table_on_a_terminal(self, seeded):
        """On a real terminal (a pty) the listing is a rich table with a header."""
        db, session_id, _ = seeded
        script = textwrap.dedent(f"""
            import typer
            from agent_tui.frontends.cli import sessions_cmd
            app = typer.Typer()
            app.add_typer(sessions_cmd.app, name="sessions")
            app(["sessions", "list", "--db", {str(db)!r}])
        """)
        env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200", TERM="xterm")
        text = on_a_pty([sys.executable, "-c", script], env)
        assert "Sessions" in text and "messages" in text and session_id in text
        assert "\t" not in text


class TestStartup:
    def test_commands_import_no_store_or_rich(self):
        """Importing the command modules loads neither the store nor rich (fast --help)."""
        code = (
            "import sys, agent_tui.frontends.cli.sessions_cmd, agent_tui.frontends.cli.blobs_cmd;"
            "print(sorted(m for m in ('agent_tui.store', 'rich.console', 'aiosqlite') "
            "if m in sys.modules))"
        )
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            check=True,
        )
        assert out.stdout.strip() == "[]"


class TestParsing:
    def test_sizes_and_ages(self):
        """Sizes and ages parse with their units."""
        assert blobs_cmd.parse_size("2G") == 2 << 30 and blobs_cmd.parse_size("500") == 500
        assert blobs_cmd.parse_age("12h") == timedelta(hours=12)


@pytest.fixture
def two_sessions(tmp_path):
    """A database with one session that has messages and one launch that never got any."""
    db = tmp_path / "s.db"

    async def seed(store):
        used = await store.sessions.create("/work/proj", "openai/m", title="fix it")
        await store.sessions.append(used.id, [user("fix it"), assistant("fixed")])
        empty = await store.sessions.create("/work/proj", "openai/m")
        return used.id, empty.id

    used, empty = filled(db, seed)
    return db, used, empty


def test_list_hides_empty_sessions(two_sessions):
    """The empty session is not listed; the one with messages is."""
    db, used, empty = two_sessions
    result = run("sessions", "list", "--db", str(db))
    assert result.exit_code == 0, result.output
    assert used in result.output and empty not in result.output


def test_list_keeps_a_named_session_without_messages(tmp_path):
    """A session the user named (/rename) before writing to it is listed: only untitled empty
    launches are hidden."""
    db = tmp_path / "n.db"

    async def seed(store):
        named = await store.sessions.create("/work/proj", "openai/m")
        await store.sessions.rename(named.id, "the pelican job")
        return named.id

    named = filled(db, seed)
    result = run("sessions", "list", "--db", str(db))
    assert result.exit_code == 0, result.output
    assert named in result.output and "the pelican job" in result.output


def test_list_all_shows_empty_sessions(two_sessions):
    """--all lists the empty session too."""
    db, used, empty = two_sessions
    result = run("sessions", "list", "--all", "--db", str(db))
    assert result.exit_code == 0, result.output
    assert used in result.output and empty in result.output


def test_limit_counts_only_shown_sessions(two_sessions):
    """-n 1 shows the newest session with messages, not the newer empty one."""
    db, used, empty = two_sessions
    result = run("sessions", "list", "-n", "1", "--db", str(db))
    assert result.exit_code == 0, result.output
    assert used in result.output
