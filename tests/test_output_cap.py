"""[tools] max_output_bytes: one command's output is capped; past it the process group is killed,
the status says so and the part printed so far is stored (`base64 /dev/urandom` once stored
192 MB in 8 s and would have gone on for the whole 120 s timeout)."""

from __future__ import annotations

import pytest

from agent_tui.tools.base import ToolContext
from agent_tui.tools.bash import BashTool, _group_alive

CAP = 1 << 20


@pytest.fixture
async def store(tmp_path):
    from agent_tui.store import open_store

    store = await open_store(tmp_path / "cap.db")
    yield store
    await store.close()


def ctx_for(tmp_path, store=None, session_id="s") -> ToolContext:
    offload = None
    if store is not None:

        async def offload(tool_name, content):
            return await store.results.offload(session_id, tool_name, "c1", content)

    return ToolContext(
        workspace=tmp_path, session_id=session_id, call_id="c1", offload=offload, max_output_bytes=CAP
    )


class TestOutputCap:
    async def test_endless_output_is_cut_and_the_group_killed(self, tmp_path, store):
        """base64 /dev/urandom with a 1 MB cap: stored 1 MB exactly, group dead, status says so."""
        session = await store.sessions.create(str(tmp_path), "m")
        pidfile = tmp_path / "pgid"
        command = f"echo $$ > {pidfile}; (sleep 300) & base64 /dev/urandom"
        out = await BashTool(kill_grace=1.0).run(
            {"command": command, "timeout": 600}, ctx_for(tmp_path, store, session.id)
        )
        assert out.meta["output_capped"] is True and out.meta["timed_out"] is False
        assert f"passed max_output_bytes ({CAP} bytes)" in out.meta["status_line"]
        assert "process group killed" in out.meta["status_line"]
        assert out.ref is not None and out.ref.byte_size == CAP
        stored = await store.results.get_bytes(out.ref.id)
        assert len(stored) == CAP and stored[:100].strip()
        assert not _group_alive(int(pidfile.read_text()))

    async def test_cap_without_a_store_keeps_head_and_tail(self, tmp_path):
        """With the store down the inline head+tail is kept and the cap still kills the group."""
        out = await BashTool(kill_grace=1.0).run({"command": "yes line", "timeout": 600}, ctx_for(tmp_path))
        assert out.meta["output_capped"] and out.meta["output_bytes"] == CAP
        assert out.text.startswith("line\nline")

    async def test_output_under_the_cap_is_untouched(self, tmp_path, store):
        """A command printing less than the cap exits normally."""
        session = await store.sessions.create(str(tmp_path), "m")
        out = await BashTool().run({"command": "seq 1000"}, ctx_for(tmp_path, store, session.id))
        assert not out.meta["output_capped"] and out.meta["exit_code"] == 0
        assert out.ref is not None and out.ref.line_count == 1000
