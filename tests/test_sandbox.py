"""bash in the sandbox against the real bubblewrap: what a sandboxed command can and cannot touch
(files, protected paths, the network, agent sockets, git metadata), and that its whole process
tree dies with a timeout, a cancelled turn or the command's end. The rules around it (approvals,
file tools, MCP, config, the missing-bwrap notice) are in test_sandbox_rules.py."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path

import pytest

from agent_tui.compose.factory import build_services
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config
from tests.support.bash import alive, running_with
from tests.support.sandbox import GIT_ENV, Listener, bash, make_sandbox


class TestWhatACommandMayTouch:
    async def test_cannot_write_outside_the_workspace(self, bwrap, ws, tmp_path):
        outside = tmp_path / "outside"
        outside.mkdir()
        sandbox = make_sandbox(ws, bwrap)
        out = await bash(sandbox, f"echo pwned > {outside}/f.txt")
        assert not (outside / "f.txt").exists()
        # /tmp is emptied inside the sandbox: the folder is not even there.
        assert out.meta["exit_code"] != 0 and "No such file or directory" in out.text
        assert "blocked by sandbox" in out.summary and "use $TMPDIR" in out.meta["status_line"]
        assert "unsandboxed: true" in out.meta["status_line"]  # the model is told how to rerun
        out = await bash(sandbox, f"echo pwned > {tmp_path}/f.txt")
        assert out.meta["exit_code"] != 0 and "Read-only file system" in out.text
        assert not (tmp_path / "f.txt").exists()
        # A refused write is reported even when a later step makes the command succeed.
        out = await bash(sandbox, f"echo pwned > {tmp_path}/f.txt; echo done")
        assert out.meta["exit_code"] == 0 and "blocked a write" in out.meta["status_line"]

    async def test_cannot_write_git_hooks_or_project_config(self, bwrap, ws):
        sandbox = make_sandbox(ws, bwrap)
        out = await bash(
            sandbox,
            "echo evil > .git/hooks/pre-commit; echo evil >> .git/config; echo evil >> .agent-tui.toml",
        )
        assert not (ws / ".git/hooks/pre-commit").exists()
        assert (ws / ".git/config").read_text() == "[core]\n"
        assert (ws / ".agent-tui.toml").read_text() == "# project config\n"
        assert out.text.count("Read-only file system") == 3

    async def test_a_created_project_config_is_removed(self, bwrap, ws):
        """A path that does not exist cannot be bind-mounted read-only: creating it is undone."""
        (ws / ".agent-tui.toml").unlink()
        out = await bash(make_sandbox(ws, bwrap), "printf '[sandbox]\\nmode = \"off\"\\n' > .agent-tui.toml")
        assert not (ws / ".agent-tui.toml").exists()
        assert "removed .agent-tui.toml" in out.meta["status_line"]

    async def test_cannot_reach_a_local_server_unless_network_is_on(self, bwrap, ws):
        with Listener() as server:
            out = await bash(make_sandbox(ws, bwrap), server.connect_command())
            assert out.meta["exit_code"] != 0 and server.accepted == 0
            assert "Connection refused" in out.text and "network" in out.meta["status_line"]
            # The same command with [sandbox] network = true gets through: the server was there.
            out = await bash(make_sandbox(ws, bwrap, network=True), server.connect_command())
            assert out.meta["exit_code"] == 0 and server.accepted == 1

    async def test_the_ssh_agent_socket_is_out_of_reach_unless_allowed(
        self, bwrap, ws, tmp_path, monkeypatch
    ):
        """wall: sandbox — a read-only mount does not stop connect() on a unix socket: the agent's
        is out of reach, with or without network, until `[sandbox] unix_sockets` names it."""
        path = tmp_path / "agent.sock"
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.listen()
        monkeypatch.setenv("SSH_AUTH_SOCK", str(path))
        command = (
            f'{sys.executable} -c "import os, socket; s = socket.socket(socket.AF_UNIX); '
            f"s.connect('{path}'); print('connected')\""
        )
        try:
            for network in (False, True):
                out = await bash(make_sandbox(ws, bwrap, network=network), command)
                assert out.meta["exit_code"] != 0 and "connected" not in out.text
            out = await bash(make_sandbox(ws, bwrap, unix_sockets=[str(path)]), command)
            assert out.text == "connected\n"
        finally:
            server.close()

    async def test_can_write_in_the_workspace_and_its_temp_dir(self, bwrap, ws):
        sandbox = make_sandbox(ws, bwrap)
        try:
            out = await bash(
                sandbox, 'echo a > made.txt && mkdir -p sub && echo b > "$TMPDIR/t" && cat "$TMPDIR/t"'
            )
            assert out.meta["exit_code"] == 0 and out.text == "b\n"
            assert (ws / "made.txt").read_text() == "a\n"
            assert (sandbox.tmpdir() / "t").read_text() == "b\n"
        finally:
            sandbox.close()
        assert not (sandbox._tmpdir or Path("/nonexistent")).exists()

    async def test_read_only_mode_keeps_the_workspace_unchanged(self, bwrap, ws):
        out = await bash(
            make_sandbox(ws, bwrap, mode="read-only"),
            'echo a > made.txt; echo b > "$TMPDIR/t"; cat "$TMPDIR/t"',
        )
        assert not (ws / "made.txt").exists() and out.text.endswith("b\n")

    async def test_off_runs_as_before(self, bwrap, ws, tmp_path):
        out = await bash(make_sandbox(ws, bwrap, mode="off"), f"echo x > {tmp_path}/free.txt")
        assert out.meta["exit_code"] == 0 and (tmp_path / "free.txt").exists()


def kill_all(marker: str) -> None:
    """On failure, do not leave the sleepers behind."""
    for pid in running_with(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class TestGit:
    async def test_git_metadata_is_read_only_from_a_sub_folder_and_a_linked_worktree(self, bwrap, tmp_path):
        """wall: sandbox — git metadata outside the workspace stays readable (log, status) but
        nothing in it can be written: no commit, no hook, no config."""
        import subprocess

        repo = tmp_path / "repo"
        (repo / "sub").mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        subprocess.run(f"{GIT_ENV} git commit -q --allow-empty -m root", shell=True, cwd=repo, check=True)
        subprocess.run(["git", "worktree", "add", "-q", str(tmp_path / "wt")], cwd=repo, check=True)
        for ws in (repo / "sub", tmp_path / "wt"):
            sandbox = make_sandbox(ws.resolve(), bwrap)
            out = await bash(
                sandbox,
                "git log --oneline | wc -l; "
                f"echo x > f.txt && git add f.txt && {GIT_ENV} git commit -q -m add && echo committed; "
                'echo evil > "$(git rev-parse --git-common-dir)/hooks/pre-commit"; '
                "git config --local core.hooksPath /tmp/evil",
            )
            assert out.text.startswith("1\n") and "committed" not in out.text, out.text
            assert "Read-only file system" in out.text and "could not lock config file" in out.text
            assert not (repo / ".git/hooks/pre-commit").exists()
            assert "hooksPath" not in (repo / ".git/config").read_text()


class TestTheTreeDiesWithTheTurn:
    async def test_timeout_kills_the_sandboxed_command(self, bwrap, ws):
        marker = f"9{os.getpid()}.5"
        try:
            out = await bash(make_sandbox(ws, bwrap), f"sleep {marker} & sleep {marker}", timeout=0.5)
            assert out.meta["timed_out"] is True and out.meta["sandbox"] == "workspace-write"
            assert [p for p in running_with(marker) if alive(p)] == []
        finally:
            kill_all(marker)

    async def test_grandchildren_die_when_the_turn_is_cancelled(self, bwrap, ws, tmp_path):
        """A cancelled turn kills the command, its children and a child that left the group."""
        marker = f"7{os.getpid()}.31"
        fifo = ws / "started"
        os.mkfifo(fifo)
        command = f"sh -c 'sleep {marker} & wait' & setsid sleep {marker} & sleep {marker} & echo go > started; wait"
        sleepers = Reply(tool_calls=[("bash", {"command": command})])
        with FakeOpenAI(window=32_000, responder=lambda body: sleepers) as srv:
            config = make_config(srv, tmp_path / "c.db", sandbox={"mode": "workspace-write"})
            services = await build_services(config, workspace=ws)
            try:
                session = await services.new_session(yes=True)
                turn = asyncio.create_task(collect(session.run_turn("start the sleepers")))
                await asyncio.to_thread(fifo.read_text)
                assert len([p for p in running_with(marker) if alive(p)]) >= 3
                turn.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await turn
                assert [p for p in running_with(marker) if alive(p)] == []
            finally:
                await services.close()
                kill_all(marker)

    async def test_children_left_behind_die_when_the_command_ends(self, bwrap, ws):
        marker = f"8{os.getpid()}.17"
        try:
            out = await bash(
                make_sandbox(ws, bwrap), f"setsid sleep {marker} > /dev/null 2>&1 & echo started"
            )
            assert out.text == "started\n"
            assert [p for p in running_with(marker) if alive(p)] == []
        finally:
            kill_all(marker)
