"""Config that makes no sense is refused in one line naming the file, the key and the range;
allow rules that can never match say what was meant; start-up failures (bad bytes, unwritable
home, logging) are one line plus the log path, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
import typing

import pytest

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import ConfigError, load_config
from agent_tui.config.checks import SPECS
from agent_tui.config.coerce import HINTS
from agent_tui.policy.permission_rules import AllowRule


def allow_rule_problem(rule: str) -> str | None:
    return AllowRule.problem_any(rule, SHIPPED_WORDS)


def write_user_config(home, text: str | bytes):
    folder = home / "config"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.toml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def cli(*args, home, cwd) -> subprocess.CompletedProcess:
    env = {**os.environ, "AGENT_TUI_HOME": str(home)}
    env.pop("AGENT_TUI_MODEL", None)
    return subprocess.run(
        [sys.executable, "-m", "agent_tui.frontends.cli.main", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )


class TestRanges:
    @pytest.mark.parametrize(
        ("section", "key", "value", "expected"),
        [
            ("tools", "bash_timeout", "-5", "between 0 and 1800 seconds (not 0)"),
            ("agent", "max_steps", "0", "between 1 and 10000"),
            ("tool_output", "max_message_bytes", "0", "between 1024 and"),
            ("loop", "max_iterations", "-3", "between 1 and 1e+06"),
            ("tools", "search_timeout", "0", "between 0 and 600 seconds"),
            ("tools", "max_output_bytes", "10", "between 1024 and"),
            ("agent", "warn_at", "nan", "between 0 and 1"),
        ],
    )
    def test_out_of_range_is_one_line_with_file_key_range(
        self, isolated_home, tmp_path, section, key, value, expected
    ):
        """The issue's nonsense values each give one line: file, key, value, range."""
        path = write_user_config(isolated_home, f"[{section}]\n{key} = {value}\n")
        with pytest.raises(ConfigError) as err:
            load_config(cwd=tmp_path, env={}, rule_words=SHIPPED_WORDS)
        message = str(err.value)
        assert message.startswith(f"{path}: {section}.{key} = ") and expected in message
        assert "\n" not in message

    def test_every_number_has_a_range(self):
        """No int or float key is left without a range (new keys must add one)."""
        numeric = set()
        for section, hints in HINTS.items():
            for key, tp in hints.items():
                args = set(typing.get_args(tp)) or {tp}
                if args & {int, float}:
                    numeric.add(f"{section}.{key}")
        assert {key for key in numeric if SPECS[key].range is None} == set()

    def test_defaults_are_in_range(self, tmp_path):
        """The shipped defaults pass their own ranges."""
        load_config(cwd=tmp_path, env={}, rule_words=SHIPPED_WORDS)

    def test_command_line_value_names_the_command_line(self, tmp_path):
        with pytest.raises(ConfigError, match=r"^command line: model.context_window = 10 is out of range"):
            load_config(
                overrides={"model": {"context_window": 10}}, cwd=tmp_path, env={}, rule_words=SHIPPED_WORDS
            )


