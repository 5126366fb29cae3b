"""Nothing heavy before the first request: the modules a headless `run` has loaded when its first
request starts (issue 31). Each one listed here costs tenths of a second of start-up that the first
request does not need: litellm (the direct path speaks the wire itself), pydantic (typer 0.29
builds a pydantic adapter per option; we pin below it), textual and rich (no screen in `run`),
pygments (httpx's own CLI, kept from loading), h2 (HTTP/2, which no client of ours asks for), mcp
(no servers configured), starlette and uvicorn (only `agent-tui serve` needs a server), tiktoken (the first request is far from every threshold: the session's
lazy counter estimates until an exact count matters)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agent_tui.runtime import instrument
from testkit.fake_openai import FakeOpenAI, Reply

ROOT = Path(__file__).resolve().parent.parent
HEAVY = {
    "litellm",
    "pydantic",
    "pydantic_core",
    "textual",
    "rich",
    "pygments",
    "mcp",
    "click",
    "tiktoken",
    "h2",
    "starlette",
    "uvicorn",
    "sse_starlette",
}


def _modules_at_first_request(tmp_path: Path, server: FakeOpenAI, *extra: str) -> set[str]:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(
        f'[model]\nname = "openai/fake-model"\napi_base = "{server.base_url}"\ncontext_window = 32000\n'
    )
    marks = tmp_path / "marks.jsonl"
    env = {
        **{k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")},
        "AGENT_TUI_HOME": str(home),
        "AGENT_TUI_INSTRUMENT": str(marks),
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
    }
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "agent_tui", "run", "--yes", *extra, "say hi"],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    firsts = [e for e in instrument.read_file(marks) if e.name == "first_request"]
    assert len(firsts) == 1
    return set(firsts[0].modules)


class TestFirstRequest:
    def test_no_heavy_module_is_loaded_before_the_first_request(self, tmp_path):
        """A plain headless turn reaches its first request without any of the heavy modules."""
        with FakeOpenAI(responder=lambda body: Reply(text="hi")) as server:
            loaded = _modules_at_first_request(tmp_path, server)
        assert "agent_tui" in loaded and "httpx" in loaded  # the probe saw the real process
        assert not loaded & HEAVY, f"loaded before the first request: {sorted(loaded & HEAVY)}"

    def test_json_output_loads_nothing_heavy_either(self, tmp_path):
        """`run --json` (scripts' mode) reaches its first request as light as plain `run`."""
        with FakeOpenAI(responder=lambda body: Reply(text="hi")) as server:
            loaded = _modules_at_first_request(tmp_path, server, "--json")
        assert not loaded & HEAVY, f"loaded before the first request: {sorted(loaded & HEAVY)}"


class TestVersion:
    def test_version_answers_before_the_cli_is_built(self):
        """`agent-tui --version` prints the version without importing typer or any command."""
        probe = (
            "import sys; sys.argv = ['agent-tui', '--version']\n"
            "from agent_tui.entry import main; main()\n"
            "print(sorted(m for m in sys.modules if m.startswith(('typer', 'agent_tui.'))))"
        )
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
        )
        version_line, modules = done.stdout.splitlines()
        assert version_line.startswith("agent-tui ")
        assert modules == "['agent_tui.entry']"

    def test_the_script_entry_is_the_fast_one(self):
        """The installed `agent-tui` script and `python -m agent_tui` both start at entry.main."""
        import tomllib

        scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
        assert scripts["agent-tui"] == "agent_tui.entry:main"
        assert "from agent_tui.entry import main" in (ROOT / "agent_tui" / "__main__.py").read_text()


class TestTheCommandTable:
    def test_building_the_cli_loads_no_command_s_work(self):
        """Every invocation but `--version` builds the typer application, which imports every
        command's declaration: the TUI's launch waits on it before its first frame. A declaration
        loads its command's work (the composition root, the session, the driver, the store, the
        loop) only when the command runs; one that imported it at the top cost the TUI ~0.1 s."""
        work = (
            "agent_tui.compose.factory",
            "agent_tui.agent.session",
            "agent_tui.agent.events",
            "agent_tui.core.driver",
            "agent_tui.store",
            "agent_tui.autoloop",
            "agent_tui.tools",
            "agent_tui.llm.provider",
            "agent_tui.frontends.server",
            "agent_tui.frontends.acp",
        )
        probe = (
            "import sys, agent_tui.frontends.cli.main\n"
            f"print(sorted(m for m in sys.modules if m.startswith({work!r})))"
        )
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
        )
        assert done.stdout.strip() == "[]"
