"""Import litellm on first use, with the environment it needs on a machine with no internet."""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from agent_tui.base.tokens import _point_tiktoken_at_litellm_files
from agent_tui.llm.import_lock import HEAVY_IMPORTS

log = logging.getLogger(__name__)

_litellm: Any = None


def litellm() -> Any:
    """The litellm module, imported once, offline-safe and quiet."""
    global _litellm
    if _litellm is None:
        with HEAVY_IMPORTS:  # not beside httpx's own import in another thread (llm/import_lock.py)
            return _import()
    return _litellm


def _import() -> Any:
    global _litellm
    if _litellm is None:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

        _point_tiktoken_at_litellm_files()
        import litellm as module

        module.suppress_debug_info = True
        module.drop_params = True
        module.telemetry = False
        # We register no litellm callbacks; its post-stream success logging still rebuilt the
        # whole response and walked the request's messages in a background task, costing each
        # turn ~10 ms more at 1 500 messages (benchmarks/turn_overhead.py).
        module.disable_streaming_logging = True
        module.turn_off_message_logging = True
        _litellm = module
    return _litellm


_warming: threading.Thread | None = None


def warm_in_background() -> None:
    """Start importing litellm in a daemon thread (once): a model that needs it then finds it
    loaded, and the import never blocks the UI loop or the meter."""
    global _warming
    if _litellm is not None or _warming is not None:
        return

    def warm() -> None:
        try:
            litellm()
        except Exception:
            log.debug("importing litellm in the background failed", exc_info=True)

    _warming = threading.Thread(target=warm, name="litellm-import", daemon=True)
    _warming.start()
