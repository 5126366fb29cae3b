"""The prompt's pictures: a pasted path that names one, and Ctrl+V's clipboard picture, go into
the input as chips (`[image shot.png #1]`) whose bytes wait in `images` until the message's
turn starts (frontends/tui/image_paste.py has the rule for paths, agent_tui/frontends/tui/clipboard_image.py the tools).
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.widgets import TextArea

from agent_tui.base.images import MAX_IMAGE_BYTES
from agent_tui.frontends.tui.clipboard_image import read_picture
from agent_tui.frontends.tui.image_paste import PastedImages, load_pictures, pasted_paths


class PictureArea(TextArea):
    """A text area that takes pictures; the prompt's `_on_paste` asks `_paste_pictures` first."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.images = PastedImages()
        """Pictures pasted as paths or from the clipboard, by chip."""

    async def _paste_pictures(self, text: str) -> bool:
        """Paths that all name pictures become chips (True); anything else is left as text."""
        paths = pasted_paths(text)
        if paths is None:
            return False
        loaded = await asyncio.to_thread(load_pictures, paths)
        if loaded is None:
            return False
        for note in loaded.notes:
            self.app.notify(note, severity="warning")
        if not loaded.images:
            return False
        chips = " ".join(self.images.chip(name, data) for name, data in loaded.images)
        stripped = text.strip()
        self.insert(text[: text.index(stripped[0])] + chips + text[len(text.rstrip()) :])
        self.focus()
        return True

    def action_paste(self) -> None:
        """Ctrl+V: a picture from the system clipboard (the terminal's own paste brings text);
        text copied inside the app (a ref from the blob browser) still pastes when there is none."""
        if not self.read_only:
            self.run_worker(self._paste_clipboard(), group="clipboard", exclusive=True, exit_on_error=False)

    async def _paste_clipboard(self) -> None:

        got = await read_picture()
        if got.data is None:
            if self.app.clipboard:
                super().action_paste()
            else:
                self.app.notify(got.why, severity="warning")
            return
        if len(got.data) > MAX_IMAGE_BYTES:
            self.app.notify(
                f"Ctrl+V: the clipboard's picture is not attached ({len(got.data) / 1048576:.1f} MB; "
                f"the limit is {MAX_IMAGE_BYTES // 1048576} MB)",
                severity="warning",
            )
            return
        self.insert(self.images.chip(got.name, got.data))
