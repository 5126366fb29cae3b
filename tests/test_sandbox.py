"""The command sandbox against the real bubblewrap: what a sandboxed command can and cannot touch,
that its whole tree dies with the turn, that an unsandboxed rerun always asks, that file tools
and MCP servers follow the same rules, and the one notice when bwrap is missing."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import threading
from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from agent_tui.factory import build_services
from agent_tui.tools.base import ToolContext
from agent_tui.tools.bash import BashTool
from agent_tui.tools.permissions import ApprovalDecision, PermissionPolicy
from agent_tui.tools.registry import builtin_tools
from agent_tui.tools.sandbox import Probe, Sandbox, probe
from testkit.fake_openai import FakeOpenAI, Reply
from tests.agent_fixtures import collect, make_config, of_type
from tests.test_tools_bash import alive, running_with

FOUND = probe()


@pytest.fixture
def bwrap() -> Probe:
    """The real bwrap; where the machine cannot run it the test says why (see the report header)."""
    if FOUND.bwrap is None:
        pytest.skip(f"sandbox tests need bubblewrap: {FOUND.problem}")
    return FOUND


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / ".agent-tui.toml").write_text("# project config\n")
    return root.resolve()


def make_sandbox(ws: Path, found: Probe, mode: str = "workspace-write", **kw) -> Sandbox:
    return Sandbox(mode, workspace=ws, probe=found, **kw)


async def bash(sandbox: Sandbox, command: str, **args):
    ctx = ToolContext(workspace=sandbox.workspace, session_id="s", call_id="c", services={"sandbox": sandbox})
    return await BashTool(kill_grace=1.0).run({"command": command, **args}, ctx)


class Listener:
    """A local TCP server counting the connections it accepts."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def __enter__(self) -> Listener:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()

    def connect_command(self) -> str:
        return f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {self.port}), timeout=5)\""


class TestWhatACommandMayTouch:
    async def test_cannot_write_outside_the_workspace(self, bwrap, ws, tmp_path):
        outside = tmp_path / "outside"
        outside.mkdir()
        sandbox = make_sandbox(ws, bwrap)
        out = await bash(sandbox, f"echo pwned > {outside}/f.txt")
        assert not (outside / "f.txt").exists()
        assert out.meta["exit_code"] != 0 and "Read-only file system" in out.text
        assert "blocked by sandbox" in out.summary
        assert "unsandboxed: true" in out.meta["status_line"]  # the model is told how to rerun
        # A refused write is reported even when a later step makes the command succeed.
        out = await bash(sandbox, f"echo pwned > {outside}/f.txt; echo done")
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

    async def test_the_ssh_agent_socket_is_out_of_reach_without_network(
        self, bwrap, ws, tmp_path, monkeypatch
    ):
        """A read-only mount does not stop connect() on a unix socket: the agent's is masked."""
        path = tmp_path / "agent.sock"
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.listen()
        monkeypatch.setenv("SSH_AUTH_SOCK", str(path))
        command = (
            f'{sys.executable} -c "import os, socket; s = socket.socket(socket.AF_UNIX); '
            "s.connect(os.environ['SSH_AUTH_SOCK']); print('connected')\""
        )
        try:
            out = await bash(make_sandbox(ws, bwrap), command)
            assert out.meta["exit_code"] != 0 and "connected" not in out.text
            out = await bash(make_sandbox(ws, bwrap, network=True), command)
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


GIT_ENV = (
    "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com"
)


class TestGit:
    async def test_commit_from_a_sub_folder_and_a_linked_worktree(self, bwrap, tmp_path):
        """Git metadata outside the workspace stays usable (commits work) but its hooks and
        config stay read-only."""
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
                f"echo x > f.txt && git add f.txt && {GIT_ENV} git commit -q -m add && echo committed; "
                'echo evil > "$(git rev-parse --git-common-dir)/hooks/pre-commit"; '
                "git config --local core.hooksPath /tmp/evil",
            )
            assert "committed" in out.text, out.text
            assert "Read-only file system" in out.text and "could not write config" in out.text
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


def rerun_model(target: Path):
    """Writes outside the workspace; when told the sandbox blocked it, asks to rerun unsandboxed."""
    command = f"echo done > {target}"

    def respond(body: dict) -> Reply:
        last = body["messages"][-1]
        if last["role"] == "user":
            return Reply(tool_calls=[("bash", {"command": command})])
        if last["role"] == "tool" and "unsandboxed: true" in last["content"]:
            return Reply(tool_calls=[("bash", {"command": command, "unsandboxed": True})])
        return Reply(text="finished")

    return respond