class TestOneSetOfBounds:
    """config.py's own checks and config_checks.RANGES disagreed on three keys; one declaration
    per key now decides, whichever end of it is crossed."""

    @pytest.mark.parametrize(
        ("section", "key", "value", "expected"),
        [
            ("compaction", "target_ratio", "1.0", "between 0 and 1 (not 0 or 1)"),
            ("compaction", "target_ratio", "0.0", "between 0 and 1 (not 0 or 1)"),
            ("model", "thinking_budget_tokens", "500", "0 (off) or between 1024 and 1e+06 tokens"),
            ("model", "thinking_budget_tokens", "2000000", "0 (off) or between 1024 and 1e+06 tokens"),
            ("model", "context_window", "100", "between 256 and 1e+08 tokens"),
        ],
    )
    def test_each_end_of_a_disputed_key_is_one_message(
        self, isolated_home, tmp_path, section, key, value, expected
    ):
        """Both ends of each key the two validators disagreed on give the same kind of line."""
        path = write_user_config(isolated_home, f"[{section}]\n{key} = {value}\n")
        with pytest.raises(ConfigError) as err:
            load_config(cwd=tmp_path, env={}, rule_words=SHIPPED_WORDS)
        assert (
            str(err.value)
            == f"{path}: {section}.{key} = {float(value) if '.' in value else int(value)!r} is out of range: must be {expected}"
        )

    @pytest.mark.parametrize(
        ("section", "key", "value"),
        [
            ("compaction", "target_ratio", "0.99"),
            ("model", "thinking_budget_tokens", "0"),
            ("model", "thinking_budget_tokens", "1024"),
            ("model", "context_window", "256"),
        ],
    )
    def test_inside_the_declared_range_loads(self, isolated_home, tmp_path, section, key, value):
        """The values just inside a disputed range are accepted by the one pass."""
        write_user_config(isolated_home, f"[{section}]\n{key} = {value}\n")
        loaded = load_config(cwd=tmp_path, env={}, rule_words=SHIPPED_WORDS)
        assert str(getattr(getattr(loaded.config, section), key)) == value

    @pytest.mark.parametrize(
        ("section", "key", "value", "message"),
        [
            (
                "store",
                "recall_scope",
                '"everything"',
                'store.recall_scope must be "project" or "all", got \'everything\'',
            ),
            (
                "provider",
                "transport",
                '"curl"',
                'provider.transport must be "auto" or "litellm", got \'curl\'',
            ),
            (
                "model",
                "reasoning_effort",
                '"max"',
                "model.reasoning_effort must be one of minimal, low, medium, high, got 'max'",
            ),
        ],
    )
    def test_choices_keep_their_messages(self, isolated_home, tmp_path, section, key, value, message):
        """A value outside a key's declared choices reads as it did before the schema."""
        write_user_config(isolated_home, f"[{section}]\n{key} = {value}\n")
        with pytest.raises(ConfigError) as err:
            load_config(cwd=tmp_path, env={}, rule_words=SHIPPED_WORDS)
        assert str(err.value) == message


class TestAllowRules:
    def test_missing_bash_prefix_has_a_hint(self, isolated_home, tmp_path):
        """allow = ["git status"] used to match nothing, silently."""
        write_user_config(isolated_home, '[tools]\nallow = ["git status"]\n')
        with pytest.raises(ConfigError, match=r'did you mean "bash:git status"\?'):
            load_config(cwd=tmp_path, env={}, rule_words=SHIPPED_WORDS)

    @pytest.mark.parametrize(
        "rule",
        [
            "bash:git status",
            "bash:pytest*",
            "edit_file",
            "mcp__time__now",
            "bash",
            "edit_file:src/*",
            "Bash(ls:*)",
        ],
    )
    def test_valid_rules_pass(self, rule):
        assert allow_rule_problem(rule) is None

    @pytest.mark.parametrize(
        ("rule", "hint"),
        [
            ("shell:ls -la", 'did you mean "bash:ls -la"?'),
            ("bash:", "needs a command prefix"),
            ("", "empty rule"),
            ("task:src/*", 'did you mean "task" or "bash:src/*"?'),
            ("Foo(x)", "is not a Claude Code tool"),
        ],
    )
    def test_rules_that_never_match(self, rule, hint):
        assert hint in (allow_rule_problem(rule) or "")


class TestStartupFailures:
    def test_non_utf8_config_is_one_line_with_the_log(self, isolated_home, tmp_path):
        """A config file with a 0xff byte: one line naming the file and the log (was 41 lines)."""
        path = write_user_config(isolated_home, b'[agent]\nmax_steps = "\xff"\n')
        out = cli("run", "hi", home=isolated_home, cwd=tmp_path)
        assert out.returncode == 2
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in out.stderr
        assert f"{path}: not UTF-8 text (byte 0xff" in lines[0] and "(log: " in lines[0]

    def test_unwritable_home_is_one_line_with_the_log(self, tmp_path):
        """AGENT_TUI_HOME under a plain file (no folder can be made there, even as root): one
        line, the log moved to the temp dir, no traceback."""
        blocker = tmp_path / "file"
        blocker.write_text("")
        out = cli("run", "hi", "-m", "openai/x", home=blocker / "home", cwd=tmp_path)
        assert out.returncode == 1, out.stderr
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in out.stderr
        assert "cannot create the folder" in lines[0] and "agent-tui.log" in lines[0]

    def test_max_steps_zero_no_longer_exits_0(self, isolated_home, tmp_path):
        """max_steps = 0 used to exit 0 after no model call; now exit 2 with the range."""
        write_user_config(isolated_home, "[model]\nname = 'openai/x'\n[agent]\nmax_steps = 0\n")
        out = cli("run", "hi", home=isolated_home, cwd=tmp_path)
        assert out.returncode == 2 and "agent.max_steps = 0 is out of range" in out.stderr
