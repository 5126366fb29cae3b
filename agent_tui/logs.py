"""One log file in the state dir: errors land there with their tracebacks, never on screen."""

from __future__ import annotations

import logging
from pathlib import Path

from agent_tui import paths

_configured: Path | None = None


def setup_logging(level: int = logging.INFO) -> Path:
    """Attach a file handler to the root `agent_tui` logger (idempotent) and return its path."""
    global _configured
    path = paths.log_file()
    if _configured == path:
        return path
    paths.ensure_private_dir(path.parent)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("agent_tui")
    for old in list(logger.handlers):
        if isinstance(old, logging.FileHandler):
            logger.removeHandler(old)
    logger.addHandler(handler)
    logger.setLevel(level)
    _configured = path
    return path
