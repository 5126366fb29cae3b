"""One front-matter reader for every Markdown file that has one: custom commands, folder skills,
sub-agent definitions and the user's skill files read the same header the same way — folded
lines, quotes, a hint in brackets, a byte-order mark — and name a bad line the same way."""

from __future__ import annotations

from agent_tui.agent.definitions import read_definition
from agent_tui.context.memory import parse_skill
from agent_tui.extensions.commands import read_command
from agent_tui.extensions.skills import discover_skills
from agent_tui.tools.registry import ToolRegistry, builtin_tools
from tests.support.extend import write

HEADER = (
    "\ufeff---\n"
    "name: helper\n"
    "description: Reviews database migrations\n"
    "  for locks and long rewrites\n"
    "argument-hint: [pr-number] [priority]\n"
    'model: "openai/small-model"\n'
    "tools: Read, Grep\n"
    "---\n"
    "Body here.\n"
)
DESCRIPTION = "Reviews database migrations for locks and long rewrites"


def test_every_reader_reads_the_same_header(workspace):
    """Commands, folder skills, agent definitions and user skill files: the same description
    (its folded line joined), the body without the header, and no problem reported."""
    command, notices = read_command(write(workspace / "cmd/helper.md", HEADER), "helper")
    assert notices == []
    assert command is not None and command.description == DESCRIPTION
    assert command.argument_hint == "[pr-number] [priority]"
    assert command.model == "openai/small-model" and command.body == "Body here."

    write(workspace / ".agent-tui/skills/helper/SKILL.md", HEADER)
    catalog = discover_skills(workspace, trusted=True)
    assert catalog.notices == ()
    assert catalog.skills["helper"].description == DESCRIPTION

    agent = read_definition(write(workspace / "agents/helper.md", HEADER))
    assert agent.description == DESCRIPTION and agent.prompt == "Body here."
    ToolRegistry(builtin_tools())  # the names `Read` and `Grep` are what the built-ins declare
    assert agent.tool_names() == ("read_file", "grep")

    skill = parse_skill(write(workspace / "skills/helper.md", HEADER))
    assert skill.description == DESCRIPTION and skill.text == "Body here."


def test_a_bad_line_is_named_the_same_way_by_each_reader(workspace):
    """Line 3 is not `key: value`: a command and a skill load with a notice naming line 3, an
    agent definition is refused naming line 3."""
    text = "---\ndescription: fine\nthis line is wrong\n---\nbody\n"
    _command, notices = read_command(write(workspace / "c/bad.md", text), "bad")
    assert len(notices) == 1 and "bad.md:3: not a `key: value` line" in notices[0]
    write(workspace / ".agent-tui/skills/bad/SKILL.md", text)
    (notice,) = discover_skills(workspace, trusted=True).notices
    assert "bad/SKILL.md:3: not a `key: value` line" in notice
    try:
        read_definition(write(workspace / "a/bad.md", text))
    except ValueError as exc:
        assert str(exc).startswith("line 3: not a `key: value` line")
    else:
        raise AssertionError("a malformed agent definition loaded")


def test_the_yaml_forms_such_files_use():
    """A value on the lines under its key, a `|` block kept line by line, a `>` block folded, a
    block list, an inline list and a hint in brackets kept as written."""
    from agent_tui.base.frontmatter import read

    doc = read(
        "---\ndescription:\n  first part\n  second part\nnotes: |\n  line one\n  line two\n"
        "summary: >\n  folded\n  text\ntools:\n  - a\n  - b\nmore: [c, d]\nhint: [x] [y]\n---\nB\n"
    )
    assert doc.problems == ()
    assert doc.meta == {
        "description": "first part second part",
        "notes": "line one\nline two",
        "summary": "folded text",
        "tools": ["a", "b"],
        "more": ["c", "d"],
        "hint": "[x] [y]",
    }
    assert doc.body == "B"
