"""MCP servers end to end: real servers from the package registries (mcp-server-time and
mcp-server-git from PyPI, @modelcontextprotocol/server-everything from npm) driven by the real
agent loop against the strict local OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.tools.mcp import parse_servers, tool_name
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, of_type
from tests.support.mcp import installed

BIG_ENV = {f"BIG_{i:02d}": f"value-{i}-" + "y" * 200 for i in range(30)}


def everything_server() -> dict:
    if shutil.which("npx") is None:
        pytest.skip("node/npx is not installed: @modelcontextprotocol/server-everything needs it")
    return {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-everything"],
        "env": {**BIG_ENV, "npm_config_update_notifier": "false"},
        "sandbox": False,  # npx fetches and caches the package: it needs the network and ~/.npm
    }


@pytest.fixture
def git_repo(workspace) -> Path:
    # Inside the workspace: the sandbox shows a server nothing of /tmp outside it (SECURITY.md).
    repo = workspace / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    script = "".join(
        f"commit refs/heads/main\ncommitter t <t@example.com> {1700000000 + i} +0000\n"
        f"data <<END\nchange number {i}: a commit message long enough to count\nEND\n\n"
        for i in range(120)
    )
    subprocess.run(["git", "fast-import", "--quiet"], input=script.encode(), cwd=repo, check=True, env=env)
    subprocess.run(["git", "symbolic-ref", "HEAD", "refs/heads/main"], cwd=repo, check=True)
    return repo


def servers(git_repo: Path, *, everything: bool = True) -> dict:
    table = {
        "time": {"command": installed("mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        "git": {"command": installed("mcp-server-git"), "args": ["--repository", str(git_repo)]},
    }
    if everything:
        table["everything"] = everything_server()
    return table


async def mcp_services(
    server: FakeOpenAI,
    tmp_path: Path,
    workspace: Path,
    table: dict,
    window: int = 64_000,
    timeout: float = 120,
):
    config = make_config(
        server, tmp_path / "mcp.db", window=window, mcp={"servers": table, "startup_timeout": timeout}
    )
    services = await build_services(config, workspace=workspace)
    await services.mcp_ready()
    return services


def children_running(command: str) -> list[int]:
    """Our child processes whose command line contains `command` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and command in cmdline:
            found.append(int(entry.name))
    return found


def tool_names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or ()]


class TestConfig:
    def test_bad_tables_are_one_line_problems_and_the_rest_still_start(self):
        """A malformed server table is skipped with a line naming the key; good ones stay."""
        good, problems = parse_servers(
            {
                "ok": {"command": "srv", "args": ["-v"], "env": {"N": 1}},
                "noargs": {"command": "srv", "args": "-v"},
                "typo": {"command": "srv", "arg": []},
                "bad name": {"command": "srv"},
                "off": {"command": "srv", "enabled": False},
            }
        )
        assert [(s.name, s.args, dict(s.env)) for s in good] == [("ok", ("-v",), {"N": "1"})]
        assert len(problems) == 3
        assert any("args must be a list" in p for p in problems)
        assert any("unknown key arg" in p for p in problems)

    def test_tool_names_are_namespaced_and_safe(self):
        """`server__tool`, with characters providers refuse replaced."""
        assert tool_name("everything", "get-env") == "everything__get-env"
        assert tool_name("fs", "read.file") == "fs__read_file"


