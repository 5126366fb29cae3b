"""Prompt caching: the builder's tiers, and the real loop's requests as Anthropic receives them.

The end-to-end tests run the real AgentSession with `anthropic/claude-sonnet-4-5` through litellm
to a local server speaking Anthropic's Messages API, and read the bodies it recorded: where the
`cache_control` marks are, how many, and whether everything before the last mark comes back
byte for byte in the next request (a mark on a prefix that changes caches nothing).
"""

from __future__ import annotations

import json

import pytest

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import load_config
from agent_tui.context.memory import remember
from agent_tui.context.prompt import PromptBuilder
from agent_tui.context.prompt_sections import PromptSection
from agent_tui.llm import cache
from testkit.fake_anthropic import FakeAnthropic, Reply, strip_cache_control
from testkit.fake_openai import FakeOpenAI
from tests.support.agent_fixtures import collect, make_config, of_type

MODEL = "anthropic/claude-sonnet-4-5"
KEY = "sk-ant-test-dummy"


def blocks_in_order(body: dict) -> list[tuple[str, bool]]:
    """(exact JSON of each block without its mark, marked?) in Anthropic's prefix order."""
    out = []

    def add(block: dict) -> None:
        out.append((json.dumps(strip_cache_control(block)), "cache_control" in block))

    for tool in body.get("tools") or ():
        add(tool)
    for block in body.get("system") or ():
        add(block)
    for message in body["messages"]:
        content = message["content"]
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            add({"role": message["role"], **block})
    return out


def cached_prefix(body: dict) -> list[str]:
    """Everything up to and including the last marked block."""
    blocks = blocks_in_order(body)
    last = max(i for i, (_, marked) in enumerate(blocks) if marked)
    return [text for text, _ in blocks[: last + 1]]


@pytest.fixture
def anthropic(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with FakeAnthropic(api_key=KEY) as server:
        yield server


async def anthropic_services(server: FakeAnthropic, tmp_path, workspace, **sections):
    overrides = {
        "model": {"name": MODEL, "api_base": server.base_url},
        "store": {"db": str(tmp_path / "cache.db")},
    }
    for name, values in sections.items():
        overrides.setdefault(name, {}).update(values)
    config = load_config(overrides=overrides, cwd=tmp_path, env={}, rule_words=SHIPPED_WORDS).config
    return await build_services(config, workspace=workspace)


class TestBuilder:
    def test_static_sections_before_dynamic_with_a_breakpoint_per_tier(self):
        """Stable tier, then memories/skills, then the status note; breakpoints end each tier."""
        built = PromptBuilder().build(
            [
                PromptSection("status", "[Context: 85% used.]", cacheable=False),
                PromptSection("memories", "# Memories\n- tabs", component="skill_prompts"),
                PromptSection("base", "You are an agent."),
                PromptSection("rules", "# Project rules\nrun make test"),
            ]
        )
        assert [s.name for s in built.sections] == ["base", "rules", "memories", "status"]
        assert built.text.endswith("[Context: 85% used.]")
        assert "".join(text for text, _ in built.blocks) == built.text
        first, second = built.breakpoints
        assert built.text[:first].endswith("run make test")
        assert built.text[:second].endswith("- tabs")
        assert built.dynamic_text == "[Context: 85% used.]" and built.warning is None

    def test_failure_falls_back_to_plain_concatenation(self):
        """Two sections with one name break the builder: plain text, no breakpoints, a warning."""
        built = PromptBuilder().build([PromptSection("base", "one"), PromptSection("base", "two")])
        assert built.text == "one\n\ntwo" and built.breakpoints == ()
        assert built.warning and "plain" in built.warning


class TestPlacement:
    def test_marks_are_capped_and_history_dicts_are_never_mutated(self):
        """At most 4 marks; marked messages are copies; a tool-calling reply is marked at its end."""
        call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        history = [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "out"},
        ]
        snapshot = json.dumps(history)
        messages = cache.cached_request(["base", "memories"], history, [2, 1, 0])
        assert cache.count_marks(messages) == 4
        assert json.dumps(history) == snapshot
        assert "cache_control" in messages[-1] and "cache_control" in messages[-2]["tool_calls"][0]
        assert "cache_control" not in messages[1]  # the least important anchor was dropped


