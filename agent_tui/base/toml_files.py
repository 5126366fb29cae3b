"""Reading a TOML settings file, and the error every configuration problem is phrased as.

Apart from the config package so that modules it consults while layering (the hook sources,
which list a project's withheld hooks) can read TOML and raise the same error without importing
the config package back.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    """A configuration problem, already phrased for the user."""


def read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    except UnicodeDecodeError as exc:
        bad = exc.object[exc.start : exc.start + 1].hex()
        raise ConfigError(
            f"{path}: not UTF-8 text (byte 0x{bad} at offset {exc.start}); save it as UTF-8"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
