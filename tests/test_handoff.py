"""Hand-off (issue 44 item 3): a new session seeded with a summary for the goal, the pins, the
task list and refs into the old session, which resolve from the new one."""

from __future__ import annotations

import json
import re

from agent_tui.agent.handoff import hand_off
from agent_tui.compose.factory import build_services
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, run_agent_tui, server_flags

TODOS = [{"content": "Fix the parser", "status": "in_progress", "activeForm": "Fixing the parser"}]
PIN = "The parser must stay Python 3.9 compatible."
SUMMARY = "The tokenizer was rewritten; the parser's off-by-one remains."


def model(body: dict) -> Reply:
    if not body.get("tools") and "<conversation>" in json.dumps(body):
        return Reply(text=f"<retain>parser.py</retain><summary>{SUMMARY}</summary>")
    return Reply(text="ok")


class TestHandOff:
    async def test_first_request_holds_summary_pins_tasks_and_refs_resolve(self, tmp_path, workspace):
        """The new session's first request holds the goal's summary, the pin and the task list;
        the old session's output resolves by its short id and its transcript by the URI the seed
        names, both read from the new session."""
        with FakeOpenAI(responder=model) as srv:
            services = await build_services(make_config(srv, tmp_path / "h.db"), workspace=workspace)
            try:
                old = await services.new_session(yes=True)
                srv.responder = None
                srv.enqueue(
                    Reply(tool_calls=[("todo", {"todos": TODOS})]),
                    Reply(tool_calls=[("pin", {"text": PIN})]),
                    Reply(tool_calls=[("bash", {"command": "echo parser line 41 is off by one"})]),
                    Reply(text="found it"),
                )
                await collect(old.run_turn("look at the parser"))
                srv.responder = model
                ref = next(m.output_ref for m in old.history if m.output_ref is not None and m.name == "bash")
                new_id = await hand_off(services.store, old, "fix the parser's off-by-one")
                new = await services.resume_session(new_id, yes=True)
                srv.responder = None
                srv.enqueue(Reply(text="continuing"))
                await collect(new.run_turn("go on"))
                first = json.dumps(srv.requests[-1])
                assert SUMMARY in first
                assert json.dumps(PIN)[1:-1] in first
                assert "[~] Fixing the parser" in first
                assert ref.id in first
                assert old.session_id in first
                resolved = await services.store.results.resolve(ref.id, new.session_id)
                assert resolved.ref.session_id == old.session_id
                uri = re.search(r'ctx://[^"\\]+/messages:1-\d+', first).group(0)
                text = await services.store.transcript.read(uri, session_id=new.session_id)
                assert "look at the parser" in text
            finally:
                await services.close()

    def test_run_handoff_sends_the_prompt_in_the_new_session(self, tmp_path, workspace):
        """`run -c --handoff PROMPT`: the prompt goes to a new session whose request holds the
        summary; stderr names the new session."""
        with FakeOpenAI(responder=model) as srv:
            db = tmp_path / "r.db"
            assert run_agent_tui(["run", "hello", *server_flags(srv, db)], workspace).returncode == 0
            out = run_agent_tui(
                ["run", "-c", "--handoff", "fix the parser", *server_flags(srv, db)], workspace
            )
            assert out.returncode == 0, out.stderr
            assert "handed off to session" in out.stderr
            last = json.dumps(srv.requests[-1])
            assert SUMMARY in last and "Hand-off from session" in last and "fix the parser" in last
