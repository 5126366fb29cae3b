"""One log file in the state dir: errors land there with their tracebacks, never on screen.

When the state dir cannot be written (a read-only or misplaced home), the log goes to a private
folder in the temp dir instead: a start-up problem is never a traceback,
and every one-line error can name the file holding the details (`current_log`).
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from pathlib import Path

from agent_tui.runtime import paths

_configured: Path | None = None


def _attach(path: Path, level: int) -> None:
    paths.ensure_private_dir(path.parent)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("agent_tui")
    for old in list(logger.handlers):
        if isinstance(old, logging.FileHandler):
            logger.removeHandler(old)
            old.close()
    logger.addHandler(handler)
    logger.setLevel(level)


def fallback_log_file() -> Path:
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"agent-tui-{uid}" / "agent-tui.log"


def setup_logging(level: int = logging.INFO) -> Path:
    """Attach a file handler to the root `agent_tui` logger (idempotent) and return its path."""
    global _configured
    path = paths.log_file()
    if _configured in (path, fallback_log_file()):
        return _configured
    try:
        _attach(path, level)
    except OSError as exc:
        fallback = fallback_log_file()
        try:
            _attach(fallback, level)
        except OSError:
            sys.stderr.write(f"agent-tui: cannot write a log ({path.parent}: {exc.strerror}); no log kept\n")
            return path
        # No line on screen for this: the error that follows (if any) names the fallback log.
        logging.getLogger(__name__).warning("cannot write the log in %s (%s)", path.parent, exc.strerror)
        path = fallback
    _configured = path
    return path


def current_log() -> Path:
    """Where this process logs (the state dir's file until set-up says otherwise)."""
    return _configured or paths.log_file()
