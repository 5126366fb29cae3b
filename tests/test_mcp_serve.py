"""`agent-tui mcp serve`: another agent searches and reads what agent-tui stored, and can do
nothing else.

Each test starts the real command as a subprocess and talks to it with the official MCP SDK's
client over stdio, against a real database seeded through the store's own API.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import pytest

from agent_tui.base.messages import user
from agent_tui.frontends.cli.mcp_serve import SERVED_TOOLS
from agent_tui.store import open_store

SECRET_LINE = "deploy token rotated at step 4711 for cluster ORCA-9"
OTHER_LINE = "unrelated project compiled ORCA-9 firmware"


async def seed(db: Path, mine: Path, theirs: Path) -> dict[str, str]:
    """Two projects, one session each: an output and a user message in each."""
    store = await open_store(db)
    try:
        own = await store.sessions.create(project=mine, model="m", title="rotate the deploy token")
        await store.sessions.append(own.id, [user("please rotate the deploy token on ORCA-9")])
        lines = "\n".join(f"log line {n}" for n in range(1, 400)) + f"\n{SECRET_LINE}\n"
        ref = await store.results.offload(own.id, "bash", "call_1", lines)
        other = await store.sessions.create(project=theirs, model="m", title="firmware")
        other_ref = await store.results.offload(other.id, "bash", "call_2", OTHER_LINE + "\n")
        await store.results.indexer.wait()  # both in the recall index before the server opens
    finally:
        await store.close()
    return {"own": ref.id, "own_session": own.id, "other": other_ref.id}


def access_counts(db: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT id, access_count FROM tool_result_blobs ORDER BY id").fetchall()


class Served:
    """An MCP client session on `agent-tui mcp serve` started with `args` in `cwd`."""

    def __init__(self, db: Path, cwd: Path, *args: str) -> None:
        self.argv = ["-m", "agent_tui", "mcp", "serve", "--db", str(db), *args]
        self.cwd = cwd

    async def __aenter__(self):
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters, stdio_client

        env = {k: v for k, v in os.environ.items() if k.startswith(("AGENT_TUI", "PYTHON", "HOME", "PATH"))}
        params = StdioServerParameters(command=sys.executable, args=self.argv, env=env, cwd=str(self.cwd))
        self._client = Client(stdio_client(params))
        return await self._client.__aenter__()

    async def __aexit__(self, *exc):
        return await self._client.__aexit__(*exc)


def text_of(result) -> str:
    return "\n".join(part.text for part in result.content if getattr(part, "text", None))


@pytest.fixture
def projects(tmp_path: Path) -> tuple[Path, Path, Path]:
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    mine.mkdir()
    theirs.mkdir()
    return tmp_path / "store.db", mine.resolve(), theirs.resolve()


class TestServeTheArchive:
    async def test_recall_then_read_result_returns_the_stored_output(self, projects):
        """A client finds a stored output by words in it and reads the line back whole."""
        db, mine, theirs = projects
        refs = await seed(db, mine, theirs)
        async with Served(db, mine) as client:
            found = text_of(await client.call_tool("recall", {"query": "deploy token rotated"}))
            assert refs["own"] in found
            read = await client.call_tool("read_result", {"ref_id": refs["own"], "offset": 399, "limit": 2})
            assert not read.is_error
            assert SECRET_LINE in text_of(read)
            grepped = await client.call_tool("grep_result", {"ref_id": refs["own"], "pattern": "step \\d+"})
            assert f"400:{SECRET_LINE}" in text_of(grepped)

    async def test_sessions_lists_this_project_and_its_range_reads(self, projects):
        """`sessions` names this project's session with a range that read_result accepts."""
        db, mine, theirs = projects
        refs = await seed(db, mine, theirs)
        async with Served(db, mine) as client:
            listed = text_of(await client.call_tool("sessions", {}))
            assert refs["own_session"] in listed and "firmware" not in listed
            handle = f"{refs['own_session']}/m_1-1"
            assert handle in listed
            said = await client.call_tool("read_result", {"ref_id": handle})
            assert "rotate the deploy token on ORCA-9" in text_of(said)


class TestNothingButReads:
    async def test_the_only_tools_are_the_four_reads(self, projects):
        """A client sees exactly recall, read_result, grep_result and sessions, all read-only."""
        db, mine, theirs = projects
        await seed(db, mine, theirs)
        async with Served(db, mine) as client:
            tools = (await client.list_tools()).tools
            assert sorted(t.name for t in tools) == sorted(SERVED_TOOLS)
            assert all(t.annotations and t.annotations.read_only_hint for t in tools)

    async def test_a_write_attempt_has_no_tool_to_call(self, projects):
        """Calling a tool that would write or run something fails; nothing changes on disk."""
        db, mine, theirs = projects
        await seed(db, mine, theirs)
        target = mine / "written.txt"
        async with Served(db, mine) as client:
            for name, args in (
                ("write_file", {"path": str(target), "content": "x"}),
                ("bash", {"command": f"touch {target}"}),
            ):
                result = await client.call_tool(name, args)
                assert result.is_error
        assert not target.exists()

    async def test_reads_leave_the_access_statistics_alone(self, projects):
        """Another agent's reads are not the model's: access counts do not move."""
        db, mine, theirs = projects
        refs = await seed(db, mine, theirs)
        before = access_counts(db)
        async with Served(db, mine) as client:
            await client.call_tool("read_result", {"ref_id": refs["own"]})
            await client.call_tool("grep_result", {"ref_id": refs["own"], "pattern": "ORCA"})
        assert access_counts(db) == before


class TestScope:
    async def test_another_projects_output_is_not_found(self, projects):
        """Started in one project, the server neither finds nor reads another project's output."""
        db, mine, theirs = projects
        refs = await seed(db, mine, theirs)
        async with Served(db, mine) as client:
            found = text_of(await client.call_tool("recall", {"query": "firmware"}))
            assert refs["other"] not in found
            read = await client.call_tool("read_result", {"ref_id": refs["other"]})
            assert read.is_error and OTHER_LINE not in text_of(read)
            assert "--all-projects" in text_of(read)

    async def test_all_projects_shows_every_project(self, projects):
        """`--all-projects` widens the scope to every project in the database."""
        db, mine, theirs = projects
        refs = await seed(db, mine, theirs)
        async with Served(db, mine, "--all-projects") as client:
            found = text_of(await client.call_tool("recall", {"query": "firmware"}))
            assert refs["other"] in found
            read = await client.call_tool("read_result", {"ref_id": refs["other"]})
            assert OTHER_LINE in text_of(read)

    async def test_project_flag_chooses_the_folder(self, projects):
        """`--project DIR` serves that folder's sessions wherever the server was started."""
        db, mine, theirs = projects
        refs = await seed(db, mine, theirs)
        async with Served(db, mine, "--project", str(theirs)) as client:
            read = await client.call_tool("read_result", {"ref_id": refs["other"]})
            assert OTHER_LINE in text_of(read)
            refused = await client.call_tool("read_result", {"ref_id": refs["own"]})
            assert refused.is_error
