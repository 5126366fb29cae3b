"""Installing like a tool: the wheel `pipx install .` / `uv tool install .` would build carries
the app (themes and stylesheet included) and no test-only code, and the `agent-tui` it installs
works: `--version` and a headless `run` against the local test server.

The fresh venv gets the wheel without dependencies; the dependencies come from the development
venv's site-packages through a `.pth` line (offline, and the editable install of the working tree
stays out of it: `.pth` files inside a path added that way are not processed).
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

from testkit.fake_openai import FakeOpenAI, Reply

ROOT = Path(__file__).parent.parent


def build_wheel(out: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return next(out.glob("agent_tui-*.whl"))


def test_wheel_installs_a_working_agent_tui(tmp_path):
    wheel = build_wheel(tmp_path / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    assert "agent_tui/frontends/tui/app.tcss" in names
    assert {
        "agent_tui/frontends/tui/themes/agent-dark.toml",
        "agent_tui/frontends/tui/themes/agent-light.toml",
    } <= set(names)
    assert not [n for n in names if n.startswith(("testkit/", "tests/", "benchmarks/"))]

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    bin_dir = env_dir / "bin"
    fresh_site = next((env_dir / "lib").glob("python3*/site-packages"))
    (fresh_site / "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(bin_dir / "python"),
            "install",
            "--no-deps",
            "-q",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
        # With the checkout on PYTHONPATH pip finds agent-tui "already installed" and skips it.
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    work = tmp_path / "elsewhere"  # not the checkout: agent_tui must come from the wheel
    work.mkdir()
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "AGENT_TUI_HOME": str(tmp_path / "home")}
    env.pop("PYTHONPATH", None)
    version = subprocess.run(
        [str(bin_dir / "agent-tui"), "--version"],
        cwd=work,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert version.returncode == 0 and version.stdout.startswith("agent-tui ")
    where = subprocess.run(
        [str(bin_dir / "python"), "-c", "import agent_tui; print(agent_tui.__file__)"],
        cwd=work,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert str(env_dir) in where.stdout, where.stdout  # the wheel's copy, not the working tree

    with FakeOpenAI(window=32_000) as server:
        server.enqueue(Reply(text="installed and answering"))
        run = subprocess.run(
            [
                str(bin_dir / "agent-tui"),
                "run",
                "hello",
                "--model",
                "openai/fake-model",
                "--api-base",
                server.base_url,
                "--context-window",
                "32000",
                "--db",
                str(tmp_path / "h.db"),
            ],
            cwd=work,
            capture_output=True,
            text=True,
            env=env,
            timeout=180,
        )
    assert run.returncode == 0, run.stderr
    assert "installed and answering" in run.stdout