class TestApprovals:
    async def test_unsandboxed_rerun_asks_even_with_yes(self, bwrap, ws, tmp_path):
        target = tmp_path / "outside.txt"
        asked = []

        async def approver(request):
            asked.append(request)
            return ApprovalDecision("allow_session")  # remembered never: counts as once

        with FakeOpenAI(window=32_000, responder=rerun_model(target)) as srv:
            services = await build_services(make_config(srv, tmp_path / "c.db"), workspace=ws)
            try:
                session = await services.new_session(approver, yes=True)
                events = await collect(session.run_turn("write the file"))
            finally:
                await services.close()
        finished = of_type(events, ev.ToolCallFinished)
        assert len(finished) == 2 and "blocked by sandbox" in finished[0].summary
        assert len(asked) == 1, "the sandboxed call ran on --yes; only the unsandboxed one asked"
        request = asked[0]
        assert request.once_only and "NOT sandboxed" in (request.sandbox or "")
        assert target.read_text() == "done\n"

    async def test_unsandboxed_rerun_is_refused_headless(self, bwrap, ws, tmp_path):
        """`run --yes` has nobody to ask: the rerun is denied with a reason, nothing written."""
        target = tmp_path / "outside.txt"
        with FakeOpenAI(window=32_000, responder=rerun_model(target)) as srv:
            services = await build_services(make_config(srv, tmp_path / "c.db"), workspace=ws)
            try:
                session = await services.new_session(yes=True)
                events = await collect(session.run_turn("write the file"))
            finally:
                await services.close()
        notices = [e.message for e in of_type(events, ev.Notice)]
        assert any("needs the user's approval each time" in n for n in notices)
        assert not target.exists()

    async def test_auto_approve_runs_sandboxed_commands_without_asking(self, bwrap, ws):
        spec = next(t for t in builtin_tools() if t.spec.name == "bash").spec

        async def no(request):
            raise AssertionError("auto_approve must not ask")

        policy = PermissionPolicy(approver=no, sandbox=make_sandbox(ws, bwrap, auto_approve=True))
        allowed, why = await policy.check("bash", {"command": "make"}, spec, ws)
        assert allowed and "sandbox" in why
        asked = []

        async def yes(request):
            asked.append(request)
            return ApprovalDecision("allow_once")

        # With the network on, a sandboxed command is asked about again, and the dialog says so.
        policy = PermissionPolicy(
            approver=yes, sandbox=make_sandbox(ws, bwrap, auto_approve=True, network=True)
        )
        assert (await policy.check("bash", {"command": "make"}, spec, ws))[0]
        assert asked and asked[0].sandbox == "runs sandboxed (workspace-write · network · auto-approve)"


class TestFileTools:
    async def test_file_tools_follow_the_write_rules(self, bwrap, ws):
        tools = {t.spec.name: t for t in builtin_tools()}

        async def yes(request):
            return ApprovalDecision("allow_once")

        policy = PermissionPolicy(approver=yes, sandbox=make_sandbox(ws, bwrap))
        args = {"path": ".git/hooks/pre-commit", "content": "evil"}
        allowed, why = await policy.check("write_file", args, tools["write_file"].spec, ws)
        assert not allowed and "protected by the sandbox" in why
        edit = {"path": ".agent-tui.toml", "old_string": "project", "new_string": "evil"}
        assert not (await policy.check("edit_file", edit, tools["edit_file"].spec, ws))[0]
        plain = {"path": "notes.txt", "content": "fine"}
        assert (await policy.check("write_file", plain, tools["write_file"].spec, ws))[0]
        policy = PermissionPolicy(approver=yes, sandbox=make_sandbox(ws, bwrap, mode="read-only"))
        allowed, why = await policy.check("write_file", plain, tools["write_file"].spec, ws)
        assert not allowed and "read-only" in why


class TestMcp:
    async def test_mcp_server_runs_inside_the_sandbox_unless_trusted(self, bwrap, ws, tmp_path):
        script = str(Path(__file__).with_name("sandbox_mcp_server.py"))
        table = {
            "boxed": {"command": sys.executable, "args": [script]},
            "trusted": {"command": sys.executable, "args": [script], "sandbox": False},
        }
        with FakeOpenAI(window=32_000) as srv:
            config = make_config(srv, tmp_path / "m.db", mcp={"servers": table, "startup_timeout": 60})
            services = await build_services(config, workspace=ws)
            try:
                await services.mcp_ready()
                assert {s.state for s in services.mcp.servers.values()} == {"ready"}
                boxed = await services.mcp.servers["boxed"].call("write", {"path": str(tmp_path / "a")}, 30)
                trusted = await services.mcp.servers["trusted"].call(
                    "write", {"path": str(tmp_path / "b")}, 30
                )
                inside = await services.mcp.servers["boxed"].call("write", {"path": str(ws / "c")}, 30)
            finally:
                await services.close()
        assert "Read-only file system" in boxed.text and not (tmp_path / "a").exists()
        assert "ok" in trusted.text and (tmp_path / "b").exists()
        assert "ok" in inside.text and (ws / "c").exists()


