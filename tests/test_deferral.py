"""Tool deferral: which tools a request offers when their descriptions pass the threshold, how
tool_search brings them back, and that the real loop sends exactly that."""

from __future__ import annotations

import json
from typing import Any

from agent_tui.agent import events as ev
from agent_tui.base.messages import ToolCall, assistant, user
from agent_tui.base.tokens import TokenCounter
from agent_tui.compose.factory import build_services
from agent_tui.context.deferral import NOTE, ToolSelector, rank
from agent_tui.tools.base import Source, ToolContext, ToolOutput, ToolSpec
from agent_tui.tools.tool_search import ToolSearchTool
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, of_type


def spec(name: str, source: Source = "mcp", words: int = 40, about: str = "") -> ToolSpec:
    text = (about + " " if about else "") + " ".join(f"word{i}" for i in range(words))
    return ToolSpec(name, text, {"type": "object", "properties": {"q": {"type": "string"}}}, source=source)


def selector(threshold: float = 0.10) -> ToolSelector:
    return ToolSelector(TokenCounter().count_tool_schema, threshold, ToolSearchTool.spec.schema())


def names(schemas) -> list[str]:
    return [s["function"]["name"] for s in schemas]


def calls(*tool_names: str):
    return assistant(None, tuple(ToolCall(f"c{i}_{n}", n) for i, n in enumerate(tool_names)))


class EchoTool:
    """A stand-in MCP-source tool that answers with its own name."""

    def __init__(self, name: str, about: str) -> None:
        self.spec = spec(name, about=about, words=60)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput(text=f"{self.spec.name} ran with {json.dumps(args)}")


class TestSelection:
    def test_under_the_threshold_everything_is_offered(self):
        """No deferral, no tool_search, no note while the descriptions fit."""
        specs = [spec("read_file", "builtin"), spec("a__x"), spec("a__y")]
        chosen = selector().select(specs, effective_window=100_000)
        assert names(chosen.schemas) == ["read_file", "a__x", "a__y"]
        assert chosen.deferred == () and chosen.note is None

    def test_mcp_goes_before_skill_and_builtins_never(self):
        """Over the threshold: MCP tools first, then skill tools; built-ins and context stay."""
        specs = [
            spec("read_file", "builtin"),
            spec("recall", "context"),
            spec("s__one", "skill"),
            spec("m__one"),
            spec("m__two"),
        ]
        one = TokenCounter().count_tool_schema(specs[0].schema())
        chosen = selector(1.0).select(specs, effective_window=one * 4)
        assert set(chosen.deferred) == {"m__one", "m__two"}
        assert names(chosen.schemas) == ["read_file", "recall", "s__one", "tool_search"]
        assert chosen.note is not None and chosen.note.text == NOTE.format(n=2)
        assert chosen.tokens_offered <= chosen.budget < chosen.tokens_all
        tight = selector(1.0).select(specs, effective_window=one)
        assert set(tight.deferred) == {"m__one", "m__two", "s__one"}
        assert names(tight.schemas)[:2] == ["read_file", "recall"]

    def test_least_recently_used_go_first_and_offered_use_changes_nothing(self):
        """A deferred tool that gets used comes back; using an offered one keeps the choice."""
        specs = [spec("read_file", "builtin")] + [spec(f"m__t{i}") for i in range(6)]
        window = 4 * TokenCounter().count_tool_schema(specs[0].schema())
        sel = selector(1.0)
        history = [user("go")]
        sel.observe(history)
        first = sel.select(specs, window)
        kept = [n for n in names(first.schemas) if n.startswith("m__")]
        assert first.deferred[0] == "m__t0" and kept
        history += [calls(kept[0])]
        sel.observe(history)
        assert sel.select(specs, window).deferred == first.deferred
        history += [calls(first.deferred[0])]
        sel.observe(history)
        after = sel.select(specs, window)
        assert first.deferred[0] not in after.deferred and len(after.deferred) >= 1

    def test_promotion_lasts_for_the_turn(self):
        """tool_search's matches are offered for the rest of the turn, then deferred again."""
        specs = [spec("read_file", "builtin")] + [spec(f"m__t{i}") for i in range(6)]
        window = 2 * TokenCounter().count_tool_schema(specs[0].schema())
        sel = selector(1.0)
        history = [user("turn one")]
        sel.observe(history)
        assert "m__t3" in sel.select(specs, window).deferred
        sel.promote(["m__t3"])
        history += [calls("tool_search")]
        sel.observe(history)
        assert "m__t3" in names(sel.select(specs, window).schemas)
        history += [user("turn two")]
        sel.observe(history)
        assert "m__t3" in sel.select(specs, window).deferred

    def test_rewritten_history_is_rescanned(self):
        """After compaction replaces the history, usage is read again from what is left."""
        sel = selector()
        sel.observe([user("a"), calls("m__x")])
        sel.observe([user("summary")])
        assert sel.promoted == frozenset()
        sel.promote(["m__y"])
        assert sel.promoted == {"m__y"}

    def test_selection_of_500_tools_counts_each_schema_once(self):
        """Selecting among 500 tools counts each schema once; later turns count nothing again
        (what keeps selection cheap; its speed is measured by benchmarks/deferral.py)."""
        specs = [spec(f"srv__tool{i}", words=30) for i in range(500)]
        counted: list[str] = []
        count_schema = TokenCounter().count_tool_schema

        def count(schema: dict[str, Any]) -> int:
            counted.append(schema["function"]["name"])
            return count_schema(schema)

        sel = ToolSelector(count, 0.10, ToolSearchTool.spec.schema())
        first = sel.select(specs, 50_000)
        assert sorted(n for n in counted if n.startswith("srv__")) == sorted(s.name for s in specs)
        after_first = len(counted)
        history = [user("go")]
        for turn in range(50):
            history += [calls(f"srv__tool{turn * 7 % 500}")]
            sel.observe(history)
            assert sel.select(specs, 50_000)
        # Only the small tool_search schema is costed again (the counter caches it).
        assert [n for n in counted[after_first:] if n != "tool_search"] == []
        assert first.deferred


