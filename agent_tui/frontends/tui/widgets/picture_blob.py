"""A stored picture in the blob browser: what it is, not its bytes.

A pasted screenshot or an attached image is stored whole like any output, so the browser lists
it; its bytes drawn as lines were noise (`1 �PNG`, `3 ␀␀␀␍IHDR…`). The viewer shows a
description instead — type, size, dimensions — and `o` saves the picture to a file named by its
ref and hands it to the system's viewer (xdg-open or open), or says where the file is when there
is none. The file goes under the state directory, private to the user.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.base import images
from agent_tui.base.units import human_size
from agent_tui.runtime import paths

if TYPE_CHECKING:
    from pathlib import Path

    from agent_tui.base.messages import ResultRef
    from agent_tui.store.results import ResultStore

SNIFF_BYTES = 16
"""What the magic bytes of every known picture type fit in."""

_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


@dataclass
class PictureBlob:
    """A stored picture as a blob source: a few lines saying what it is and how to open it."""

    ref: ResultRef
    media_type: str
    data: bytes

    @property
    def ref_id(self) -> str:
        return self.ref.id

    @property
    def kind(self) -> str:
        return {"image/webp": "WebP"}.get(self.media_type, self.media_type.removeprefix("image/").upper())

    def describe(self) -> list[str]:
        width, height = images.dimensions(self.data, self.media_type)
        shape = f"{width}×{height} pixels, " if width and height else ""
        return [
            f"A picture: {self.kind} image, {shape}{human_size(len(self.data))} ({self.ref.tool_name}).",
            "Its bytes are not text, so they are not drawn as lines.",
            "Press o to open it in your image viewer (it is saved to a file first).",
        ]

    @property
    def line_count(self) -> int:
        return len(self.describe())

    async def lines(self, start: int, count: int) -> list[str]:
        return self.describe()[start - 1 : start - 1 + count]

    async def grep(self, pattern: str) -> tuple[list[int], bool]:
        return [], False  # no text to search in

    async def open_outside(self) -> str:
        """Save the picture and start the system's viewer on it; what to tell the user."""
        folder = paths.ensure_private_dir(paths.state_dir() / "pictures")
        target: Path = folder / f"{self.ref.id}.{_EXTENSIONS.get(self.media_type, 'img')}"
        await asyncio.to_thread(target.write_bytes, self.data)
        opener = shutil.which("open" if sys.platform == "darwin" else "xdg-open")
        if opener is None:
            return f"Saved {self.ref.id} as {target}: no image viewer command (xdg-open) to open it with."
        process = await asyncio.create_subprocess_exec(
            opener,
            str(target),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,  # the viewer outlives nothing of ours, nor we of it
        )
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), 5)
        return f"Opened {self.ref.id} ({target}) with {opener}."


async def picture_of(results: ResultStore, ref: ResultRef) -> PictureBlob | None:
    """The stored output `ref` as a picture, or None when its first bytes say it is none."""
    head = b""
    chunks = results.iter_bytes(ref.id)
    try:
        async for piece in chunks:
            head += piece
            if len(head) >= SNIFF_BYTES:
                break
    finally:
        await chunks.aclose()  # type: ignore[attr-defined]
    media_type = images.sniff(head)
    if media_type is None:
        return None
    return PictureBlob(ref, media_type, await results.get_bytes(ref.id))
