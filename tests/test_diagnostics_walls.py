"""Diagnostics after an edit, within the walls (issue 45, diagnostics): with the sandbox on, the
language server runs under the same bubblewrap wrapping as bash (its own mount and network
namespaces: read-only system, writable workspace, no network), and a sub-agent's edits get the
same diagnostics as the parent's, from the one set of servers the workspace shares. A real
`ruff server` under the real bwrap, through the real agent loop against the local fake server."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from agent_tui.compose.factory import build_services
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config
from tests.support.subagent_model import Model, after_tool, is_child, tool_results

VENV_BIN = str(Path(sys.executable).parent)
BREAK = {"path": "cart.py", "old_string": "sum(items)", "new_string": "sum(itemz)"}
UNDEFINED = "cart.py:2:16: error [F821]: Undefined name `itemz`"


@pytest.fixture
def ruff_on_path(monkeypatch, workspace):
    """The venv's bin (where `ruff` is installed) first on PATH, as an activated venv has it."""
    monkeypatch.setenv("PATH", VENV_BIN + os.pathsep + os.environ.get("PATH", ""))
    (workspace / "cart.py").write_text("def total(items):\n    return sum(items)\n")


def descendants(pid: int) -> list[int]:
    """Every process under `pid` (bwrap forks the sandboxed command in new namespaces)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def namespace(pid: int | str, kind: str) -> str:
    return os.readlink(f"/proc/{pid}/ns/{kind}")


async def test_the_language_server_runs_inside_the_sandbox(bwrap, ruff_on_path, server, workspace, tmp_path):
    server.enqueue(Reply(tool_calls=[("edit_file", BREAK)]), Reply(text="renamed"))
    config = make_config(
        server,
        tmp_path / "d.db",
        cwd=workspace,
        tools={"allow": ["edit_file"]},
        sandbox={"mode": "workspace-write"},
    )
    services = await build_services(config, workspace=workspace)
    try:
        assert services.sandbox is not None and services.sandbox.active
        session = await services.new_session()
        await collect(session.run_turn("rename it"))
        results = [str(m["content"]) for m in server.requests[-1]["messages"] if m["role"] == "tool"]
        assert UNDEFINED in results[0]
        client = session.runner.services.diagnostics.clients["python"]
        ruff = [
            pid
            for pid in descendants(client.proc.pid)
            if b"ruff" in Path(f"/proc/{pid}/cmdline").read_bytes()
        ]
        assert ruff, "the server runs under the wrapper"
        for pid in ruff:  # walled off as bash is: its own mounts, no network of ours
            assert namespace(pid, "mnt") != namespace("self", "mnt")
            assert namespace(pid, "net") != namespace("self", "net")
        await session.close()
    finally:
        await services.close()


async def test_a_sub_agent_gets_diagnostics_after_its_edits(ruff_on_path, tmp_path, workspace):
    def child(body):
        return Reply(text="renamed") if after_tool(body) else Reply(tool_calls=[("edit_file", BREAK)])

    def parent(body):
        if not after_tool(body):
            return Reply(tool_calls=[("task", {"description": "rename", "prompt": "rename the sum"})])
        return Reply(text="done")

    with FakeOpenAI(window=64_000, responder=Model(parent, child)) as server:
        config = make_config(
            server,
            tmp_path / "a.db",
            64_000,
            cwd=workspace,
            sandbox={"mode": "off"},
            tools={"allow": ["edit_file"]},
        )
        services = await build_services(config, workspace=workspace)
        try:
            session = await services.new_session()
            await collect(session.run_turn("go"))
            shared = session.runner.services.diagnostics
        finally:
            await services.close()
        child_results = [r for body in server.requests if is_child(body) for r in tool_results(body)]
    assert any(UNDEFINED in r for r in child_results), child_results
    assert shared is not None and not shared.clients  # the app's end stops the shared servers


async def test_the_language_server_gets_no_secrets(ruff_on_path, monkeypatch, server, workspace, tmp_path):
    """Like bash, the server gets the user's environment without what looks like a key."""
    monkeypatch.setenv("SHOP_API_KEY", "sk-live-secret")
    monkeypatch.setenv("SHOP_COLOUR", "teal")
    server.enqueue(Reply(tool_calls=[("edit_file", BREAK)]), Reply(text="renamed"))
    config = make_config(
        server, tmp_path / "e.db", cwd=workspace, tools={"allow": ["edit_file"]}, sandbox={"mode": "off"}
    )
    services = await build_services(config, workspace=workspace)
    try:
        session = await services.new_session()
        await collect(session.run_turn("rename it"))
        client = session.runner.services.diagnostics.clients["python"]
        environ = Path(f"/proc/{client.proc.pid}/environ").read_bytes().split(b"\0")
        assert b"SHOP_COLOUR=teal" in environ
        assert not [v for v in environ if v.startswith(b"SHOP_API_KEY=")]
        await session.close()
    finally:
        await services.close()
