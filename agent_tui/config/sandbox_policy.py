"""What a project file may say about the sandbox: tighten it, never loosen it.

A cloned repository's `.agent-tui.toml` must not be able to turn off the wall that makes --yes
safe, whether or not its folder is trusted; its loosening keys are dropped with a warning.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_tui.config.schema import SandboxSettings

log = logging.getLogger(__name__)

_STRICTNESS = {"off": 0, "workspace-write": 1, "read-only": 2}


def project_keeps_sandbox(data: dict[str, Any], user: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """`data` (a project layer) without the sandbox keys that would loosen the user's sandbox."""
    table = data.get("sandbox")
    if not isinstance(table, Mapping):
        return data
    kept = dict(table)
    mode = user.get("mode", SandboxSettings.mode)
    looser = {
        "mode": _STRICTNESS.get(str(kept.get("mode")), 3) < _STRICTNESS.get(mode, 1),
        "network": kept.get("network") is True and user.get("network") is not True,
        "auto_approve": kept.get("auto_approve") is True and user.get("auto_approve") is not True,
        "allow_read": bool(kept.get("allow_read")),  # only the user opens a hidden path
        "unix_sockets": bool(kept.get("unix_sockets")),
    }
    for key, loosens in looser.items():
        if key in kept and loosens:
            log.warning(
                "%s: sandbox.%s = %r ignored: a project file cannot loosen the sandbox "
                "(set it in your user config or pass --sandbox)",
                path,
                key,
                kept.pop(key),
            )
    return {**data, "sandbox": kept}
