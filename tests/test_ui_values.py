"""The UI's pure parts: slash-command parsing, transcript entries, figures, theme files."""

from __future__ import annotations

from agent_tui.base.messages import Message, ResultRef, ToolCall, assistant, tool_result, user
from agent_tui.frontends.tui import formatting, slash, themes
from agent_tui.frontends.tui.transcript import (
    AgentEntry,
    NoticeEntry,
    ToolEntry,
    UserEntry,
    entries_from_history,
    tool_finished,
)


class TestSlash:
    def test_parse_command_and_argument(self):
        """`/compact keep the plan` names compact with its instructions."""
        parsed = slash.parse("/compact keep the plan")
        assert parsed is not None
        assert parsed.command.name == "compact" and parsed.argument == "keep the plan"

    def test_prompt_is_not_a_command(self):
        """Text, paths and `//` are prompts."""
        assert slash.parse("fix the tests") is None
        assert slash.parse("/etc/hosts is odd") is None
        assert slash.parse("//compact") is None

    def test_unknown_command_reported_but_paths_are_not(self):
        """`/frobnicate` is a mistyped command; `/etc/hosts` is a prompt about a path."""
        assert slash.unknown_command("/frobnicate now") == "frobnicate"
        assert slash.unknown_command("/etc/hosts") is None
        assert slash.unknown_command("/help") is None

    def test_completions_by_prefix(self):
        """`/c` offers every command starting with c, in the registry's order; a typed space ends
        completion."""
        assert [c.name for c in slash.completions("/c")] == ["compact", "context", "clear", "cost", "config"]
        assert slash.completions("/compact now") == []
        assert len(slash.completions("/")) == len(slash.COMMANDS)


class TestTranscript:
    def test_tool_results_join_their_calls(self):
        """A stored conversation becomes user, reply and one folded line per tool call."""
        call = ToolCall("c1", "bash", '{"command": "pytest -q"}')
        ref = ResultRef("r_7f3a", 48_000, 1204, "bash")
        history = [
            user("run the tests"),
            assistant("Running.", (call,)),
            tool_result(call, "exit 1", ref),
            assistant("Fixed."),
        ]
        entries = entries_from_history(history)
        assert entries[0] == UserEntry("run the tests")
        assert entries[1] == AgentEntry("Running.")
        tool = entries[2]
        assert isinstance(tool, ToolEntry)
        assert tool.arguments == "pytest -q" and tool.ref == "r_7f3a"
        assert "47 KB" in tool.detail and "1 204 lines" in tool.detail and "ref r_7f3a" in tool.detail
        assert entries[3] == AgentEntry("Fixed.")

    def test_unanswered_call_is_cancelled(self):
        """A call without a result shows as cancelled, not running forever."""
        call = ToolCall("c1", "bash", '{"command": "sleep 9"}')
        entries = entries_from_history([user("x"), assistant(None, (call,))])
        assert entries[-1].state == "cancelled"

    def test_notes_and_summaries(self):
        """Interruption notes become notices; summaries a foldable line."""
        history = [
            Message(role="user", content="[interrupted by the user]", kind="note"),
            Message(role="user", content="We fixed the cart.", kind="summary"),
        ]
        entries = entries_from_history(history)
        assert isinstance(entries[0], NoticeEntry)
        assert isinstance(entries[1], ToolEntry) and entries[1].name == "summary"

    def test_finished_line_has_duration_once(self):
        """Duration is added to the summary unless the tool already printed one."""
        call = ToolCall("c1", "bash", '{"command": "ls"}')
        entry = tool_finished(
            call, ref=None, is_error=False, summary="exit 0", view="a", duration=2.13, outcome="ok"
        )
        assert entry.detail == "exit 0 · 2.1 s"
        entry = tool_finished(
            call, ref=None, is_error=True, summary="exit 1 · 2.1 s", view="", duration=2.1, outcome="error"
        )
        assert entry.detail == "exit 1 · 2.1 s" and entry.state == "error"

    def test_a_call_under_a_tenth_of_a_second_does_not_say_zero(self):
        """A read that took 20 ms said "0.0 s"; a bash call's own status said it too, live and
        resumed. Both say "under 0.1 s", as the compaction line does."""
        from agent_tui.tools.bash_status import summary_from_status
        from agent_tui.tools.process_group import format_seconds

        call = ToolCall("c1", "read_file", '{"path": "a.py"}')
        entry = tool_finished(
            call, ref=None, is_error=False, summary="3 lines", view="a", duration=0.02, outcome="ok"
        )
        assert entry.detail == "3 lines · under 0.1 s"
        status = f"[exit code 0 · {format_seconds(0.004)}]"
        assert status == "[exit code 0 · under 0.1 s]"
        assert summary_from_status(f"hello\n{status}") == "exit 0 · under 0.1 s"
        assert formatting.duration(0.06) == "0.1 s" and format_seconds(0.06) == "0.1 s"

    def test_two_thousand_messages(self):
        """Entries for a 2 000-message history build without Textual, one per message, in
        order (how fast the session opens is benchmarks/tui.py's)."""
        history = [user(f"q{i}") if i % 2 == 0 else assistant(f"a{i}") for i in range(2000)]
        entries = entries_from_history(history)
        assert len(entries) == 2000
        assert [e.text for e in entries[:3]] == ["q0", "a1", "q2"] and entries[-1].text == "a1999"


class TestFormatting:
    def test_tokens(self):
        """Meter figures: 950, 9.4k, 117k, 1.2M."""
        assert [formatting.tokens(n) for n in (950, 9_406, 117_000, 1_200_000)] == [
            "950",
            "9.4k",
            "117k",
            "1.2M",
        ]

    def test_count_size_age(self):
        """Exact counts group thousands; sizes and ages read naturally."""
        assert formatting.count(102_851) == "102 851"
        assert formatting.size(48 * 1024) == "48 KB"
        assert formatting.age(30) == "just now" and formatting.age(7200) == "2 h"


class TestThemes:
    def test_builtin_themes_load(self):
        """agent-dark and agent-light parse and carry the meter variables."""
        loaded = themes.load_themes([themes.BUILTIN_DIR])
        names = {t.name: t for t in loaded.themes}
        assert set(names) >= {"agent-dark", "agent-light"} and not loaded.problems
        assert names["agent-light"].dark is False
        assert set(themes.VARIABLE_DEFAULTS) <= set(names["agent-dark"].variables)

    def test_bad_theme_file_is_skipped_with_a_reason(self, tmp_path):
        """A broken file is reported in one line and the others still load."""
        (tmp_path / "bad.toml").write_text("name = 'x'\nprimary = 'not a colour'\n")
        (tmp_path / "worse.toml").write_text("this is not toml")
        (tmp_path / "good.toml").write_text("name = 'mine'\nprimary = '#112233'\n")
        loaded = themes.load_themes([tmp_path])
        assert [t.name for t in loaded.themes] == ["mine"]
        assert len(loaded.problems) == 2
        assert all("\n" not in p and p.startswith("Theme skipped:") for p in loaded.problems)
