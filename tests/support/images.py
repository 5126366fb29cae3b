"""Real image files for tests: a valid PNG of any size (zlib-compressed, so big sizes stay small
on disk unless padded), and the tiny headers of the other formats."""

from __future__ import annotations

import struct
import zlib


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png(width: int, height: int, *, pad: int = 0) -> bytes:
    """A grey PNG of `width`x`height`; `pad` bytes of an ancillary chunk make it that much bigger."""
    rows = b"".join(b"\0" + b"\x80" * width for _ in range(height))
    data = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
    if pad:
        data += _chunk(b"tEXt", b"pad\0" + b"x" * pad)
    return data + _chunk(b"IDAT", zlib.compress(rows)) + _chunk(b"IEND", b"")


def gif(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\0\0\0;"


def jpeg(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0"
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\0"
    return b"\xff\xd8" + app0 + sof + b"\xff\xd9"


def webp_vp8x(width: int, height: int) -> bytes:
    body = b"VP8X" + struct.pack("<I", 10) + b"\0\0\0\0" + (width - 1).to_bytes(3, "little")
    body += (height - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body


def image_urls(message: dict) -> list[str]:
    """The data URLs of the image_url parts of one OpenAI-format message sent to a server."""
    content = message["content"]
    if isinstance(content, str):
        return []
    return [p["image_url"]["url"] for p in content if p.get("type") == "image_url"]
