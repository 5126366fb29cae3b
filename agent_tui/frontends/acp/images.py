"""An editor's `image` prompt blocks become the same image attachments as `@shot.png`.

ACP sends a picture inline as base64 with its MIME type (and sometimes the file's uri). We
decode it and hand it to the session's next user message (agent/history.py `pending_images`),
where it is recognised by its magic bytes, capped, stored as a blob and sent in the provider's
format, or refused with one notice for a model without vision, exactly as in the TUI.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from acp import schema as s

if TYPE_CHECKING:
    from agent_tui.agent.session import AgentSession

_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


def editor_images(blocks: list[Any]) -> tuple[list[tuple[str, bytes]], list[str]]:
    """(name, bytes) of each image block, and one line per block whose data does not decode."""
    images: list[tuple[str, bytes]] = []
    skipped: list[str] = []
    for block in blocks:
        if not isinstance(block, s.ImageContentBlock):
            continue
        name = _name(block, len(images) + len(skipped) + 1)
        try:
            data = base64.b64decode(block.data, validate=True)
        except (binascii.Error, ValueError):
            skipped.append(f"{name}: not attached (its data is not base64)")
            continue
        images.append((name, data))
    return images, skipped


def stage(session: AgentSession, images: list[tuple[str, bytes]]) -> None:
    """The pictures go with the session's next user message."""
    session.record.pending_images = list(images)


def _name(block: s.ImageContentBlock, n: int) -> str:
    if block.uri:
        name = PurePosixPath(unquote(urlparse(block.uri).path)).name
        if name:
            return name
    return f"image-{n}.{_EXTENSIONS.get(block.mime_type, 'img')}"
