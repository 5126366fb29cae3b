"""What the first request and the live meter need, loaded in threads as soon as the app starts.

The meter needs the model's window (litellm's price map, read as data); the first request needs
the HTTP client. Loaded one after another on the UI loop they would delay both by a few hundred
milliseconds; started here they load while the store opens and the chat is drawn, and whoever
needs one first waits only for what is left of it.

The tokenizer is not among them: sessions count with a lazy counter (tokens.TokenCounter), which
estimates until tiktoken is loaded, and loading it (~0.3 s of CPU holding the GIL) beside the
start-up would slow the very path it is meant to shorten.
"""

from __future__ import annotations

from agent_tui.llm import catalog, http_common


def preload(*, http: bool = True) -> None:
    """Start loading the price map and (unless `http` is False) httpx, each in its own thread.
    The TUI leaves httpx for later: its idle prompt needs the window, and the HTTP client only
    once the user starts typing (frontends/tui/warmup.py)."""

    catalog.preload()
    if http:
        http_common.preload()
