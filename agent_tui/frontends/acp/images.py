"""An editor's `image` prompt blocks become the same image attachments as `@shot.png`.

ACP sends a picture inline as base64 with its MIME type (and sometimes the file's uri). We
check it decodes and send it with the prompt (the `send` operation's `images`); the session's next
user message carries it (agent/history.py `pending_images`),
where it is recognised by its magic bytes, capped, stored as a blob and sent in the provider's
format, or refused with one notice for a model without vision, exactly as in the TUI.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote, urlparse

from acp import schema as s

from agent_tui.core.ops import Picture

_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


def editor_images(blocks: list[Any]) -> tuple[list[Picture], list[str]]:
    """The pictures of the image blocks, and one line per block whose data does not decode."""
    images: list[Picture] = []
    skipped: list[str] = []
    for block in blocks:
        if not isinstance(block, s.ImageContentBlock):
            continue
        picture = Picture(_name(block, len(images) + len(skipped) + 1), block.mime_type, block.data)
        try:
            picture.decoded()
        except ValueError:
            skipped.append(f"{picture.name}: not attached (its data is not base64)")
            continue
        images.append(picture)
    return images, skipped


def _name(block: s.ImageContentBlock, n: int) -> str:
    if block.uri:
        name = PurePosixPath(unquote(urlparse(block.uri).path)).name
        if name:
            return name
    return f"image-{n}.{_EXTENSIONS.get(block.mime_type, 'img')}"
