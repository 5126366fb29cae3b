"""The command sandbox a configuration asks for, built where a session's services are built and
where `mcp` commands start servers as a session would (tools/sandbox.py is the sandbox itself)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.tools.sandbox import Probe, Sandbox, probe_async

if TYPE_CHECKING:
    from agent_tui.config import Config

log = logging.getLogger(__name__)


async def make_sandbox(config: Config, workspace: Path) -> Sandbox:
    """The sandbox `[sandbox]` asks for; bwrap is probed only when a mode other than off is."""
    s = config.sandbox
    found = await probe_async() if s.mode != "off" else Probe(None, "the sandbox is off")
    sandbox = Sandbox(
        s.mode,
        workspace=workspace,
        probe=found,
        network=s.network,
        auto_approve=s.auto_approve,
        allow_read=s.allow_read,
        unix_sockets=s.unix_sockets,
        db_path=config.store.db,
    )
    if sandbox.notice:
        log.warning("%s", sandbox.notice)
    return sandbox
