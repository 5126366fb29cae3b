"""What the first request and the live meter need, loaded in threads as soon as the app starts.

The meter needs the model's window (litellm's price map, read as data) and the tokenizer; the
first request needs the HTTP client. Loaded one after another on the UI loop they would delay
both by a few hundred milliseconds; started here they load while the store opens and the chat
is drawn, and whoever needs one first waits only for what is left of it.
"""

from __future__ import annotations


def preload(model: str | None) -> None:
    """Start loading the price map, `model`'s tokenizer (cl100k when unknown yet) and httpx."""
    from agent_tui.llm import catalog, http_common
    from agent_tui.tokens import preload as preload_tokenizer

    catalog.preload()
    preload_tokenizer(model)
    http_common.preload()