class TestServers:
    async def test_tools_listed_called_and_big_outputs_offloaded(
        self,
        tmp_path,
        workspace,
        git_repo,
    ):
        """All three servers' tools reach the model; calls run; big outputs become refs."""
        # A window wide enough that the three servers' tools stay under the 10% deferral
        # threshold beside the built-ins (web_fetch, todo and pin joined them in 0.4).
        with FakeOpenAI(window=96_000) as server:
            services = await mcp_services(server, tmp_path, workspace, servers(git_repo), window=96_000)
            try:
                states = {name: s.state for name, s in services.mcp.servers.items()}
                assert states == {"time": "ready", "git": "ready", "everything": "ready"}
                server.enqueue(
                    Reply(
                        tool_calls=[
                            ("time__get_current_time", {"timezone": "Asia/Tokyo"}),
                            ("git__git_log", {"repo_path": str(git_repo), "max_count": 120}),
                            ("everything__get-env", {}),
                            ("everything__get-sum", {"a": 2, "b": 40}),
                        ]
                    ),
                    Reply(text="done"),
                )
                session = await services.new_session(yes=True)
                events = await collect(session.run_turn("use the tools"))
                offered = tool_names(server.requests[0])
                assert {"time__get_current_time", "git__git_log", "everything__get-env"} <= set(offered)
                done = {e.call.name: e for e in of_type(events, ev.ToolCallFinished)}
                assert not any(e.is_error for e in done.values()), done
                assert "Asia/Tokyo" in done["time__get_current_time"].view
                assert "42" in done["everything__get-sum"].view
                for name in ("git__git_log", "everything__get-env"):
                    ref = done[name].ref
                    assert ref is not None and ref.byte_size > 4096
                    assert "read_result" in done[name].view and ref.id in done[name].view
                    assert len(done[name].view.encode()) < 6000
                whole = await services.store.results.read(
                    done["everything__get-env"].ref.id, 1, 10_000, session_id=session.session_id
                )
                assert all(f'"{k}": "{v}"' in whole for k, v in BIG_ENV.items())
                log = await services.store.results.read(
                    done["git__git_log"].ref.id, 1, 10_000, session_id=session.session_id
                )
                assert "change number 0" in log and "change number 119" in log
            finally:
                await services.close()
        assert children_running("mcp-server-time") == []

    async def test_deferred_under_a_small_window_and_found_with_tool_search(
        self, tmp_path, workspace, git_repo
    ):
        """At 8192 tokens the MCP tools are deferred; tool_search brings one back for the turn."""
        with FakeOpenAI(window=8192) as server:
            services = await mcp_services(server, tmp_path, workspace, servers(git_repo), window=8192)
            try:
                session = await services.new_session(yes=True)
                server.enqueue(
                    Reply(tool_calls=[("tool_search", {"query": "current time in a timezone"})]),
                    Reply(tool_calls=[("time__get_current_time", {"timezone": "Europe/Paris"})]),
                    Reply(text="it is late"),
                    Reply(text="bye"),
                )
                events = await collect(session.run_turn("what time is it in Paris?"))
                first, second, third = server.requests[:3]
                assert "tool_search" in tool_names(first)
                assert not any("__" in name for name in tool_names(first))
                assert "tools deferred to save context. Use tool_search" in first["messages"][0]["content"]
                found = of_type(events, ev.ToolCallFinished)[0]
                assert found.view.startswith("Found") and "time__get_current_time" in found.view
                assert '"timezone"' in found.view  # the schema comes with it
                assert "time__get_current_time" in tool_names(second)
                assert "Europe/Paris" in of_type(events, ev.ToolCallFinished)[1].view
                await collect(session.run_turn("thanks"))
                # The promotion ends with the turn: the built-ins alone pass 10% of this
                # window, so every MCP tool is deferred again, recently used or not.
                assert "time__get_current_time" not in tool_names(server.requests[-1])
                assert "tool_search" in tool_names(server.requests[-1])
                rows = {row.name: row for row in session.prompts.tool_table()}
                assert rows["git__git_commit"].state == "deferred"
                assert rows["read_file"].state == "brief"  # offered, briefly: 8 192 is a small window
            finally:
                await services.close()

    async def test_killed_server_vanishes_and_the_others_keep_working(self, tmp_path, workspace, git_repo):
        """Kill the time server mid-session: a warning, its tools gone, git still answers."""
        with FakeOpenAI(window=64_000) as server:
            services = await mcp_services(server, tmp_path, workspace, servers(git_repo, everything=False))
            try:
                session = await services.new_session(yes=True)
                server.enqueue(Reply(text="ready"))
                await collect(session.run_turn("hello"))
                assert "time__convert_time" in tool_names(server.requests[-1])
                (pid,) = children_running("mcp-server-time")
                os.kill(pid, signal.SIGKILL)
                await asyncio.wait_for(services.mcp.servers["time"].task, 30)
                server.enqueue(
                    Reply(
                        tool_calls=[
                            ("time__get_current_time", {"timezone": "UTC"}),
                            ("git__git_status", {"repo_path": str(git_repo)}),
                        ]
                    ),
                    Reply(text="ok"),
                )
                events = await collect(session.run_turn("time and status please"))
            finally:
                await services.close()
        notices = [e.message for e in of_type(events, ev.Notice)]
        assert any("'time' exited" in n and "2 tools are gone" in n for n in notices)
        assert not any(n.startswith("time__") for n in tool_names(server.requests[-2]))
        done = {e.call.name: e for e in of_type(events, ev.ToolCallFinished)}
        assert done["time__get_current_time"].is_error
        assert "unknown tool" in done["time__get_current_time"].view
        assert not done["git__git_status"].is_error and "branch" in done["git__git_status"].view

    async def test_failing_servers_are_warnings(
        self,
        tmp_path,
        workspace,
        git_repo,
    ):
        """A missing command fails with a warning; the working server beside it still serves."""
        table = {
            "missing": {"command": "no-such-mcp-server-here"},
            "time": {"command": installed("mcp-server-time")},
        }
        with FakeOpenAI(window=64_000) as server:
            services = await mcp_services(server, tmp_path, workspace, table)
            try:
                states = {n: (s.state, s.error) for n, s in services.mcp.servers.items()}
                session = await services.new_session(yes=True)
                server.enqueue(Reply(text="ok"))
                events = await collect(session.run_turn("hi"))
            finally:
                await services.close()
        assert states["missing"] == ("failed", "command not found: no-such-mcp-server-here")
        assert states["time"][0] == "ready"
        notices = " ".join(e.message for e in of_type(events, ev.Notice))
        assert "'missing' failed" in notices
        assert "time__get_current_time" in tool_names(server.requests[0])

    async def test_a_hanging_server_times_out_and_is_stopped(self, tmp_path, workspace):
        """A process that never answers the handshake fails after startup_timeout with a warning,
        and is stopped. (Apart from the working server: a 3 s limit on a real server's start is a
        race a busy machine loses.)"""
        table = {"silent": {"command": "sleep", "args": ["60"]}}
        with FakeOpenAI(window=64_000) as server:
            services = await mcp_services(server, tmp_path, workspace, table, timeout=3)
            try:
                states = {n: (s.state, s.error) for n, s in services.mcp.servers.items()}
                session = await services.new_session(yes=True)
                server.enqueue(Reply(text="ok"))
                events = await collect(session.run_turn("hi"))
            finally:
                await services.close()
        assert states["silent"] == ("failed", "did not start within 3 s")
        notices = " ".join(e.message for e in of_type(events, ev.Notice))
        assert "'silent' failed" in notices
        assert children_running("sleep 60") == []


