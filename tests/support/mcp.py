"""Whether the MCP SDK is installed, for the tests that start a real MCP server."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest


def installed(name: str) -> str:
    """A server executable from the venv (or PATH); the dev extra installs them."""
    for folder in (Path(sys.executable).parent, *os.environ.get("PATH", "").split(os.pathsep)):
        path = Path(folder) / name
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    pytest.fail(f"{name} is not installed: `pip install {name}` (it is in the dev extra)")
