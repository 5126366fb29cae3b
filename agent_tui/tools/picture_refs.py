"""A ref that holds a picture (an `@shot.png`, a pasted or an editor's image) is described, not
read: `read_result` and `grep_result` decoding a PNG's bytes as text gave the model noise.

Pictures are stored under the tool name `image:<name>` (agent/image_attach.py), so telling one
costs a lookup of the ref's row; only a picture's bytes are then read, to say its type and size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.base.images import describe
from agent_tui.store import StoreError

if TYPE_CHECKING:
    from agent_tui.store import Store

IMAGE_PREFIX = "image:"


async def picture_text(store: Store, ref: str, session_id: str | None) -> str | None:
    """The description of the picture `ref` holds, or None when it holds something else (or
    cannot be found: the caller's own read then says so)."""

    try:
        resolved = await store.results.resolve(ref, session_id)
        if not resolved.ref.tool_name.startswith(IMAGE_PREFIX):
            return None
        data = await store.results.get_bytes(resolved.ref)
    except StoreError:
        return None
    return describe(resolved.ref.id, resolved.ref.tool_name.removeprefix(IMAGE_PREFIX), data)
