"""Config: layering, defaults, and one-line errors for bad files."""

from __future__ import annotations

import pytest

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import Config, ConfigError, load_config
from agent_tui.runtime import paths


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


class TestLayering:
    def test_defaults_when_no_file(self, tmp_path):
        """With no file, every key has the design's default."""
        cfg = load_config(cwd=tmp_path, rule_words=SHIPPED_WORDS).config
        assert cfg == Config()
        assert cfg.agent.compact_trigger == 0.95 and cfg.agent.hard_block == 0.98
        assert cfg.agent.warn_at == 0.80 and cfg.agent.result_offload_threshold == 4096
        assert cfg.compaction.target_ratio == 0.6 and cfg.tool_output.max_message_bytes == 51200

    def test_later_layers_win_and_sources_are_tracked(self, tmp_path):
        """user file < project file < AGENT_TUI_MODEL < CLI flags, each value's origin named."""
        write(
            paths.user_config_file(),
            '[model]\nname = "user-model"\ncontext_window = 1000\n[agent]\nwarn_at = 0.7\n',
        )
        project = write(tmp_path / ".agent-tui.toml", '[model]\nname = "project-model"\n')
        loaded = load_config(cwd=tmp_path, env={}, trusted=True, rule_words=SHIPPED_WORDS)
        assert loaded.config.model.name == "project-model"
        assert loaded.config.model.context_window == 1000
        assert loaded.sources["model.name"] == str(project)
        loaded = load_config(cwd=tmp_path, env={"AGENT_TUI_MODEL": "env-model"}, rule_words=SHIPPED_WORDS)
        assert loaded.config.model.name == "env-model"
        loaded = load_config(
            cwd=tmp_path,
            env={"AGENT_TUI_MODEL": "env-model"},
            overrides={"model": {"name": "flag-model", "api_base": None}},
            rule_words=SHIPPED_WORDS,
        )
        assert loaded.config.model.name == "flag-model"
        assert loaded.sources["model.name"] == "command line"
        assert loaded.config.agent.warn_at == 0.7

    def test_tool_output_budget_default_is_clamped(self):
        """Unset budget_tokens = clamp(0.25 × window, 20k, 60k)."""
        cfg = Config()
        assert cfg.tool_output_budget(8192) == 20_000
        assert cfg.tool_output_budget(200_000) == 50_000
        assert cfg.tool_output_budget(1_000_000) == 60_000


class TestErrors:
    def test_malformed_toml_names_the_file(self, tmp_path):
        """A syntax error is one line naming the file."""
        bad = write(tmp_path / ".agent-tui.toml", "[model\nname = 1")
        with pytest.raises(ConfigError) as err:
            load_config(cwd=tmp_path, rule_words=SHIPPED_WORDS)
        assert str(bad) in str(err.value) and "not valid TOML" in str(err.value)
        assert "\n" not in str(err.value)

    def test_unknown_key_names_file_and_key(self, tmp_path):
        """An unknown key names the file, the key and the known keys."""
        write(tmp_path / ".agent-tui.toml", "[agent]\ncompact_triger = 0.9\n")
        with pytest.raises(ConfigError, match=r"unknown key agent.compact_triger.*compact_trigger"):
            load_config(cwd=tmp_path, rule_words=SHIPPED_WORDS)

    def test_unknown_section(self, tmp_path):
        write(tmp_path / ".agent-tui.toml", "[modle]\nname='x'\n")
        with pytest.raises(ConfigError, match=r"unknown section \[modle\]"):
            load_config(cwd=tmp_path, rule_words=SHIPPED_WORDS)

    def test_wrong_type_says_what_was_expected(self, tmp_path):
        """A wrong type names the key and the expected type."""
        write(tmp_path / ".agent-tui.toml", '[model]\ncontext_window = "big"\n')
        with pytest.raises(ConfigError, match=r"model.context_window must be an integer, got 'big'"):
            load_config(cwd=tmp_path, rule_words=SHIPPED_WORDS)

    def test_thresholds_must_be_ordered(self, tmp_path):
        """Thresholds can be raised or lowered, but must stay ordered."""
        write(tmp_path / ".agent-tui.toml", "[agent]\nwarn_at = 0.9\ncompact_trigger = 0.85\n")
        with pytest.raises(ConfigError, match="warn_at ≤ compact_trigger"):
            load_config(cwd=tmp_path, rule_words=SHIPPED_WORDS)
        write(tmp_path / ".agent-tui.toml", "[agent]\ncompact_trigger = 0.97\nhard_block = 0.99\n")
        assert load_config(cwd=tmp_path, rule_words=SHIPPED_WORDS).config.agent.hard_block == 0.99


class TestExampleFile:
    def test_example_documents_every_key_with_its_default(self):
        """config.example.toml loads and equals the defaults, key for key."""
        import tomllib
        from pathlib import Path

        from agent_tui.config import flatten

        example = Path(__file__).parent.parent / "config.example.toml"
        data = tomllib.loads(example.read_text())
        keys = {f"{s}.{k}" for s, t in data.items() for k in t}
        text = example.read_text()
        for key, _value in flatten(Config()).items():
            section, name = key.split(".")
            assert f"{name} =" in text or f"# {name} =" in text, f"{key} not documented"
        assert keys <= set(flatten(Config()))
