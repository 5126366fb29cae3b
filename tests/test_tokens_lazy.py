"""A session's lazy counter: estimates until tiktoken is there, exact once it is, and never
decides a threshold on an estimate (issue 31: a tokenizer-free first request)."""

from __future__ import annotations

import pytest

from agent_tui.base import tokens
from agent_tui.base.messages import user
from agent_tui.base.tokens import ConversationTally, TokenCounter, heuristic_count
from agent_tui.context.budget import EXACT_FROM, BudgetMeter

CODE = "def f(x):\n    return {k: v for k, v in x.items() if k != '_'}\n" * 40


@pytest.fixture
def no_tokenizer_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process's loaded tokenizers start empty, as in a fresh `run`."""
    monkeypatch.setattr(tokens, "_encoders", {})


def test_a_lazy_counter_estimates_without_loading_tiktoken(no_tokenizer_loaded: None) -> None:
    """Counting with a lazy counter loads nothing: the heuristic's figure, marked provisional."""
    counter = TokenCounter("openai/x", lazy=True)
    assert counter.count_text(CODE) == heuristic_count(CODE)
    assert counter.provisional and tokens._encoders == {}


def test_it_counts_exactly_once_loaded_and_totals_are_recounted(no_tokenizer_loaded: None) -> None:
    """After `wait_exact`, counts are tiktoken's and a running tally recounts what it had summed."""
    counter = TokenCounter("openai/x", lazy=True)
    history = [user(CODE), user("and one more")]
    tally = ConversationTally(counter)
    estimated = tally.total(history)
    counter.wait_exact()
    exact = TokenCounter("openai/x")
    assert not counter.provisional and counter.generation == 1
    assert tally.total(history) == exact.count_messages(history) != estimated


def test_a_thread_that_finished_loading_is_picked_up(no_tokenizer_loaded: None) -> None:
    """`load_soon` loads in a thread; the next count after it finished is exact."""
    counter = TokenCounter("openai/x", lazy=True)
    counter.count_text(CODE)
    counter.load_soon()
    tokens._load_encoder(counter.encoding_name)  # waits for the thread's lock: loaded after this
    assert counter.count_text(CODE) == TokenCounter("openai/x").count_text(CODE)


def test_far_from_the_thresholds_the_meter_keeps_the_estimate(no_tokenizer_loaded: None) -> None:
    """A first request in a wide window is measured without tiktoken."""
    meter = BudgetMeter(TokenCounter("openai/x", lazy=True), 128_000, 4_000)
    meter.measure([user(CODE)])
    assert meter.counter.provisional


def test_near_a_threshold_the_meter_counts_exactly(no_tokenizer_loaded: None) -> None:
    """From EXACT_FROM of the window on, the figure that decides warnings and compaction is exact."""
    exact = TokenCounter("openai/x")
    history = [user(CODE)]
    window = int(exact.count_messages(history) / EXACT_FROM)  # the estimate alone is at ~EXACT_FROM
    meter = BudgetMeter(TokenCounter("openai/x", lazy=True), window + 100, 100)
    budget = meter.measure(history)
    assert not meter.counter.provisional
    assert budget.conversation == BudgetMeter(exact, window + 100, 100).measure(history).conversation


def test_a_report_on_an_estimated_request_anchors_on_its_exact_recount(no_tokenizer_loaded: None) -> None:
    """tiktoken arrived while the request was out: the report calibrates the same request counted
    again exactly, never the heuristic's figure."""
    meter = BudgetMeter(TokenCounter("openai/x", lazy=True), 128_000, 4_000)
    history = [user(CODE)]
    meter.measure(history)
    meter.counter.wait_exact()
    meter.record_usage(10_000, history)
    exact = BudgetMeter(TokenCounter("openai/x"), 128_000, 4_000)
    exact.measure(history)
    assert meter.calibration.calls == 1 and meter.last_raw_estimate == exact.last_raw_estimate


def test_a_report_past_half_the_window_makes_the_counts_exact(no_tokenizer_loaded: None) -> None:
    """The provider says the request filled most of the window: the next figure builds on its
    word and on tiktoken's counts, so it is blocked as it should be (a sub-agent that filled its
    window stops)."""
    meter = BudgetMeter(TokenCounter("openai/x", lazy=True), 8_000, 1_000)
    history = [user("fill the window")]
    meter.measure(history)
    meter.record_usage(6_900, history)
    assert not meter.counter.provisional
    assert meter.measure(history).is_blocked
