"""A picture pasted into the prompt: a dropped file's path, or an image from the clipboard.

A terminal's drag and drop types the file's path — quoted (`'/home/me/My Shot.png' `), with
`\\ ` escapes (`/Users/me/My\\ Shot.png`) or as a `file://` URL. When every word of a paste is
an absolute path to a picture, the input shows a chip per picture (`[image My Shot.png #1]`)
and holds its bytes until the message goes; at the turn's start the pictures whose chips are in
the text go with it (agent/history.py `pending_images`), where they are capped, stored and sent
exactly as `@shot.png` is.

The consent rule: pasting a path is the user handing over that file, also from outside the
workspace — but only a picture. A pasted path is read only when it is a regular file whose
first bytes say PNG, JPEG, GIF or WebP (the first 16 bytes are all that is read to tell), up to
the 5 MB cap; any other paste, or one with a path that is not such a file, is text as typed.
"""

from __future__ import annotations

import os
import shlex
import stat
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from agent_tui.agent.image_attach import takes_images
from agent_tui.base.images import MAX_IMAGE_BYTES, ImageAttachment, sniff

MAX_PASTED_PATHS = 20
"""More words than this in one paste is text, not a drop of files."""
MAX_PASTE_CHARS = 16_384
HEAD_BYTES = 16
"""What is read of a pasted path to tell whether it is a picture."""


def pasted_paths(text: str) -> list[Path] | None:
    """The absolute paths a paste consists of (shell quoting and `file://` URLs undone), or None
    when any word of it is not an absolute path (then it is text)."""
    stripped = text.strip()
    if not stripped or len(stripped) > MAX_PASTE_CHARS or stripped[0] not in "'\"/~f":
        return None  # most pastes: prose or code, told by the first character
    try:
        words = shlex.split(stripped)
    except ValueError:  # an unbalanced quote: prose (`it's`)
        return None
    if not words or len(words) > MAX_PASTED_PATHS:
        return None
    paths = []
    for word in words:
        if word.startswith("file://"):
            url = urlparse(word)
            if url.netloc not in ("", "localhost"):
                return None
            word = unquote(url.path)
        elif word.startswith("~"):
            word = os.path.expanduser(word)
        if not os.path.isabs(word):
            return None
        paths.append(Path(word))
    return paths


@dataclass(frozen=True)
class Loaded:
    """What a paste of paths came to: the pictures, or the lines saying why it stays text."""

    images: list[tuple[str, bytes]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def load_pictures(paths: list[Path]) -> Loaded | None:
    """Each path's bytes when every one is a picture within the cap; None when any is not a
    picture file (nothing more than its first bytes was read); notes (no images) when one is
    too big. Blocking: run in a thread."""
    heads = []
    for path in paths:
        try:
            info = path.stat()
            if not stat.S_ISREG(info.st_mode):
                return None
            with path.open("rb") as f:
                head = f.read(HEAD_BYTES)
        except OSError:
            return None
        if sniff(head) is None:
            return None
        heads.append(info.st_size)
    too_big = [
        f"{path.name}: not attached ({size / 1048576:.1f} MB image; the limit is "
        f"{MAX_IMAGE_BYTES // 1048576} MB)"
        for path, size in zip(paths, heads, strict=True)
        if size > MAX_IMAGE_BYTES
    ]
    if too_big:
        return Loaded(notes=too_big)
    images = []
    for path in paths:
        try:
            with path.open("rb") as f:
                data = f.read(MAX_IMAGE_BYTES + 1)
        except OSError as exc:
            return Loaded(notes=[f"{path.name}: not attached ({exc.strerror})"])
        if sniff(data) is None or len(data) > MAX_IMAGE_BYTES:  # changed since its head was read
            return None
        images.append((path.name, data))
    return Loaded(images)


@dataclass
class PastedImages:
    """The pictures pasted into one tab's input, by chip; kept for the tab's life, so a queued
    message, a restored prompt or one brought back from the history still has its pictures."""

    held: dict[str, tuple[str, bytes]] = field(default_factory=dict)

    def chip(self, name: str, data: bytes) -> str:
        """Keep the picture and return the chip that stands for it in the input."""
        chip = f"[image {name} #{len(self.held) + 1}]"
        self.held[chip] = (name, data)
        return chip

    def in_text(self, text: str) -> list[tuple[str, bytes]]:
        """The pictures whose chips are in `text`, in the order they appear there."""
        found = [(text.find(chip), image) for chip, image in self.held.items() if chip in text]
        return [image for _at, image in sorted(found, key=lambda pair: pair[0])]

    def chips(self, text: str, model: str | None) -> tuple[str, ...]:
        """The chat's chips (`[image shot.png 120 KB]`) for the pictures going with `text`:
        none when the model takes no images (the send says so in one notice)."""
        pictures = self.in_text(text)
        if not pictures:
            return ()

        if not takes_images(model):
            return ()
        return tuple(
            ImageAttachment(name, sniff(data) or "", 0, 0, len(data)).chip() for name, data in pictures
        )
