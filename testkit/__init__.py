"""Test support kept out of the wheel: strict local OpenAI- and Anthropic-compatible servers and the llama.cpp harness."""

from __future__ import annotations

from testkit.fake_openai import FakeOpenAI, Recorded, Reply

__all__ = ["FakeOpenAI", "Recorded", "Reply"]
