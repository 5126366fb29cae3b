"""Image attachments as values: what a picture is (by its magic bytes, not its name), how big it
is, and what it costs in the budget — pure functions, no I/O, no third-party imports.

The bytes travel with the message in memory only (`ImageAttachment.data`); the store keeps them
as a blob and the message's JSON keeps the reference, so a resumed session reloads and sends them
again (agent/image_attach.py). A message whose bytes could not be reloaded sends a one-line
placeholder in their place instead.
"""

from __future__ import annotations

import base64
import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""The largest image attached: Anthropic's API refuses more than 5 MB per image (OpenAI 20 MB)."""
FALLBACK_IMAGE_TOKENS = 1000
"""What an image counts for a provider whose rule we do not know."""


@dataclass(frozen=True)
class ImageAttachment:
    """One picture in a user message; equal and hashed by what it is, not by its bytes."""

    name: str
    """What the user called it (`shot.png`)."""
    media_type: str
    """image/png, image/jpeg, image/gif or image/webp."""
    width: int
    height: int
    byte_size: int
    ref_id: str | None = None
    """The blob holding the bytes (None when the store could not take them)."""
    data: bytes = field(default=b"", compare=False, repr=False)
    """The bytes themselves; empty when not (yet) reloaded from the store."""

    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{base64.b64encode(self.data).decode('ascii')}"

    def placeholder(self) -> str:
        """What the model reads when the bytes are not at hand (a collected blob, or a session
        resumed on a model that takes no images)."""
        return (
            f"[image {self.name} ({self.width}x{self.height}) was attached here; not sent with this request]"
        )

    def chip(self) -> str:
        """The short label the chat shows: `[image shot.png 120 KB]`."""
        return f"[image {self.name} {_size(self.byte_size)}]"

    def to_openai_part(self) -> dict[str, Any]:
        if not self.data:
            return {"type": "text", "text": self.placeholder()}
        return {"type": "image_url", "image_url": {"url": self.data_url()}}

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "media_type": self.media_type,
            "width": self.width,
            "height": self.height,
            "byte_size": self.byte_size,
            "ref_id": self.ref_id,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ImageAttachment:
        return cls(
            name=str(data["name"]),
            media_type=str(data["media_type"]),
            width=int(data.get("width") or 0),
            height=int(data.get("height") or 0),
            byte_size=int(data.get("byte_size") or 0),
            ref_id=data.get("ref_id"),
        )


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MB"
    if n >= 1024:
        return f"{round(n / 1024)} KB"
    return f"{n} B"


def sniff(data: bytes) -> str | None:
    """The media type the magic bytes say (PNG, JPEG, GIF, WebP), or None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def dimensions(data: bytes, media_type: str) -> tuple[int, int]:
    """Width and height from the header; (0, 0) when the header is cut short or unusual."""
    try:
        if media_type == "image/png":
            return struct.unpack(">II", data[16:24])
        if media_type == "image/gif":
            return struct.unpack("<HH", data[6:10])
        if media_type == "image/webp":
            return _webp_size(data)
        if media_type == "image/jpeg":
            return _jpeg_size(data)
    except struct.error:
        pass
    return 0, 0


def _webp_size(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8X":
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return w, h
    if chunk == b"VP8L":
        b0, b1, b2, b3 = data[21:25]
        return 1 + (b0 | (b1 & 0x3F) << 8), 1 + (b1 >> 6 | b2 << 2 | (b3 & 0x0F) << 10)
    if chunk == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    return 0, 0


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        # Start-of-frame markers (not DHT C4, JPG C8, DAC CC) carry the size.
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return w, h
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        i += 2 + length
    return 0, 0


def image_tokens(image: ImageAttachment, provider: str | None) -> int:
    """What one image costs in the request, by the provider's published rule.

    Anthropic: width*height/750. OpenAI (high detail): the image fits in 2048x2048, its short
    side is scaled to 768, and it costs 85 + 170 per 512-px tile. Anyone else (or an image whose
    size the header did not give): about 1 000.
    """
    w, h = image.width, image.height
    if w <= 0 or h <= 0:
        return FALLBACK_IMAGE_TOKENS
    if provider == "anthropic":
        return max(1, math.ceil(w * h / 750))
    if provider == "openai":
        fit = min(1.0, 2048 / max(w, h))
        fw, fh = w * fit, h * fit
        short = min(1.0, 768 / min(fw, fh))
        return 85 + 170 * math.ceil(fw * short / 512) * math.ceil(fh * short / 512)
    return FALLBACK_IMAGE_TOKENS


def provider_rule(model: str | None) -> str | None:
    """Which provider's image rule a model name follows: `anthropic`, `openai` or None."""
    name = (model or "").lower()
    if name.startswith("anthropic/") or "claude" in name:
        return "anthropic"
    if name.startswith(("openai/", "azure/")) or name.startswith(("gpt-", "o1", "o3", "o4")):
        return "openai"
    return None


def describe(ref_id: str, name: str, data: bytes) -> str | None:
    """What `read_result` answers for a stored picture (its bytes are no lines to read), or None
    when `data` is not one."""
    media_type = sniff(data)
    if media_type is None:
        return None
    kind = {"image/webp": "WebP"}.get(media_type, media_type.removeprefix("image/").upper())
    width, height = dimensions(data, media_type)
    size = f"{width}x{height}, " if width and height else ""
    return (
        f"{ref_id} is a picture, not text: {name}, {kind} image, {size}{_size(len(data))}. "
        "It went to the model as an image with the user's message; its bytes are not readable as lines."
    )
