"""Token counting, the incremental tally, calibration, model limits and the budget."""

from __future__ import annotations

import pytest

from agent_tui.base.messages import ToolCall, assistant, user
from agent_tui.base.tokens import (
    MESSAGE_OVERHEAD,
    ConversationTally,
    TokenCounter,
    encoding_name_for,
    heuristic_count,
)
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import Config, ConfigError, load_config
from agent_tui.context.budget import BudgetMeter, ContextBudget
from agent_tui.context.prompt_sections import PromptSection
from agent_tui.llm.models import ModelLimits, UnknownModelError, reply_reserve, resolve_limits


class TestCounting:
    def test_tiktoken_loads_offline(self):
        """The encoding loads from litellm's bundled files, with no network."""
        counter = TokenCounter("gpt-4o")
        assert counter.exact
        assert counter.count_text("hello world") == 2

    def test_encoding_per_family(self):
        assert encoding_name_for("openai/gpt-4o-mini") == "o200k_base"
        assert encoding_name_for("gpt-5") == "o200k_base"
        assert encoding_name_for("anthropic/claude-sonnet-4-5") == "cl100k_base"

    def test_heuristic_ascii_and_thai(self):
        """≈ 4 chars/token for ASCII, ≈ 2.5 when more than 30% is not ASCII."""
        assert heuristic_count("a" * 400) == 100
        assert heuristic_count("สวัสดีครับ" * 10) == 40

    def test_heuristic_fallback_when_no_tokenizer(self):
        counter = TokenCounter("gpt-4o", use_tiktoken=False)
        assert not counter.exact
        assert counter.count_text("x" * 40) == 10

    def test_message_counts_include_tool_calls_and_overhead(self):
        counter = TokenCounter("gpt-4o")
        call = ToolCall("c1", "bash", '{"command": "pytest -q"}')
        plain = counter.count_message(assistant("hi"))
        with_call = counter.count_message(assistant("hi", (call,)))
        assert plain == MESSAGE_OVERHEAD + 1
        assert with_call > plain + counter.count_text(call.arguments)

    def test_tool_schemas_are_counted(self):
        counter = TokenCounter("gpt-4o")
        schema = {
            "type": "function",
            "function": {"name": "bash", "description": "run " * 50, "parameters": {"type": "object"}},
        }
        assert counter.count_tools([schema]) > 50


class TestTally:
    def test_appending_counts_only_new_messages(self):
        """A grown conversation costs only its tail; a rewritten one is recounted."""
        counter = TokenCounter("gpt-4o")
        tally = ConversationTally(counter)
        conv = [user("hello there")] * 1 + [assistant("ok")]
        first = tally.total(conv)
        conv.append(user("more words here"))
        assert tally.total(conv) == first + counter.count_message(conv[-1])
        rewritten = [conv[0], user("changed")]
        assert tally.total(rewritten) == counter.count_messages(rewritten)


class TestCalibration:
    def test_reported_prompt_tokens_anchor_the_next_estimate(self):
        """After a report, next = reported + ratio × what was added since."""
        counter = TokenCounter("gpt-4o")
        meter = BudgetMeter(counter, 10_000, 1_000)
        conv = [user("word " * 100)]
        raw = meter.measure(conv).used
        meter.record_usage(int(raw * 1.5), conv)
        assert meter.measure(conv).used == int(raw * 1.5)
        added = user("word " * 100)
        conv.append(added)
        expected = int(raw * 1.5) + round(counter.count_message(added) * 1.5)
        assert abs(meter.measure(conv).used - expected) <= 1

    def test_new_text_follows_its_own_ratio_not_the_fixed_parts(self):
        """When the provider counts new text 2× tiktoken but the fixed prompt 1×, the next
        estimate scales the added text by 2, not by the diluted whole-request average."""
        counter = TokenCounter("gpt-4o")
        meter = BudgetMeter(counter, 100_000, 1_000)
        fixed = [PromptSection("base", "stable instructions " * 500)]
        conv = [user("hello")]
        first = meter.measure(conv, fixed).used
        meter.record_usage(first, conv)
        conv.append(user("9 " * 300))
        second_raw = meter.measure(conv, fixed).used
        added = second_raw - first
        meter.record_usage(first + 2 * added, conv)
        conv.append(user("7 " * 300))
        third = meter.measure(conv, fixed).used
        expected = first + 2 * added + 2 * counter.count_message(conv[-1])
        assert abs(third - expected) <= 0.01 * expected

    def test_rewritten_history_uses_the_ratio_not_the_anchor(self):
        counter = TokenCounter("gpt-4o")
        meter = BudgetMeter(counter, 10_000, 1_000)
        conv = [user("word " * 100), assistant("done")]
        raw = meter.measure(conv).used
        meter.record_usage(raw * 2, conv)
        meter.history_rewritten()
        short = [user("word " * 50)]
        raw_short = meter.raw_parts(short).get("conversation")
        assert abs(meter.measure(short).used - 2 * raw_short) <= 2


class TestBudget:
    def test_components_and_thresholds(self):
        b = ContextBudget(
            total=10_000,
            max_output_tokens=2_000,
            system_prompt=1_000,
            skill_prompts=500,
            tool_descriptions=500,
            conversation=4_400,
        )
        assert b.effective_window == 8_000 and b.used == 6_400 and b.remaining == 1_600
        assert b.used_fraction == 0.8 and b.should_warn and not b.should_compact
        assert not b.exceeds
        full = ContextBudget(total=10_000, max_output_tokens=2_000, conversation=7_900)
        assert full.should_compact and full.is_blocked

    def test_measure_fills_every_component(self):
        counter = TokenCounter("gpt-4o")
        meter = BudgetMeter(counter, 100_000, 8_000)
        sections = [
            PromptSection("base", "you are an agent " * 20),
            PromptSection("memories", "remember this " * 10, component="skill_prompts"),
        ]
        tools = [{"type": "function", "function": {"name": "t", "description": "d" * 100, "parameters": {}}}]
        conv = [user("hi"), assistant("hello")]
        b = meter.measure(conv, sections, tools)
        assert b.system_prompt > 60 and b.skill_prompts >= 20 and b.tool_descriptions > 10
        assert b.conversation == counter.count_messages(conv) + 3


class TestModelLimits:
    def test_known_model_from_litellm(self):
        """A model litellm knows needs no override; reserve is capped at 8192."""
        cfg = load_config(overrides={"model": {"name": "gpt-4o"}}, rule_words=SHIPPED_WORDS).config
        limits = resolve_limits(cfg)
        assert limits.context_window == 128_000 and limits.max_output_tokens == 8192

    def test_unknown_model_is_a_clear_error_naming_the_key(self):
        cfg = load_config(
            overrides={"model": {"name": "openai/my-local-thing"}}, rule_words=SHIPPED_WORDS
        ).config
        with pytest.raises(UnknownModelError, match=r"\[model\] context_window"):
            resolve_limits(cfg)

    def test_override_wins(self):
        cfg = load_config(
            overrides={"model": {"name": "openai/x", "context_window": 8192}}, rule_words=SHIPPED_WORDS
        ).config
        assert resolve_limits(cfg) == ModelLimits(8192, 2048, known_to_litellm=False)

    def test_reserve_never_eats_the_window(self):
        """An Ollama model reporting 8192 of 8192 keeps three quarters of its window."""
        assert reply_reserve(8192, 8192, None) == 2048
        assert reply_reserve(200_000, 64_000, None) == 8192
        assert reply_reserve(200_000, 64_000, 16_000) == 16_000

    def test_no_model(self):
        with pytest.raises(ConfigError, match="no model configured"):
            resolve_limits(Config())
