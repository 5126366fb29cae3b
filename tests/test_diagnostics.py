"""Issue 45 #3 (diagnostics after an edit): a real `ruff server` found on PATH is started on the
first Python edit, reused, and stopped when the app ends; an edit that introduces an error
returns it with file:line, and /tools says which servers run. Through the real agent loop
against the local fake server."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from agent_tui.compose.factory import build_services
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config

VENV_BIN = str(Path(sys.executable).parent)


@pytest.fixture
def ruff_on_path(monkeypatch):
    """The venv's bin (where `ruff` is installed) first on PATH, as an activated venv has it."""
    monkeypatch.setenv("PATH", VENV_BIN + os.pathsep + os.environ.get("PATH", ""))


def tool_results(server) -> list[str]:
    return [str(m["content"]) for m in server.requests[-1]["messages"] if m["role"] == "tool"]


async def test_an_edit_that_breaks_the_file_returns_the_new_diagnostics(
    ruff_on_path, server, workspace, tmp_path
):
    (workspace / "cart.py").write_text("def total(items):\n    return sum(items)\n")
    server.enqueue(
        Reply(
            tool_calls=[
                ("edit_file", {"path": "cart.py", "old_string": "sum(items)", "new_string": "sum(itemz)"})
            ]
        ),
        Reply(
            tool_calls=[
                ("edit_file", {"path": "cart.py", "old_string": "sum(itemz)", "new_string": "sum(items)"})
            ]
        ),
        Reply(text="fixed"),
    )
    config = make_config(server, tmp_path / "d.db", cwd=workspace, tools={"allow": ["edit_file"]})
    services = await build_services(config, workspace=workspace)
    try:
        session = await services.new_session()
        servers = session.runner.services.diagnostics
        assert servers is not None and not servers.clients  # nothing started before an edit
        async for _event in session.run_turn("rename it"):
            pass
        broken, fixed = tool_results(server)
        assert "[diagnostics: 1 in cart.py]" in broken
        assert "cart.py:2:16: error [F821]: Undefined name `itemz`" in broken
        assert "[diagnostics: none in cart.py]" in fixed
        client = servers.clients["python"]
        assert client.running and client.command[-1] == "server"  # one server, reused
        from agent_tui.core.command_effects import tools

        class Host:
            pass

        host = Host()
        host.session = session  # type: ignore[attr-defined]
        reply = await tools(host, "")  # type: ignore[arg-type]
        assert "ruff server (python): running" in json.dumps(reply.block, ensure_ascii=False)
        await session.close()
        assert client.running  # the workspace's: other tabs and sub-agents share it
    finally:
        await services.close()
    assert not client.running and not servers.clients  # stopped when the app ends


async def test_no_server_on_path_means_no_diagnostics(monkeypatch, server, workspace, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    (workspace / "a.py").write_text("x = 1\n")
    server.enqueue(
        Reply(tool_calls=[("edit_file", {"path": "a.py", "old_string": "x = 1", "new_string": "x = y"})]),
        Reply(text="ok"),
    )
    config = make_config(server, tmp_path / "n.db", cwd=workspace, tools={"allow": ["edit_file"]})
    services = await build_services(config, workspace=workspace)
    try:
        session = await services.new_session()
        async for _event in session.run_turn("edit"):
            pass
        assert "diagnostics" not in tool_results(server)[0]
        await session.close()
    finally:
        await services.close()


async def test_the_services_make_the_language_servers_once_when_built(server, workspace, tmp_path):
    """`build_services` makes the workspace's language servers in its one pass (none started):
    they are there before any session, and every session's tools get that same set."""
    config = make_config(server, tmp_path / "o.db", cwd=workspace)
    services = await build_services(config, workspace=workspace, start_mcp=False)
    try:
        servers = services.language_servers
        assert servers is not None and servers.root == workspace.resolve() and not servers.clients
        first, second = await services.new_session(), await services.new_session()
        assert first.runner.services.diagnostics is servers is second.runner.services.diagnostics
        await first.close()
        await second.close()
    finally:
        await services.close()