class TestWithoutBwrap:
    def test_probe_on_a_path_without_bwrap(self, tmp_path):
        found = probe(str(tmp_path))
        assert found.bwrap is None and "not installed" in (found.problem or "")
        sandbox = Sandbox(workspace=tmp_path, probe=found)
        assert not sandbox.active and sandbox.topbar() == "sandbox: off (unavailable)"
        assert "apt install bubblewrap" in (sandbox.notice or "")
        with pytest.raises(ValueError, match="no sandbox here"):
            sandbox.set_mode("read-only")
        assert Sandbox("off", workspace=tmp_path, probe=found).notice is None

    def test_fallback_notice_once_at_start_of_run(self, tmp_path, ws):
        """`agent-tui run` with a PATH that has no bwrap: one notice on stderr, the turn runs
        (unsandboxed, as today)."""
        import subprocess

        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        for tool in ("bash", "sh", "cat", "ls"):
            real = Path("/bin") / tool
            if real.exists():
                (bin_dir / tool).symlink_to(real)
        responses = iter(
            [
                Reply(tool_calls=[("bash", {"command": f"echo ran > {tmp_path}/free.txt"})]),
                Reply(text="all done"),
            ]
        )
        with FakeOpenAI(window=32_000, responder=lambda body: next(responses)) as srv:
            out = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "agent_tui",
                    "run",
                    "go",
                    "--yes",
                    "--model",
                    "openai/fake-model",
                    "--api-base",
                    srv.base_url,
                    "--context-window",
                    "32000",
                    "--db",
                    str(tmp_path / "r.db"),
                ],
                cwd=ws,
                capture_output=True,
                text=True,
                env={**os.environ, "PATH": str(bin_dir), "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
                timeout=120,
            )
        assert out.returncode == 0, out.stderr
        notices = [line for line in out.stderr.splitlines() if "Sandbox unavailable" in line]
        assert len(notices) == 1 and "install bubblewrap" in notices[0]
        assert "asked about as usual" in notices[0]
        assert (tmp_path / "free.txt").read_text() == "ran\n" and out.stdout.strip() == "all done"

    def test_bad_mode_is_one_line(self, tmp_path):
        import subprocess

        out = subprocess.run(
            [sys.executable, "-m", "agent_tui", "run", "go", "--sandbox", "strict", "--model", "x/y"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 2
        assert out.stderr.strip().splitlines() == [
            "agent-tui: sandbox.mode must be one of workspace-write, read-only, off, got 'strict'"
        ]


def test_json_schema_of_bash_offers_unsandboxed():
    spec = next(t for t in builtin_tools() if t.spec.name == "bash").spec
    assert json.loads(json.dumps(spec.parameters))["properties"]["unsandboxed"]["type"] == "boolean"


class TestProjectConfig:
    def test_a_project_file_may_tighten_but_not_loosen(self, tmp_path):
        from agent_tui import paths
        from agent_tui.config import load_config

        project = tmp_path / "repo"
        project.mkdir()
        (project / ".agent-tui.toml").write_text(
            '[sandbox]\nmode = "off"\nnetwork = true\nauto_approve = true\n'
        )
        s = load_config(cwd=project, env={}).config.sandbox
        assert (s.mode, s.network, s.auto_approve) == ("workspace-write", False, False)
        (project / ".agent-tui.toml").write_text('[sandbox]\nmode = "read-only"\n')
        assert load_config(cwd=project, env={}).config.sandbox.mode == "read-only"
        # The user's own config (and --sandbox) decide the looser settings.
        paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
        paths.user_config_file().write_text('[sandbox]\nmode = "off"\nnetwork = true\n')
        (project / ".agent-tui.toml").write_text('[sandbox]\nnetwork = true\nmode = "workspace-write"\n')
        s = load_config(cwd=project, env={}).config.sandbox
        assert (s.mode, s.network) == ("workspace-write", True)
        s = load_config({"sandbox": {"mode": "off"}}, cwd=project, env={}).config.sandbox
        assert s.mode == "off"
