"""`config.example.toml` and the README's config-key and command tables are generated from the
declarations (agent_tui/docs_gen.py); the committed copies must equal what would be generated,
and a hand edit out of step is caught."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from agent_tui import docs_gen
from agent_tui.config import Config, flatten

ROOT = Path(__file__).resolve().parent.parent


def _copy(tmp_path: Path) -> Path:
    for name in ("README.md", "config.example.toml", "docs/configuration.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "docs" / "protocol", tmp_path / "docs" / "protocol")
    return tmp_path


def test_committed_docs_are_generated():
    """The committed example file and README tables equal what `make docs` writes."""
    out_of_step = docs_gen.stale(ROOT)
    assert out_of_step == [], f"{', '.join(out_of_step)} out of step with the declarations: run `make docs`"


def test_a_hand_edited_example_is_caught(tmp_path):
    """Changing a default by hand in config.example.toml makes the check fail."""
    root = _copy(tmp_path)
    example = root / "config.example.toml"
    example.write_text(example.read_text().replace("max_steps = 50", "max_steps = 60"))
    assert docs_gen.stale(root) == ["config.example.toml"]


def test_a_hand_edited_table_is_caught(tmp_path):
    """A generated row edited by hand (the config table in docs/, the command table in the README)
    fails the check, while the prose around the tables is the file's own."""
    root = _copy(tmp_path)
    readme, configuration = root / "README.md", root / "docs" / "configuration.md"
    text, keys = readme.read_text(), configuration.read_text()
    configuration.write_text(keys.replace("| `agent.max_steps` | `50` |", "| `agent.max_steps` | `60` |"))
    assert docs_gen.stale(root) == ["docs/configuration.md"]
    configuration.write_text(keys.replace("## Configuration\n", "## Configuration\n\nA hand-written line.\n"))
    assert docs_gen.stale(root) == []
    readme.write_text(text.replace("| `/help` |", "| `/helpme` |", 1))
    assert docs_gen.stale(root) == ["README.md"]


def test_a_hand_edited_protocol_schema_is_caught(tmp_path):
    """The operations' and events' JSON Schema (docs/protocol/) are generated like the tables."""
    root = _copy(tmp_path)
    schema = root / "docs" / "protocol" / "operations.schema.json"
    schema.write_text(schema.read_text().replace('"set_model"', '"switch_model"'))
    assert docs_gen.stale(root) == ["docs/protocol/operations.schema.json"]


def test_check_command_says_to_run_make_docs(tmp_path):
    """`python -m agent_tui.docs_gen --check` exits 1 naming the file and `make docs`."""
    root = _copy(tmp_path)
    (root / "config.example.toml").write_text("# edited\n")
    code = (
        "import sys; from pathlib import Path; from agent_tui import docs_gen; "
        f"docs_gen.ROOT = Path({str(root)!r}); sys.exit(docs_gen.main(['--check']))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert out.stdout.strip() == ("out of step with the declarations: config.example.toml; run `make docs`")


def test_generated_example_loads_as_the_defaults():
    """Every key the generated example sets uncommented is the declared default."""
    data = tomllib.loads(docs_gen.example_toml())
    defaults = flatten(Config())
    for section, table in data.items():
        for key, value in table.items():
            assert defaults[f"{section}.{key}"] == value, f"{section}.{key}"