class TestRanking:
    def test_name_beats_description_and_words_are_split(self):
        """Matches on the name rank first; camelCase and snake_case split into words."""
        specs = [
            spec("git__git_log", about="Shows the commit logs"),
            spec("time__get_current_time", about="Get current time in a timezone"),
            spec("fs__readFile", about="Read a file; see git for history"),
        ]
        assert [s.name for s in rank("git log", specs)][:1] == ["git__git_log"]
        assert [s.name for s in rank("current timezone", specs)] == ["time__get_current_time"]
        assert rank("read file", specs)[0].name == "fs__readFile"
        assert rank("???", specs) == []


class TestLoop:
    async def test_deferred_tools_found_and_called_through_tool_search(self, tmp_path, workspace):
        """The request lacks deferred tools; tool_search returns schemas and makes them callable."""
        tools = [EchoTool(f"weather__tool{i}", f"forecast number {i}") for i in range(30)]
        tools.append(EchoTool("stocks__quote", "Current share price for a ticker symbol"))
        with FakeOpenAI(window=16_000) as server:
            services = await build_services(
                make_config(server, tmp_path / "d.db", window=16_000), workspace=workspace
            )
            services.extra_tools.extend(tools)
            try:
                session = await services.new_session(yes=True)
                server.enqueue(
                    Reply(tool_calls=[("tool_search", {"query": "share price"})]),
                    Reply(tool_calls=[("stocks__quote", {"q": "ACME"})]),
                    Reply(text="ACME is up"),
                    Reply(text="next"),
                )
                events = await collect(session.run_turn("how is ACME doing?"))
                await collect(session.run_turn("and now?"))
            finally:
                await services.close()
        first, second, _, fourth = (names(r["tools"]) for r in server.requests)
        assert "stocks__quote" not in first and "tool_search" in first
        assert "read_file" in first and "bash" in first
        note = NOTE.split("{")[0]
        assert note in server.requests[0]["messages"][0]["content"]
        assert "stocks__quote" in second
        ran = of_type(events, ev.ToolCallFinished)
        assert "stocks__quote" in ran[0].view and '"q"' in ran[0].view
        assert ran[1].view == 'stocks__quote ran with {"q": "ACME"}'
        assert len(first) < len(tools)
        assert (
            session.last_budget.tool_descriptions < 0.10 * session.last_budget.effective_window + 2000
        )  # built-ins are never deferred, so only they may exceed the share
        assert "tool_search" in fourth

    async def test_a_failing_selector_offers_every_tool(self, tmp_path, workspace):
        """Deferral failing degrades to all tools plus one notice; the turn completes."""
        tools = [EchoTool(f"weather__tool{i}", "forecast") for i in range(30)]
        with FakeOpenAI(window=16_000) as server:
            services = await build_services(
                make_config(server, tmp_path / "f.db", window=16_000), workspace=workspace
            )
            services.extra_tools.extend(tools)
            try:
                session = await services.new_session()

                def broken(schema: dict) -> int:
                    raise RuntimeError("counter broke")

                session.prompts.selector.count = broken
                server.enqueue(Reply(text="fine"))
                events = await collect(session.run_turn("hi"))
            finally:
                await services.close()
        assert len(names(server.requests[0]["tools"])) >= 30
        assert any("deferral failed" in e.message for e in of_type(events, ev.Notice))
        assert events[-1].text == "fine"
