"""Every compaction keeps a record (issue 44 item 2): per strategy the outputs it cleared or
condensed by ref and the transcript range it summarised or dropped; each resolves from the store,
the record is stored, `--json` carries it and /context lists it."""

from __future__ import annotations

import json
import re

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, of_type
from tests.support.wires import KEY, WIRES, answers_a_tool
from tests.support.wires import wire_config as config
from tests.support.wires import wire_server as server

REF = re.compile(r"r_[0-9a-f]{10}")


def model(body: dict) -> Reply:
    if not body.get("tools") and "<conversation>" in json.dumps(body):
        return Reply(text="<retain>listings</retain><summary>Each round listed rows.</summary>")
    if answers_a_tool(body):
        return Reply(text="Listed.")
    return Reply(tool_calls=[("bash", {"command": "seq 1 900 | sed 's/^/listing row /'"})])


@pytest.mark.parametrize("wire", WIRES)
async def test_records_name_every_item_and_each_resolves(wire, monkeypatch, tmp_path, workspace):
    """Three compactions or more: every cleared or condensed ref and every replaced range in the
    records reads back from the store; the records are stored and in the JSON event."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with server(wire, model) as srv:
        services = await build_services(config(wire, srv.base_url, tmp_path / "r.db"), workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            results = []
            for n in range(24):
                events = await collect(session.run_turn(f"list rows, round {n}"))
                results += [e.result for e in of_type(events, ev.CompactionFinished) if e.result.applied]
            assert len(results) >= 3
            store = services.store
            names, ranges, outputs = set(), 0, 0
            for result in results:
                record = result.record
                assert record is not None and record.strategies
                assert result.to_json()["record"] == record.to_json()
                for strategy in record.strategies:
                    names.add(strategy.name)
                    for ref in (*strategy.cleared, *strategy.condensed):
                        outputs += 1
                        assert "listing row" in "\n".join(
                            await store.results.read_lines(ref, 1, 2, session.session_id)
                        )
                    if strategy.replaced:
                        ranges += 1
                        text = await store.transcript.read(strategy.replaced, session_id=session.session_id)
                        assert "list rows, round" in text
            assert outputs and ranges, (outputs, ranges)
            assert "summarization" in names
            stored = await store.side.compactions(session.session_id)
            assert len(stored) == len(results)
            assert json.loads(stored[-1][1])["record"] == results[-1].record.to_json()
            from agent_tui.core.driver import SessionDriver
            from agent_tui.frontends.cli.run_slash import command_reply

            listed = (await command_reply(SessionDriver(services, session), "/context")).plain()
            assert f"Compactions this run ({len(results)}" in listed
            assert results[-1].record.refs()[0] in listed
            sid = session.session_id
        finally:
            await services.close()
        services = await build_services(config(wire, srv.base_url, tmp_path / "r.db"), workspace=workspace)
        try:
            resumed = await services.resume_session(sid, yes=True)
            listed = (await command_reply(SessionDriver(services, resumed), "/context")).plain()
            assert f"Compactions in earlier runs ({len(results)})" in listed
            assert results[0].record.refs()[0] in listed
        finally:
            await services.close()
