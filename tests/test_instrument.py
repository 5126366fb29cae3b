"""The benchmark instrumentation point: silent for users, exact for benchmarks."""

from __future__ import annotations

import os
import subprocess
import sys

from agent_tui.runtime import instrument
from tests.support.ui_helpers import make_app, settle, until


class TestInstrument:
    def test_off_by_default_records_nothing(self):
        """Without a recorder or AGENT_TUI_INSTRUMENT, marks go nowhere."""
        assert not instrument.enabled()
        instrument.mark("first_frame")
        with instrument.recording() as rec:
            pass
        assert rec.events == []

    def test_in_process_recording_keeps_marks_and_durations(self):
        """Marks and records made inside the block are kept in order, then recording stops."""
        with instrument.recording() as rec:
            assert instrument.enabled()
            instrument.mark("chat_shown")
            instrument.record("key", 0.25)
            instrument.mark("chat_shown")
        instrument.mark("chat_shown")
        assert len(rec.times("chat_shown")) == 2
        assert rec.last("chat_shown") == rec.times("chat_shown")[-1]
        assert rec.durations("key") == [0.25]
        assert rec.last("never") is None
        assert not instrument.enabled()

    def test_child_process_writes_json_lines(self, tmp_path):
        """A process started with AGENT_TUI_INSTRUMENT appends its marks to that file."""
        out = tmp_path / "marks.jsonl"
        code = "from agent_tui.runtime import instrument; instrument.mark('first_frame'); instrument.record('key', 1.5)"
        env = {**os.environ, instrument.ENV: str(out)}
        subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=os.getcwd())
        events = instrument.read_file(out)
        assert [(e.name, e.seconds) for e in events] == [("first_frame", None), ("key", 1.5)]
        assert all(e.at > 1e9 for e in events)  # wall-clock, comparable across processes

    async def test_app_marks_first_frame_and_chat_shown(self, loop_config, loop_workspace):
        """The TUI marks its first frame and the opened session's chat being drawn."""
        with instrument.recording() as rec:
            app = make_app(loop_config, loop_workspace)
            async with app.run_test(size=(120, 36)) as pilot:
                await settle(pilot)
                await until(pilot, lambda: rec.last("chat_shown") is not None, what="chat_shown")
        assert rec.last("first_frame") is not None
        assert rec.last("chat_shown") is not None
