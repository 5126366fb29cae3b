"""The session as a JSONL file for hooks (`transcript_path`), brought up to date before each run.

Hooks that read the conversation (a Stop hook checking the last reply, a logger) get the path of
a file with one JSON object per stored message — `{"type": role, "message": {…}}`, the OpenAI
chat form — appended from the store's transcript, so it is current whenever a hook starts.
Nothing is written until a hook runs.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.runtime import paths

if TYPE_CHECKING:
    from agent_tui.store import Store

log = logging.getLogger(__name__)


def transcript_file(session_id: str) -> Path:
    return paths.data_dir() / "transcripts" / f"{session_id}.jsonl"


class TranscriptExport:
    def __init__(self, store: Store | None, session_id: str) -> None:
        self.store = store
        self.session_id = session_id
        self.path = transcript_file(session_id)
        self._written = 0  # messages already in the file (the store's sequence is dense)
        self._lock = asyncio.Lock()

    async def sync(self) -> Path:
        """Append what the store holds beyond what the file has; the path either way."""
        async with self._lock:
            if self.store is None:
                return self.path
            try:
                new = await self.store.sessions.transcript(self.session_id, after_seq=self._written)
                if new or not self.path.exists():
                    lines = "".join(
                        json.dumps({"type": m.role, "message": m.to_openai()}, ensure_ascii=False) + "\n"
                        for m in new
                    )
                    await asyncio.to_thread(self._append, lines)
                    self._written += len(new)
            except Exception:
                log.warning("could not bring the hook transcript %s up to date", self.path, exc_info=True)
            return self.path

    def _append(self, lines: str) -> None:
        paths.ensure_private_dir(self.path.parent)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(lines)
