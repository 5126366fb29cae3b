"""The sandbox's rules beyond bash itself, against the real bubblewrap: an unsandboxed rerun always
asks, auto_approve, file tools, MCP servers, a project file that cannot loosen the sandbox, and
the one notice when bwrap is missing."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.tools.permissions import ApprovalDecision, PermissionPolicy
from agent_tui.tools.registry import builtin_tools
from agent_tui.tools.sandbox import Sandbox, probe
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, of_type
from tests.support.sandbox import make_sandbox, rerun_model


async def check(policy, *call):
    """The policy's verdict as (allowed, detail), what these tests assert on."""
    verdict = await policy.decide(*call)
    return verdict.allowed, verdict.detail


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

        policy = PermissionPolicy(
            approver=no, sandbox=make_sandbox(ws, bwrap, auto_approve=True), words=SHIPPED_WORDS
        )
        allowed, why = await check(policy, "bash", {"command": "make"}, spec, ws)
        assert allowed and "sandbox" in why
        asked = []

        async def yes(request):
            asked.append(request)
            return ApprovalDecision("allow_once")

        # With the network on, a sandboxed command is asked about again, and the dialog says so.
        policy = PermissionPolicy(
            approver=yes,
            sandbox=make_sandbox(ws, bwrap, auto_approve=True, network=True),
            words=SHIPPED_WORDS,
        )
        assert (await check(policy, "bash", {"command": "make"}, spec, ws))[0]
        assert asked and asked[0].sandbox == "runs sandboxed (workspace-write · network · auto-approve)"


class TestFileTools:
    async def test_file_tools_follow_the_write_rules(self, bwrap, ws):
        tools = {t.spec.name: t for t in builtin_tools()}

        async def yes(request):
            return ApprovalDecision("allow_once")

        policy = PermissionPolicy(approver=yes, sandbox=make_sandbox(ws, bwrap), words=SHIPPED_WORDS)
        args = {"path": ".git/hooks/pre-commit", "content": "evil"}
        allowed, why = await check(policy, "write_file", args, tools["write_file"].spec, ws)
        assert not allowed and "protected by the sandbox" in why
        edit = {"path": ".agent-tui.toml", "old_string": "project", "new_string": "evil"}
        assert not (await check(policy, "edit_file", edit, tools["edit_file"].spec, ws))[0]
        plain = {"path": "notes.txt", "content": "fine"}
        assert (await check(policy, "write_file", plain, tools["write_file"].spec, ws))[0]
        policy = PermissionPolicy(
            approver=yes, sandbox=make_sandbox(ws, bwrap, mode="read-only"), words=SHIPPED_WORDS
        )
        allowed, why = await check(policy, "write_file", plain, tools["write_file"].spec, ws)
        assert not allowed and "read-only" in why


class TestMcp:
    async def test_mcp_server_runs_inside_the_sandbox_unless_trusted(self, bwrap, ws, tmp_path):
        # A copy in the workspace: the checkout may sit in /tmp, which the sandbox empties.
        script = str(
            shutil.copy(Path(__file__).parent / "support" / "sandbox_mcp_server.py", ws / "mcp_server.py")
        )
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
        # One line: the problem, then where the log is (every start-up failure names it).
        [line] = out.stderr.strip().splitlines()
        assert line.startswith(
            "agent-tui: sandbox.mode must be one of workspace-write, read-only, off, got 'strict' (log: "
        )


def test_json_schema_of_bash_offers_unsandboxed():
    spec = next(t for t in builtin_tools() if t.spec.name == "bash").spec
    assert json.loads(json.dumps(spec.parameters))["properties"]["unsandboxed"]["type"] == "boolean"


class TestProjectConfig:
    def test_a_project_file_may_tighten_but_not_loosen(self, tmp_path):
        from agent_tui.config import load_config
        from agent_tui.runtime import paths

        project = tmp_path / "repo"
        project.mkdir()
        (project / ".agent-tui.toml").write_text(
            '[sandbox]\nmode = "off"\nnetwork = true\nauto_approve = true\n'
        )
        s = load_config(cwd=project, env={}, rule_words=SHIPPED_WORDS).config.sandbox
        assert (s.mode, s.network, s.auto_approve) == ("workspace-write", False, False)
        (project / ".agent-tui.toml").write_text('[sandbox]\nmode = "read-only"\n')
        assert load_config(cwd=project, env={}, rule_words=SHIPPED_WORDS).config.sandbox.mode == "read-only"
        # The user's own config (and --sandbox) decide the looser settings.
        paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
        paths.user_config_file().write_text('[sandbox]\nmode = "off"\nnetwork = true\n')
        (project / ".agent-tui.toml").write_text('[sandbox]\nnetwork = true\nmode = "workspace-write"\n')
        s = load_config(cwd=project, env={}, rule_words=SHIPPED_WORDS).config.sandbox
        assert (s.mode, s.network) == ("workspace-write", True)
        s = load_config(
            {"sandbox": {"mode": "off"}}, cwd=project, env={}, rule_words=SHIPPED_WORDS
        ).config.sandbox
        assert s.mode == "off"

    def test_a_trusted_project_cannot_open_hidden_paths_or_sockets(self, tmp_path):
        """wall: sandbox — even a trusted project's `.agent-tui.toml` cannot set `allow_read` or
        `unix_sockets`: only the user's own config lets secrets or sockets in."""
        from agent_tui.config import load_config
        from agent_tui.runtime import paths

        project = tmp_path / "repo"
        project.mkdir()
        (project / ".agent-tui.toml").write_text(
            '[sandbox]\nallow_read = ["~/.ssh"]\nunix_sockets = ["/run/docker.sock"]\n'
        )
        s = load_config(cwd=project, env={}, trusted=True, rule_words=SHIPPED_WORDS).config.sandbox
        assert (s.allow_read, s.unix_sockets) == ([], [])
        paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
        paths.user_config_file().write_text('[sandbox]\nallow_read = ["~/.aws"]\n')
        assert load_config(
            cwd=project, env={}, trusted=True, rule_words=SHIPPED_WORDS
        ).config.sandbox.allow_read == ["~/.aws"]
