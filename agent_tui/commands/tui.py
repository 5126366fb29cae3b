"""`agent-tui` with no sub-command: open the Textual app.

Only the app's own modules are imported before the first frame; the factory (store, provider,
litellm) is imported inside the coroutine the app runs in a worker, behind the prompt.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.config import Config
    from agent_tui.factory import AppServices

log = logging.getLogger(__name__)


def launch_tui(config: Config, *, continue_: bool = False, session_id: str | None = None) -> int:
    """Run the app until the user quits; returns the exit code."""
    from agent_tui.ui.app import AgentApp

    async def services() -> AppServices:
        from agent_tui.factory import build_services

        return await build_services(config)

    app = AgentApp(services, continue_=continue_, session_id=session_id, theme_name=config.ui.theme)
    app.run()
    return app.return_code or 0
