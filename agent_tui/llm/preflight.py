"""Counting a request with the server's own tokenizer before it is sent, where the server can.

A budget counted with tiktoken meets its first correction only in the first reply's usage — too
late when that first request is already over a small window (Gemma and Llama split digits one by
one, so a pasted log is ~1.5× tiktoken's count). llama.cpp's server renders a chat request with
the model's template (`/apply-template`) and tokenizes it (`/tokenize`): two cheap local calls
give the exact figure the request would be charged. Anthropic counts a Messages request at
`/v1/messages/count_tokens` (free). Other servers answer 404; they are asked once per process
and then left alone (their first usage calibrates as before).

The ratio learned (the server's count over the estimate) is kept per model and server in the
state folder, so the next session — a new one, or one resumed with `-c` — starts calibrated.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.llm.http_common import client, warm
from agent_tui.runtime.paths import state_dir

if TYPE_CHECKING:
    from agent_tui.llm.provider import Provider

log = logging.getLogger(__name__)

TIMEOUT = 10.0
"""Seconds the two calls may take together; past it the request goes out uncalibrated."""
_cannot_count: set[str] = set()
"""Servers that answered the first count with an error: not asked again in this process."""
_asked: dict[str, asyncio.Future[bool]] = {}
"""Servers asked ahead whether they count (`can_count`), by root: the answer, or the question
still on its way (a turn that starts meanwhile waits for it instead of asking again)."""


def server_root(api_base: str | None) -> str | None:
    """Where llama.cpp's own endpoints live: the OpenAI-compatible base without its `/v1`."""
    if not api_base:
        return None
    root = api_base.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


async def can_count(api_base: str | None) -> bool:
    """Whether the server renders a chat with its template (llama.cpp's `/apply-template`),
    asked once per server and process with a one-message chat; False when it cannot say.
    The HTTP client loads in a thread first: asked while the user types, it must not hold the
    event loop (httpx and the CA bundle take ~0.1-0.3 s). Never raises."""
    root = server_root(api_base)
    if root is None or root in _cannot_count:
        return False
    asked = _asked.get(root)
    if asked is not None and asked.done() and not asked.cancelled():
        return asked.result()
    if asked is None or asked.done() or asked.get_loop() is not asyncio.get_running_loop():
        asked = _asked[root] = asyncio.ensure_future(_ask(root))
    return await asyncio.shield(asked)


async def _ask(root: str) -> bool:
    try:
        await asyncio.to_thread(warm)
        http = await client()
        body = {"messages": [{"role": "user", "content": "hi"}]}
        answer = await http.post(root + "/apply-template", json=body, timeout=TIMEOUT)
    except Exception as exc:  # noqa: BLE001 - the question is an optimisation: never fail for it
        log.info("asking %s whether it counts failed: %s", root, exc)
        answer = None
    if answer is None or answer.status_code != 200:
        _cannot_count.add(root)
        return False
    return True


async def count_request(
    api_base: str | None, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> int | None:
    """The prompt tokens the server would charge for this chat request, or None when it cannot
    say (not llama.cpp, unreachable, slow). Never raises."""
    root = server_root(api_base)
    if root in _asked:  # asked ahead: a server that cannot count costs the turn no round trip
        await can_count(api_base)
    if root is None or root in _cannot_count:
        return None
    import httpx

    try:
        http = await client()
        body: dict[str, Any] = {"messages": messages}
        if tools:
            body["tools"] = tools
        rendered = await http.post(root + "/apply-template", json=body, timeout=TIMEOUT)
        if rendered.status_code != 200:
            _cannot_count.add(root)
            return None
        prompt = rendered.json()["prompt"]
        # llama.cpp strips the template's BOS from the rendered text and adds it when tokenizing.
        tokenized = await http.post(
            root + "/tokenize",
            json={"content": prompt, "add_special": True, "parse_special": True},
            timeout=TIMEOUT,
        )
        if tokenized.status_code != 200:
            _cannot_count.add(root)
            return None
        return len(tokenized.json()["tokens"])
    except (httpx.HTTPError, OSError, ValueError, KeyError, TypeError) as exc:  # never fail the turn
        log.info("pre-flight count at %s failed: %s", root, exc)
        _cannot_count.add(root)
        return None


async def count_anthropic(
    provider: Provider, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> int | None:
    """Anthropic's own count of the request (`POST /v1/messages/count_tokens`, free and not
    billed), or None when the route is not Anthropic's or the endpoint cannot say. Never raises.
    A proxy that does not know the endpoint (4xx) is not asked again; a busy one (429, 5xx) is."""
    route = provider.route
    if route.wire != "anthropic" or route.url in _cannot_count:
        return None
    try:
        return await provider.direct_call(streamed=False).count_tokens(messages, tools)
    except Exception as exc:  # noqa: BLE001 - never fail the turn
        status = getattr(exc, "status_code", None) or getattr(exc, "status", None)
        if isinstance(status, int) and 400 <= status < 500 and status != 429:
            _cannot_count.add(route.url)
        log.info("count_tokens at %s failed: %s", route.url, exc)
        return None


def _cache_file() -> Path:

    return state_dir() / "calibration.json"


def _key(model: str, api_base: str | None) -> str:
    return f"{model} @ {api_base or 'default'}"


def cached_ratio(model: str, api_base: str | None) -> float | None:
    """The server's tokens per estimated token learned for this model on this server, if any."""
    try:
        value = json.loads(_cache_file().read_text(encoding="utf-8")).get(_key(model, api_base))
    except (OSError, ValueError, AttributeError):
        return None
    return float(value) if isinstance(value, int | float) and 0.25 <= value <= 4.0 else None


def remember_ratio(model: str, api_base: str | None, ratio: float) -> None:
    """Keep the ratio for the next session of this model (best effort)."""
    path = _cache_file()
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        if not isinstance(data, dict):
            data = {}
        key = _key(model, api_base)
        if data.get(key) == round(ratio, 4):
            return
        data[key] = round(ratio, 4)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(path)
    except (OSError, ValueError) as exc:
        log.info("could not keep the calibration: %s", exc)