class TestListCommand:
    def test_mcp_list_shows_servers_tools_and_tokens(self, tmp_path, isolated_home, git_repo):
        """`agent-tui mcp list --json` starts the servers and reports each tool's token cost."""
        config_dir = isolated_home / "config"
        config_dir.mkdir(parents=True)
        (config_dir / "config.toml").write_text(
            f'[mcp.servers.time]\ncommand = "{installed("mcp-server-time")}"\n'
            f'[mcp.servers.git]\ncommand = "{installed("mcp-server-git")}"\n'
            f'args = ["--repository", "{git_repo}"]\n'
            '[mcp.servers.broken]\ncommand = "no-such-mcp-server-here"\n'
        )
        env = {**os.environ, "AGENT_TUI_HOME": str(isolated_home)}
        done = subprocess.run(
            [sys.executable, "-m", "agent_tui", "mcp", "list", "--json"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        data = {s["name"]: s for s in json.loads(done.stdout)["servers"]}
        assert data["broken"]["state"] == "failed" and data["broken"]["tools"] == []
        time_tools = {t["name"]: t["tokens"] for t in data["time"]["tools"]}
        assert set(time_tools) == {"time__get_current_time", "time__convert_time"}
        assert all(50 < n < 1000 for n in time_tools.values())
        assert data["git"]["tokens"] == sum(t["tokens"] for t in data["git"]["tools"]) > 500
        plain = subprocess.run(
            [sys.executable, "-m", "agent_tui", "mcp", "list"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        )
        assert "time  ready  (2 tools" in plain.stdout
        assert "broken  failed: command not found" in plain.stdout
        assert "Traceback" not in plain.stderr
