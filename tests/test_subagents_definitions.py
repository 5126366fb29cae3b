"""Agent definitions: markdown files whose front matter names an agent, loaded only from trusted
folders (or the user's own dir), listed in the `task` tool, and narrowing the child's tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.agent.definitions import load_definitions, read_definition
from agent_tui.base.frontmatter import FrontMatterError, parse
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.tools.registry import ToolRegistry, builtin_tools
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.cli import flags, run_cli
from tests.support.subagent_model import Model, after_tool, tool_results

ALPHA = "---\nname: alpha\ndescription: Alpha finds the parser.\n---\nYou find parsers.\n"
BETA = "---\nname: beta\ndescription: Beta reviews diffs.\ntools: Read, Grep\n---\nYou review.\n"
READER = "---\nname: reader\ndescription: Reads files only.\ntools: [read_file]\nmax_turns: 3\n---\nRead.\n"


def project_agents(folder: Path) -> None:
    (folder / ".agent-tui" / "agents").mkdir(parents=True)
    (folder / ".claude" / "agents").mkdir(parents=True)
    (folder / ".agent-tui" / "agents" / "alpha.md").write_text(ALPHA)
    (folder / ".claude" / "agents" / "beta.md").write_text(BETA)
    (folder / ".claude" / "agents" / "reader.md").write_text(READER)


def task_description(body: dict) -> str:
    (task,) = [t for t in body["tools"] if t["function"]["name"] == "task"]
    return task["function"]["description"]


class TestFrontMatter:
    def test_scalars_lists_and_body(self):
        """Inline and block lists, quoted strings, integers and the body come apart as written."""
        doc = parse('---\nname: "x"\ntools:\n  - read_file\n  - grep\nmax_turns: 4\n---\n\nBody text.\n')
        assert doc.meta == {"name": "x", "tools": ["read_file", "grep"], "max_turns": 4}
        assert doc.body == "Body text."

    def test_unclosed_block_is_an_error_naming_it(self):
        """A front matter never closed is one clear error, not a guess."""
        with pytest.raises(FrontMatterError, match="never closed"):
            parse("---\nname: x\n")

    def test_claude_code_tool_names_map_to_ours(self, tmp_path):
        """`tools: Read, Grep` in a Claude Code agent narrows to read_file and grep (the names the
        built-in tools declare)."""
        ToolRegistry(builtin_tools())
        path = tmp_path / "beta.md"
        path.write_text(BETA)
        assert read_definition(path).tool_names() == ("read_file", "grep")

    def test_a_malformed_file_is_one_notice_and_the_rest_load(self, tmp_path):
        """A broken definition names its file in one notice; the good ones still load."""
        project_agents(tmp_path)
        (tmp_path / ".claude" / "agents" / "broken.md").write_text("---\nname: broken\n")
        found = load_definitions(tmp_path, include_project=True)
        assert set(found.agents) == {"alpha", "beta", "reader"}
        assert len(found.notices) == 1 and "broken.md" in found.notices[0]


def test_untrusted_folder_does_not_load_project_agents_and_trusted_does(workspace, tmp_path):
    """Untrusted: neither .agent-tui/agents nor .claude/agents reaches the task tool, and stderr
    names them; with --trust both are listed (a malformed one is a notice naming it), and
    `reader` (tools: [read_file]) is offered no bash and is refused one when it calls it anyway."""
    project_agents(workspace)
    (workspace / ".claude" / "agents" / "broken.md").write_text("---\nname: broken\n")
    with FakeOpenAI(window=64_000) as server:
        server.enqueue(Reply(text="hello"))
        plain = run_cli(["run", "hi", *flags(server, tmp_path / "u.db", window=64_000)], workspace)
        assert plain.returncode == 0, plain.stderr
        offered = task_description(server.requests[-1])
        assert "alpha" not in offered and "beta" not in offered
        assert "alpha.md" in plain.stderr and "beta.md" in plain.stderr and "not trusted" in plain.stderr

        child_tools: list[list[str]] = []

        def child(body: dict) -> Reply:
            child_tools.append([t["function"]["name"] for t in body.get("tools", [])])
            if after_tool(body):
                return Reply(text="could not: " + " ".join(tool_results(body)))
            return Reply(tool_calls=[("bash", {"command": "touch pwned"})])

        def parent(body: dict) -> Reply:
            if after_tool(body):
                return Reply(text=tool_results(body)[0])
            return Reply(
                tool_calls=[("task", {"description": "read", "prompt": "read it", "agent": "reader"})]
            )

        server.responder = Model(parent, child)
        trusted = run_cli(
            [
                "run",
                "go",
                "--trust",
                "--yes",
                "--sandbox",
                "off",
                *flags(server, tmp_path / "t.db", window=64_000),
            ],
            workspace,
        )
        assert trusted.returncode == 0, trusted.stderr
        first_parent = next(b for b in server.requests if "go" in json.dumps(b["messages"][-1]))
        offered = task_description(first_parent)
        assert "alpha: Alpha finds the parser." in offered and "beta: Beta reviews diffs." in offered
    assert child_tools and all("bash" not in names and "read_file" in names for names in child_tools)
    assert "unknown tool 'bash'" in trusted.stdout
    assert "broken.md not loaded" in trusted.stderr and "never closed" in trusted.stderr
    assert not (workspace / "pwned").exists()


def test_trust_question_lists_the_project_agents(workspace):
    """An untrusted folder's agent files are among what trusting would enable (the TUI's trust
    question lists `loaded.ignored`); trusted, they load and nothing is withheld."""
    from agent_tui.config import load_config
    from agent_tui.policy import trust

    project_agents(workspace)
    loaded = load_config(cwd=workspace, env={}, rule_words=SHIPPED_WORDS)
    assert not loaded.config.provenance.project_agents
    assert any(".agent-tui/agents/alpha.md" in item for item in loaded.ignored)
    assert any(".claude/agents/beta.md" in item for item in loaded.ignored)
    trust.add(workspace)
    again = load_config(cwd=workspace, env={}, rule_words=SHIPPED_WORDS)
    assert again.config.provenance.project_agents and not again.ignored


async def test_the_services_read_the_definitions_once_when_built(server, workspace, tmp_path):
    """`build_services` reads the definitions in its one pass: they are there before any session
    (nothing fills them on first use), and a broken file's notice is among the start-up notices
    every front end shows."""
    from agent_tui.compose.factory import build_services
    from agent_tui.policy import trust
    from tests.support.agent_fixtures import make_config

    project_agents(workspace)
    (workspace / ".claude" / "agents" / "broken.md").write_text("---\nname: broken\n")
    trust.add(workspace)
    config = make_config(server, tmp_path / "d.db", cwd=workspace)
    assert config.provenance.project_agents
    services = await build_services(config, workspace=workspace, start_mcp=False)
    try:
        assert set(services.definitions.agents) == {"alpha", "beta", "reader"}
        assert any("broken.md not loaded" in line for line in services.notices)
    finally:
        await services.close()
