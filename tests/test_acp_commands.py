"""Slash commands from the editor's prompt box: every command `available_commands_update` offers
works over ACP, its output arriving as an agent message (the model is not asked unless the
command is a prompt: custom commands). One test per family: reports, changes to the files,
changes to the session (/clear, /model), notes and settings, custom commands with arguments."""

from __future__ import annotations

import asyncio
import json

from acp import text_block

from agent_tui.runtime import paths
from testkit.fake_openai import Reply
from tests.support.acp_client import WAIT, open_agent, sessions_list

OFFERED = {
    "compact", "context", "cost", "status", "clear", "model", "tools", "memory", "undo", "diff",
    "hooks", "remember", "rename", "skill", "init", "effort",
}  # fmt: skip

REVIEW = """---
description: Review one area
argument-hint: AREA
---
Review the $ARGUMENTS code, starting with $1.
"""


def prompt(conn, session_id: str, text: str):
    return asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block(text)]), WAIT)


async def answer(conn, client, session_id: str, text: str) -> str:
    """The agent's message for one prompt (the updates before it cleared)."""
    client.clear()
    done = await prompt(conn, session_id, text)
    assert done.stop_reason == "end_turn"
    return client.text()


async def new_session(conn, client, workspace) -> str:
    new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
    await client.wait_for(lambda: bool(client.of("available_commands_update")))
    return new.session_id


class TestOffered:
    async def test_every_editor_command_and_custom_commands_are_offered(self, server, workspace, tmp_path):
        """available_commands_update lists our editor commands with their hints, and the user's
        Markdown commands with their argument hint and description."""
        folder = paths.config_dir() / "commands"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "review.md").write_text(REVIEW)
        async with open_agent(server, tmp_path / "o.db", workspace) as (conn, _proc, client):
            await new_session(conn, client, workspace)
            offered = {c.name: c for c in client.of("available_commands_update")[0].available_commands}
        assert OFFERED <= set(offered)
        assert {"quit", "theme", "resume", "blobs"}.isdisjoint(offered)  # screens: the TUI's
        review = offered["review"]
        assert review.description.startswith("Review one area") and review.input.root.hint == "AREA"
        assert offered["model"].input.root.hint and offered["undo"].input.root.hint


class TestReports:
    async def test_status_cost_tools_memory_hooks_answer_in_the_chat(self, server, workspace, tmp_path):
        """/status, /cost, /tools, /memory and /hooks each answer with their report as a message;
        none of them asks the model."""
        server.enqueue(Reply(text="hello"))
        async with open_agent(server, tmp_path / "r.db", workspace) as (conn, _proc, client):
            session_id = await new_session(conn, client, workspace)
            await prompt(conn, session_id, "hi")
            status = await answer(conn, client, session_id, "/status")
            assert "openai/fake-model" in status and session_id in status and "Sandbox" in status
            cost = await answer(conn, client, session_id, "/cost")
            assert "Input" in cost and "Output" in cost and "tokens" in cost
            tools = await answer(conn, client, session_id, "/tools")
            assert "bash" in tools and "read_file" in tools and "tok" in tools
            memory = await answer(conn, client, session_id, "/memory")
            assert "Memories" in memory and "Skills" in memory
            hooks = await answer(conn, client, session_id, "/hooks")
            assert "Hooks" in hooks and "no hooks configured" in hooks
        assert len(server.requests) == 1


class TestFiles:
    async def test_diff_then_undo_put_the_file_back(self, server, workspace, tmp_path):
        """/diff shows what the session changed; /undo puts the file back and the model's next
        request carries the note that it did."""
        (workspace / "notes.txt").write_text("old line\n")
        server.enqueue(
            Reply(tool_calls=[("write_file", {"path": "notes.txt", "content": "new line\n"})]),
            Reply(text="edited"),
            Reply(text="noted"),
        )
        async with open_agent(server, tmp_path / "f.db", workspace, "--sandbox", "off") as (
            conn,
            _proc,
            client,
        ):
            session_id = await new_session(conn, client, workspace)
            client.answers = ["allow_once"]
            await prompt(conn, session_id, "edit notes")
            diff = await answer(conn, client, session_id, "/diff")
            assert "notes.txt" in diff and "-old line" in diff and "+new line" in diff
            undone = await answer(conn, client, session_id, "/undo")
            assert "notes.txt" in undone
            assert (workspace / "notes.txt").read_text() == "old line\n"
            await prompt(conn, session_id, "what happened?")
        assert "undid file changes" in json.dumps(server.requests[-1]["messages"])