class TestAnthropicRequests:
    async def test_marks_and_byte_identical_prefix_over_several_turns(self, anthropic, tmp_path, workspace):
        """≤ 4 marks, one on the newest message, and each request's cached prefix reappears."""
        (workspace / "AGENTS.md").write_text("Run `make test` before you finish.\n")
        (workspace / "notes.txt").write_text("alpha\nbeta\n")
        remember("The user prefers short answers.")
        services = await anthropic_services(anthropic, tmp_path, workspace, agent={"warn_at": 0.01})
        try:
            session = await services.new_session(yes=True)
            anthropic.enqueue(
                Reply(tool_calls=[("read_file", {"path": "notes.txt"})]),
                Reply(text="read it"),
                Reply(text="second answer"),
                Reply(tool_calls=[("list_dir", {"path": "."}), ("grep", {"pattern": "beta"})]),
                Reply(text="third answer"),
            )
            usages = []
            for prompt in ("read notes.txt", "and now?", "look around"):
                events = await collect(session.run_turn(prompt))
                assert not of_type(events, ev.ErrorEvent), events
                usages += [e.usage for e in of_type(events, ev.UsageReported)]
        finally:
            await services.close()
        bodies = anthropic.requests
        assert len(bodies) == 5
        for body in bodies:
            assert cache.count_marks(body["messages"], body.get("tools") or ()) <= 4
            assert [("cache_control" in b) for b in body["system"]] == [True, True]
            last_user = body["messages"][-1]
            assert last_user["role"] == "user"
            # The newest message carries a mark; the status note follows it, unmarked.
            marks = ["cache_control" in block for block in last_user["content"]]
            assert marks[-1] is False and True in marks
            assert last_user["content"][-1]["text"].startswith("[Context: ")
            assert "[Context:" not in json.dumps(body["system"])
        for before, after in zip(bodies, bodies[1:], strict=False):
            prefix = cached_prefix(before)
            now = [text for text, _ in blocks_in_order(after)]
            assert now[: len(prefix)] == prefix
        # The cache model read every prefix back; the usage reached events and the meter.
        assert [r.cache_read_input_tokens > 0 for r in anthropic.reports] == [False] + [True] * 4
        assert [u.cache_read for u in usages] == [r.cache_read_input_tokens for r in anthropic.reports]
        assert usages[0].cache_creation > 0
        assert session.meter.last_cached == usages[-1].cache_read
        assert session.measure().cached == usages[-1].cache_read
        assert session.last_budget.skill_prompts > 0

    async def test_previous_anchor_keeps_the_cache_after_a_wide_step(self, anthropic, tmp_path, workspace):
        """After a step adding > 20 blocks, the next request still reads the earlier prefix."""
        (workspace / "a.txt").write_text("x\n")
        services = await anthropic_services(anthropic, tmp_path, workspace)
        try:
            session = await services.new_session(yes=True)
            calls = [("read_file", {"path": "a.txt"})] * 12
            anthropic.enqueue(Reply(text="hi"), Reply(tool_calls=calls), Reply(text="done"))
            await collect(session.run_turn("first"))
            await collect(session.run_turn("read it a dozen times"))
        finally:
            await services.close()
        last = anthropic.requests[2]
        assert cache.count_marks(last["messages"]) == 2  # newest + previous request's newest
        marked_before = (
            anthropic.reports[1].cache_read_input_tokens + anthropic.reports[1].cache_creation_input_tokens
        )
        assert anthropic.reports[2].cache_read_input_tokens >= marked_before > 0
        # Without the second mark the 24 new blocks hide the earlier entry from the lookback.
        newest_only = json.loads(json.dumps(last))
        for message in newest_only["messages"][:-1]:
            for block in message["content"]:
                block.pop("cache_control", None)
        replay = FakeAnthropic()
        for body in anthropic.requests[:2]:
            replay.account(body)
        assert replay.account(newest_only).cache_read_input_tokens < marked_before

    async def test_builder_failure_sends_plain_text_and_warns_once(self, anthropic, tmp_path, workspace):
        """A broken section set degrades to a plain system prompt and one Notice."""
        services = await anthropic_services(anthropic, tmp_path, workspace)
        try:
            session = await services.new_session()
            session.prompts.extra_sections.append(PromptSection("base", "a duplicate name"))
            anthropic.enqueue(Reply(text="one"), Reply(text="two"))
            first = await collect(session.run_turn("hi"))
            second = await collect(session.run_turn("again"))
        finally:
            await services.close()
        notices = [e.message for e in of_type(first + second, ev.Notice)]
        assert len([n for n in notices if "prompt builder failed" in n]) == 1
        body = anthropic.requests[-1]
        assert cache.count_marks(body["messages"], body.get("tools") or ()) == 0
        assert "a duplicate name" in json.dumps(body["system"])
        assert of_type(second, ev.TurnFinished)[0].text == "two"


class TestOtherProviders:
    async def test_openai_compatible_gets_plain_text(self, tmp_path, workspace):
        """No cache_control anywhere for a provider that does not take it."""
        with FakeOpenAI(window=32_000) as server:
            services = await build_services(make_config(server, tmp_path / "o.db"), workspace=workspace)
            try:
                session = await services.new_session()
                await collect(session.run_turn("hi"))
            finally:
                await services.close()
        body = server.requests[0]
        assert isinstance(body["messages"][0]["content"], str)
        assert "cache_control" not in json.dumps(body)
