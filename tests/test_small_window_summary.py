"""At a small window the summary request fits too: its input and its reply limit together stay
inside the window by the server's own count (a tokenizer that counts 1.5× our estimate), so
compaction with summaries on never has its summary refused and lost at 4 096 tokens."""

from __future__ import annotations

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, of_type

WINDOW = 4096


def log_lines(n: int, seed: int) -> str:
    return "\n".join(
        f"2026-11-27T10:{i % 60:02d}:07.{i:03d}Z req={(seed * 7919 + i) * 2654435761 % 16**8:08x} "
        f"user={(seed * 31 + i) % 100000:05d} ms={i % 997}"
        for i in range(n)
    )


def answer(request: dict) -> Reply:
    if request.get("tools"):
        return Reply(text="req 3f2a failed")
    return Reply(text="<retain>req ids</retain><summary>The user pasted service logs.</summary>")


def summary_requests(server: FakeOpenAI) -> list[dict]:
    return [r for r in server.requests if not r.get("tools")]


async def test_the_summary_request_fits_a_4096_window(tmp_path, workspace):
    with FakeOpenAI(window=WINDOW, token_scale=1.5, responder=answer) as server:
        config = make_config(server, tmp_path / "s.db", WINDOW)
        services = await build_services(config, workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            events = []
            for turn in range(10):
                events += await collect(session.run_turn(f"log {turn}:\n{log_lines(30, turn)}\nfailed ids?"))
        finally:
            await services.close()
    summaries = summary_requests(server)
    assert summaries, "no summary was asked for"
    sizes = [(server.prompt_tokens_of(r), r["max_tokens"]) for r in summaries]
    effective = WINDOW - session.limits.max_output_tokens
    assert all(prompt + reply <= effective for prompt, reply in sizes), (sizes, effective)
    assert all(reply >= 64 for _, reply in sizes), sizes
    refused = [r for r in server.requests if server.prompt_tokens_of(r) + r["max_tokens"] > WINDOW]
    assert not refused, sizes
    finished = [e.result for e in of_type(events, ev.CompactionFinished) if e.result.applied]
    assert any(r.summary_model for r in finished), [r.describe() for r in finished]
    assert not of_type(events, ev.ErrorEvent)


async def test_a_hand_off_summary_fits_a_4096_window(tmp_path, workspace):
    """The hand-off's summary asked 2 000 tokens of reply whatever the window: at 4 096 (1.5× our
    count) its request was 4 062 tokens, 34 short of a refusal and past the effective window.
    Its reply limit is sized to the window, its input by the calibrated count."""
    from agent_tui.agent.handoff import hand_off

    with FakeOpenAI(window=WINDOW, token_scale=1.5, responder=answer) as server:
        config = make_config(server, tmp_path / "h.db", WINDOW, model={"max_output_tokens": 256})
        services = await build_services(config, workspace=workspace)
        try:
            session = await services.new_session(yes=True)
            for turn in range(3):
                await collect(session.run_turn(f"log {turn}:\n{log_lines(15, turn)}\nfailed ids?"))
            await hand_off(services.store, session, "find the failed requests")
        finally:
            await services.close()
    summaries = summary_requests(server)
    sizes = [(server.prompt_tokens_of(r), r["max_tokens"]) for r in summaries]
    effective = WINDOW - 256
    assert summaries and all(prompt + reply <= effective for prompt, reply in sizes), sizes
