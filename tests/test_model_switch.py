"""What of `[model]` goes with `/model NAME`: the server's keys only to a model on that server."""

from __future__ import annotations

from agent_tui.config import ModelSettings
from agent_tui.llm.models import switched_model

LOCAL = ModelSettings(
    name="openai/qwen3",
    api_base="http://localhost:8080/v1",
    api_key_env="LOCAL_KEY",
    context_window=8192,
    reasoning_effort="high",
)


def test_a_model_on_the_same_server_takes_everything():
    for name in ("qwen3-coder", "openai/other"):
        model, left = switched_model(LOCAL, name)
        assert left == [] and model == ModelSettings(**{**LOCAL.__dict__, "name": name})


def test_a_known_model_elsewhere_leaves_the_server_and_its_sizes():
    model, left = switched_model(LOCAL, "anthropic/claude-sonnet-4-5")
    assert left == ["api_base", "api_key_env", "context_window"]
    assert (model.api_base, model.api_key_env, model.context_window) == (None, None, None)
    assert model.reasoning_effort == "high"


def test_an_unknown_model_elsewhere_keeps_the_window_it_needs():
    model, left = switched_model(LOCAL, "together_ai/some-new-model")
    assert "context_window" not in left and model.context_window == 8192


def test_a_key_variable_stays_with_its_provider():
    hosted = ModelSettings(name="anthropic/claude-sonnet-4-5", api_key_env="WORK_ANTHROPIC_KEY")
    assert switched_model(hosted, "anthropic/claude-opus-4-1")[1] == []
    model, left = switched_model(hosted, "openai/gpt-4o")
    assert left == ["api_key_env"] and model.api_key_env is None