class TestSession:
    async def test_clear_starts_a_new_conversation_behind_the_same_editor_session(
        self, server, workspace, tmp_path
    ):
        """/clear: the editor keeps its session id, the next prompt goes out without the earlier
        conversation, and both stored sessions are listed."""
        db = tmp_path / "c.db"
        server.enqueue(Reply(text="first answer"), Reply(text="fresh answer"))
        async with open_agent(server, db, workspace) as (conn, _proc, client):
            session_id = await new_session(conn, client, workspace)
            await prompt(conn, session_id, "remember the word pelican")
            cleared = await answer(conn, client, session_id, "/clear")
            assert "new conversation" in cleared.lower()
            assert "fresh answer" in await answer(conn, client, session_id, "anything?")
        assert "pelican" not in json.dumps(server.requests[-1]["messages"])
        listing = sessions_list(db, workspace)
        assert session_id in listing and listing.count("s_") >= 2

    async def test_model_shows_and_switches_the_sessions_model(self, server, workspace, tmp_path):
        """/model alone names the model; /model NAME sends the next request to that model, with
        the conversation kept."""
        server.enqueue(Reply(text="first answer"))
        async with open_agent(server, tmp_path / "m.db", workspace) as (conn, _proc, client):
            session_id = await new_session(conn, client, workspace)
            await prompt(conn, session_id, "remember the word pelican")
            assert "openai/fake-model" in await answer(conn, client, session_id, "/model")
            switched = await answer(conn, client, session_id, "/model openai/other-model")
            assert "openai/other-model" in switched
            await prompt(conn, session_id, "still there?")
        assert server.requests[-1]["model"] == "other-model"
        assert "pelican" in json.dumps(server.requests[-1]["messages"])


class TestNotes:
    async def test_remember_rename_init_effort_skill(self, server, workspace, tmp_path):
        """/remember saves a memory, /rename titles the stored session, /init writes AGENTS.md,
        /effort and /skill answer, /skill NAME loads one, /memory rules shows the rules file (an editor
        has no $EDITOR to hand over); each says what it did in the chat."""
        from agent_tui.context.memory import memories_file
        from tests.support.skills import write_skill

        write_skill(paths.config_dir() / "skills")
        db = tmp_path / "n.db"
        async with open_agent(server, db, workspace) as (conn, _proc, client):
            session_id = await new_session(conn, client, workspace)
            assert "Remembered" in await answer(conn, client, session_id, "/remember tabs are 4 wide")
            assert "Renamed" in await answer(conn, client, session_id, "/rename the pelican job")
            assert "AGENTS.md" in await answer(conn, client, session_id, "/init")
            assert "Reasoning" in await answer(conn, client, session_id, "/effort")
            assert "Skills" in await answer(conn, client, session_id, "/skill")
            assert "db-migrations active" in await answer(conn, client, session_id, "/skill db-migrations")
            rules = await answer(conn, client, session_id, "/memory rules")
            assert "AGENTS.md" in rules and "## Notes for the agent" in rules
        assert "tabs are 4 wide" in memories_file().read_text()
        assert (workspace / "AGENTS.md").is_file()
        listing = sessions_list(db, workspace)
        assert "the pelican job" in listing
        assert server.requests == []


class TestCustom:
    async def test_a_custom_command_with_arguments_expands_into_the_prompt(self, server, workspace, tmp_path):
        """`/review auth module` from the editor sends the command file's body with the
        arguments in place, as the TUI and `run` do."""
        folder = paths.config_dir() / "commands"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "review.md").write_text(REVIEW)
        server.enqueue(Reply(text="reviewed"))
        async with open_agent(server, tmp_path / "x.db", workspace) as (conn, _proc, client):
            session_id = await new_session(conn, client, workspace)
            assert "reviewed" in await answer(conn, client, session_id, "/review auth module")
        sent = [m for m in server.requests[0]["messages"] if m["role"] == "user"][-1]["content"]
        text = sent if isinstance(sent, str) else json.dumps(sent)
        assert "Review the auth module code, starting with auth." in text
