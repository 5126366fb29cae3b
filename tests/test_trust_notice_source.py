"""The untrusted-folder notice (and the user-only one) names the file the ignored key came from:
`.agent-tui.local.toml` when it is there, both files when both hold one."""

from __future__ import annotations

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config


def notices(folder) -> list[str]:
    return load_config(cwd=folder, env={}, rule_words=SHIPPED_WORDS).notices


def test_key_from_the_local_file_names_the_local_file(workspace):
    """An ignored key only in .agent-tui.local.toml: the notice names that file, not .agent-tui.toml."""
    (workspace / ".agent-tui.local.toml").write_text('[tools]\nallow = ["bash"]\n')
    [line] = [n for n in notices(workspace) if "ignored from" in n]
    assert "ignored from .agent-tui.local.toml: [tools] allow." in line


def test_keys_from_both_files_name_both(workspace):
    """Ignored keys in both project files: the notice names both."""
    (workspace / ".agent-tui.toml").write_text('[tools]\nallow = ["bash"]\n')
    (workspace / ".agent-tui.local.toml").write_text('[tools]\nallow = ["bash:ls"]\n')
    [line] = [n for n in notices(workspace) if "ignored from" in n]
    assert "ignored from .agent-tui.toml and .agent-tui.local.toml:" in line


def test_user_only_key_from_the_local_file_names_the_local_file(workspace):
    """A user-only key in .agent-tui.local.toml: its notice names the local file."""
    (workspace / ".agent-tui.local.toml").write_text('[store]\nrecall_scope = "all"\n')
    [line] = [n for n in notices(workspace) if "only your own config" in n]
    assert line.startswith("ignored from .agent-tui.local.toml ")
