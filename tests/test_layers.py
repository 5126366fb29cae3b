"""The layer rule: context/ and store/ never import textual, rich or litellm; the CLI's start-up
imports neither litellm nor tiktoken."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def imported_after(code: str) -> set[str]:
    probe = code + "\nimport sys\nprint('@@MODULES@@', ' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    listing = out.stdout.split("@@MODULES@@", 1)[1]
    return {name.split(".")[0] for name in listing.split()}


class TestLayers:
    def test_core_imports_no_ui_or_provider(self):
        """Importing every module of context/ and store/ loads no textual, rich or litellm."""
        modules = [
            ".".join(p.relative_to(ROOT).with_suffix("").parts)
            for pkg in ("context", "store")
            for p in (ROOT / "agent_tui" / pkg).rglob("*.py")
        ]
        code = "\n".join(f"import {m}" for m in modules)
        loaded = imported_after(code)
        assert not loaded & {"textual", "rich", "litellm"}

    def test_cli_help_is_light(self):
        """`agent-tui --help` imports neither litellm nor tiktoken."""
        code = (
            "import sys; sys.argv=['agent-tui','--help']\nfrom agent_tui.frontends.cli.main import app\n"
            "try:\n    app()\nexcept SystemExit:\n    pass"
        )
        loaded = imported_after(code)
        assert "litellm" not in loaded and "tiktoken" not in loaded


class TestCli:
    def test_version_and_module_entry(self):
        out = subprocess.run(
            [sys.executable, "-m", "agent_tui", "--version"], capture_output=True, text=True, cwd=ROOT
        )
        assert out.returncode == 0 and out.stdout.startswith("agent-tui ")

    def test_config_error_is_one_line_not_a_traceback(self, tmp_path):
        (tmp_path / ".agent-tui.toml").write_text("[agent]\nbogus = 1\n")
        out = subprocess.run(
            [sys.executable, "-m", "agent_tui", "config", "show"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        assert out.returncode == 2
        assert "unknown key agent.bogus" in out.stderr
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
