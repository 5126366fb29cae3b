"""A second, independent ACP client: the TypeScript SDK (`@agentclientprotocol/sdk`, installed by
`make acp-ts-client` into tests/acp_ts/node_modules) drives `agent-tui acp` from Node. Its script
(tests/acp_ts/client.mjs) initializes, creates a session, prompts, answers the permission
question and asserts on the updates; this test runs it against the local fake server and checks
what reached the model and the store."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from testkit.fake_openai import Reply
from tests.support.acp_client import agent_args, agent_env, sessions_list

FOLDER = Path(__file__).parent / "acp_ts"
SDK = FOLDER / "node_modules" / "@agentclientprotocol" / "sdk" / "package.json"

node = shutil.which("node")
pytestmark = pytest.mark.skipif(
    node is None, reason="node is not installed: the TypeScript client cannot run"
)


def installed_sdk() -> Path:
    """The SDK `make acp-ts-client` installed; a clear failure when it was not run."""
    if not SDK.is_file():
        pytest.fail("the TypeScript ACP SDK is not installed: run `make acp-ts-client` (make test does)")
    return SDK


class TestTypeScriptClient:
    def test_the_typescript_sdk_client_drives_a_turn(self, server, workspace, tmp_path):
        """Node's client: initialize (our name, version 1, loadSession), session/new, a prompt
        whose bash call it allows once; the updates arrive in order (tool call, its completion
        with the output, the reply, usage), the turn ends with end_turn, the agent exits cleanly
        when the client closes stdin, and the session is in the store."""
        assert json.loads(installed_sdk().read_text())["version"] == "2.4.0"
        db = tmp_path / "ts.db"
        server.enqueue(
            Reply(tool_calls=[("bash", {"command": "echo from-the-ts-client"})]),
            Reply(text="the TypeScript client got this"),
        )
        out = subprocess.run(
            [
                str(node), str(FOLDER / "client.mjs"), str(workspace), "run echo please",
                "the TypeScript client got this", "from-the-ts-client",
                sys.executable, *agent_args(server, db, "--sandbox", "off"),
            ],
            cwd=workspace, capture_output=True, text=True, env=agent_env(), timeout=180,
        )  # fmt: skip
        assert out.returncode == 0, out.stdout + out.stderr
        report = json.loads(out.stdout.strip().splitlines()[-1])
        assert report["ok"] is True and report["agentExit"] == 0
        assert report["permissionOptions"] == ["allow_once", "allow_session", "allow_always", "deny"]
        kinds = report["kinds"]
        assert kinds.index("tool_call") < kinds.index("agent_message_chunk") < len(kinds)
        assert "usage_update" in kinds and "available_commands_update" in kinds
        tool_result = [m for m in server.requests[1]["messages"] if m["role"] == "tool"][-1]["content"]
        assert "from-the-ts-client" in tool_result
        assert report["sessionId"] in sessions_list(db, workspace)
