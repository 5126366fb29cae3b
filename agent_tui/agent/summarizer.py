"""The summariser compaction calls: a provider asked, with no tools, to condense a history.

The history is rendered as plain text rather than sent as chat messages: a transcript cannot break
a provider's tool-call pairing rules (a trailing assistant tool call, a tool result without its
call), and every provider accepts it alike.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_tui.llm.provider import Provider

if TYPE_CHECKING:
    from agent_tui.base.messages import Message
    from agent_tui.config import Config
    from agent_tui.llm.http_common import TimeLimits
    from agent_tui.llm.provider import Provider

# Cheaper models of the same provider, used when their key is present and no api_base is set.
CHEAP_MODELS = {
    "anthropic": ("ANTHROPIC_API_KEY", "anthropic/claude-haiku-4-5"),
    "openai": ("OPENAI_API_KEY", "openai/gpt-4o-mini"),
    "gemini": ("GEMINI_API_KEY", "gemini/gemini-2.0-flash"),
}


def render_transcript(messages: Sequence[Message]) -> str:
    lines: list[str] = []
    for m in messages:
        if m.role == "tool":
            lines.append(f"[tool result {m.name or ''} id={m.tool_call_id}]\n{m.content or ''}")
            continue
        label = m.role if m.kind == "chat" else f"{m.role} ({m.kind})"
        text = m.content or ""
        for call in m.tool_calls:
            text += f"\n[calls {call.name} {call.arguments} id={call.id}]"
        for image in m.images:  # the summary can say a picture was shown, not what it showed
            text += f"\n[attached image {image.name}, {image.width}x{image.height}]"
        lines.append(f"[{label}]\n{text.strip()}")
    return "\n\n".join(lines)


class ProviderSummarizer:
    """Adapts a Provider to the `Summarizer` protocol of `agent_tui.context.compaction`."""

    def __init__(self, provider: Provider) -> None:
        self.provider = provider
        self.model = provider.model

    async def __call__(self, messages: list[Message], instructions: str, max_tokens: int) -> str:
        request = [
            {
                "role": "system",
                "content": "You condense conversations between a user and a "
                "coding agent so the agent can continue the work with a smaller context.",
            },
            {
                "role": "user",
                "content": "<conversation>\n"
                + render_transcript(messages)
                + "\n</conversation>\n\n"
                + instructions,
            },
        ]
        text, _usage = await self.provider.complete(request, max_tokens=max_tokens)
        return text


def summarizer_model(config: Config, chat_model: str, provider_name: str | None) -> str:
    """`[compaction] model`, else a cheaper model of the same provider when its key is present,
    else the chat model. With a custom api_base (a local server) always the chat model."""
    if config.compaction.model:
        return config.compaction.model
    if config.model.api_base:
        return chat_model
    choice = CHEAP_MODELS.get(provider_name or "")
    if choice and os.environ.get(choice[0]):
        return choice[1]
    return chat_model


def summary_provider(
    config: Config,
    chat: ProviderSummarizer,
    provider_name: str | None,
    key_env: str | None,
    keyed: bool,
    timing: TimeLimits,
    transport: str = "auto",
) -> ProviderSummarizer | None:
    """The summariser compaction (and web_fetch's questions) use: the chat model's `chat`, or
    another model's (summarizer_model); None when summarisation is turned off."""

    model = chat.model
    summary_name = summarizer_model(config, model, provider_name)
    if config.compaction.summarization is False:
        return None
    if summary_name == model:
        return chat
    # A bare or openai/ name beside a local chat server lives on that server too.
    local = config.model.api_base if "/" not in summary_name or summary_name.startswith("openai/") else None
    return ProviderSummarizer(
        Provider(
            summary_name,
            api_base=local,
            api_key_env=key_env if local else None,
            env_key_for_api_base=keyed,
            limits=timing,
            transport=transport,
        )
    )
