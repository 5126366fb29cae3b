"""A picture from the system clipboard, for Ctrl+V in the prompt (as Claude Code does).

A terminal pastes only text, so the picture is asked of the desktop's own clipboard tool:
`wl-paste` on Wayland, `xclip` on X11, on macOS `pngpaste` or else `osascript` (built in) —
whichever is installed, the one the session's display names first. A listing of the offered
types comes first, so a clipboard holding text is said in one line instead of read. Every way of not getting a picture (no tool,
no picture, the tool's own error) is one line for the user; nothing raises.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass

from agent_tui.base.images import sniff

TIMEOUT = 5.0
"""Seconds a clipboard tool may take (a clipboard owner that hangs must not hang Ctrl+V)."""
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
"""What is asked for, best first: the formats the providers take."""
_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
_TEXT_TYPES = ("text/plain", "UTF8_STRING", "STRING", "TEXT")
NO_TOOL = "Ctrl+V: no clipboard tool (install wl-clipboard or xclip), or drop the picture's file here"


@dataclass(frozen=True)
class ClipboardPicture:
    """What Ctrl+V found: a picture, or the one line saying why there is none."""

    data: bytes | None
    why: str = ""
    name: str = "clipboard.png"


@dataclass(frozen=True)
class _Tool:
    name: str
    list_types: tuple[str, ...] | None
    """The command listing the offered types (None: the tool reads a PNG or fails)."""
    read: tuple[str, ...]
    """The command writing the picture to stdout; `{type}` stands for the media type."""
    decode: Callable[[bytes], bytes] = bytes
    """What the tool wrote, made into the picture's bytes."""
    refusal: str | None = None
    """What any failure of the tool means (osascript's own message for it is cryptic)."""


def _applescript_data(out: bytes) -> bytes:
    """`«data PNGf89504E47…»`, AppleScript's print of raw data, as the bytes it stands for."""
    text = out.decode("utf-8", "replace").strip()
    if not (text.startswith("«data PNGf") and text.endswith("»")):
        return b""
    try:
        return bytes.fromhex(text[len("«data PNGf") : -1])
    except ValueError:
        return b""


_WL_PASTE = _Tool("wl-paste", ("--list-types",), ("--no-newline", "--type", "{type}"))
_XCLIP = _Tool(
    "xclip",
    ("-selection", "clipboard", "-t", "TARGETS", "-o"),
    ("-selection", "clipboard", "-t", "{type}", "-o"),
)
_PNGPASTE = _Tool("pngpaste", None, ("-",))
_OSASCRIPT = _Tool(
    "osascript",
    None,
    ("-e", "the clipboard as «class PNGf»"),
    decode=_applescript_data,
    refusal="Ctrl+V: no picture on the clipboard",
)


def _system_path() -> str:
    """$PATH without its relative entries (`.`, an empty one: the current folder) and without
    folders inside the current one: Ctrl+V in a cloned repository must not run the repository's
    own `xclip`."""
    here = os.path.realpath(os.getcwd())
    kept = []
    for entry in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        real = os.path.realpath(entry)
        if real == here or real.startswith(here.rstrip("/") + "/"):
            continue
        kept.append(entry)
    return os.pathsep.join(kept)


def _tools() -> list[tuple[_Tool, str]]:
    """The installed tools with their paths, the one the session's display is for first."""
    order = [_WL_PASTE, _XCLIP] if os.environ.get("WAYLAND_DISPLAY") else [_XCLIP, _WL_PASTE]
    found = []
    search = _system_path()
    for tool in [*order, _PNGPASTE, _OSASCRIPT]:
        path = shutil.which(tool.name, path=search)
        if path is not None:
            found.append((tool, path))
    return found


async def read_picture() -> ClipboardPicture:
    """The clipboard's picture, from the first installed tool that has one; else why not (the
    first tool's answer: the one for this session's display)."""
    tools = _tools()
    if not tools:
        return ClipboardPicture(None, NO_TOOL)
    first: ClipboardPicture | None = None
    for tool, path in tools:
        got = await _read(tool, path)
        if got.data is not None:
            return got
        first = first or got
    assert first is not None
    return first


async def _read(tool: _Tool, path: str) -> ClipboardPicture:
    media_type = "image/png"
    if tool.list_types is not None:
        code, out, err = await _run(path, tool.list_types)
        if code != 0:
            return _failed(tool, err)
        offered = [line.strip() for line in out.decode("utf-8", "replace").splitlines()]
        wanted = next((t for t in IMAGE_TYPES if t in offered), None)
        if wanted is None:
            return ClipboardPicture(None, f"Ctrl+V: no picture on the clipboard ({_holds(offered)})")
        media_type = wanted
    code, out, err = await _run(path, tuple(a.replace("{type}", media_type) for a in tool.read))
    if code != 0:
        return ClipboardPicture(None, tool.refusal) if tool.refusal else _failed(tool, err)
    out = tool.decode(out)
    found = sniff(out)
    if found is None:
        return ClipboardPicture(None, "Ctrl+V: no picture on the clipboard (not a PNG, JPEG, GIF or WebP)")
    return ClipboardPicture(out, name=f"clipboard.{_EXTENSIONS[found]}")


def _holds(offered: list[str]) -> str:
    images = [t for t in offered if t.startswith("image/")]
    if images:
        return f"it holds {images[0]}; only PNG, JPEG, GIF or WebP are attached"
    if any(t in _TEXT_TYPES or t.startswith("text/") for t in offered):
        return "it holds text"
    return "it is empty"


def _failed(tool: _Tool, err: bytes) -> ClipboardPicture:
    line = next((ln.strip() for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()), "")
    return ClipboardPicture(None, f"Ctrl+V: {tool.name}: {line or 'no picture on the clipboard'}")


async def _run(path: str, args: tuple[str, ...]) -> tuple[int, bytes, bytes]:
    try:
        proc = await asyncio.create_subprocess_exec(
            path,
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as exc:
        return 1, b"", (exc.strerror or str(exc)).encode()
    try:
        out, err = await asyncio.wait_for(proc.communicate(), TIMEOUT)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return 1, b"", f"did not answer within {TIMEOUT:.0f} s".encode()
    return proc.returncode or 0, out, err
