"""The collector held off during start-up always comes back: after the TUI's warm-up, at once for
every other command, and never turned on when something else had turned it off (issue 31)."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from agent_tui.runtime import gc_pause
from tests.support.cli import ROOT
from tests.support.ui_helpers import make_app, settle


@pytest.fixture
def collector_restored():
    """Whatever a test does to the collector, the rest of the run gets it back on."""
    yield
    gc_pause.resume()
    gc.enable()


class TestPauseResume:
    def test_pause_then_resume_freezes_and_reenables(self, collector_restored):
        """resume() turns the collector back on and freezes what start-up built."""
        gc_pause.pause()
        assert not gc.isenabled() and gc_pause.paused()
        frozen_before = gc.get_freeze_count()
        gc_pause.resume()
        assert gc.isenabled() and not gc_pause.paused()
        assert gc.get_freeze_count() >= frozen_before
        gc_pause.resume()  # a second call changes nothing
        assert gc.isenabled()

    def test_resume_leaves_a_collector_someone_else_disabled(self, collector_restored):
        """A collector turned off by someone else stays off: resume only undoes its own pause."""
        gc.disable()
        gc_pause.pause()
        gc_pause.resume()
        assert not gc.isenabled()


def _entry_then_gc_state(*argv: str) -> str:
    probe = (
        "import gc, sys\n"
        f"sys.argv = ['agent-tui', *{list(argv)!r}]\n"
        "from agent_tui.entry import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('gc', gc.isenabled(), gc.get_freeze_count() > 0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    return done.stdout.strip().splitlines()[-1]


class TestEntry:
    def test_a_sub_command_runs_with_the_collector_on(self, tmp_path, monkeypatch):
        """`agent-tui <sub-command>` resumes the collector once typer has chosen the command."""
        monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))
        assert _entry_then_gc_state("trust", "list") == "gc True True"

    def test_print_mode_runs_with_the_collector_on(self, tmp_path, monkeypatch):
        """`agent-tui -p` (the headless path through the TUI's own callback) resumes it too."""
        monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path))
        # No model configured: -p fails with its one-line message, after the callback ran.
        assert _entry_then_gc_state("-p", "--model", "", "hi") == "gc True True"


class TestTui:
    async def test_the_warm_up_turns_the_collector_back_on(
        self, loop_config, loop_workspace, collector_restored
    ):
        """The TUI started with the collector paused has it on again once its warm-up is done."""
        gc_pause.pause()
        app = make_app(loop_config, loop_workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await app.warmed()
            await settle(pilot)
            assert gc.isenabled()
            assert not gc_pause.paused()
