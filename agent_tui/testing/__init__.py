"""Test helpers shipped with the package: the strict local OpenAI-compatible server."""

from __future__ import annotations

from agent_tui.testing.fake_openai import FakeOpenAI, Recorded, Reply

__all__ = ["FakeOpenAI", "Recorded", "Reply"]
