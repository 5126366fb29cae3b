"""`agent-tui` with no sub-command: open the Textual app.

Only the app's own modules are imported before the first frame; the factory (store, provider,
litellm) is imported inside the coroutine the app runs in a worker, behind the prompt. In an
untrusted folder whose `.agent-tui.toml` asks for more than harmless settings, that coroutine
first asks "Do you trust the files in this folder?" (frontends/tui/screens/trust.py) — at once, while the
agent stack imports in a thread behind it — and builds the services from the answer: nothing
the project file asks for starts before it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.config import ConfigError, load_config
from agent_tui.policy import trust

if TYPE_CHECKING:
    from agent_tui.compose.factory import AppServices
    from agent_tui.config import Config, LoadedConfig
    from agent_tui.frontends.tui.app import AgentApp

log = logging.getLogger(__name__)


def trusting_services(
    app: Callable[[], AgentApp],
    loaded: LoadedConfig,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    workspace: Path | None = None,
) -> Callable[[], Awaitable[AppServices]]:
    """The services factory: asks about trust first when the project file has keys to enable."""

    async def services() -> AppServices:

        folder = workspace or Path.cwd()
        config, notices = loaded.config, list(loaded.notices)
        if loaded.ignored:
            from agent_tui.frontends.tui.screens.trust import TrustScreen  # lazy: textual

            screen = TrustScreen(folder, loaded.ignored, changed=loaded.trust == "changed")
            if await app().push_screen_wait_safe(screen):
                trust.add(folder)
                try:
                    again = load_config(
                        rule_words=SHIPPED_WORDS, overrides=overrides, cwd=folder, trusted=True
                    )
                except ConfigError as exc:
                    app().notify(str(exc), severity="error")
                else:
                    config, notices = again.config, list(again.notices)
            else:
                # The question just listed all of it: one short line, not a toast of ~20 rows
                # over the meter and the input at 80×24.
                untrusted = [n for n in notices if trust.is_untrusted_notice(n)]
                notices = [n for n in notices if n not in untrusted]
                notices += [trust.not_now_notice(untrusted)] if untrusted else []
        for line in notices:
            app().notify(line, severity="warning", timeout=15)
        await app().warmed()  # the question came first; the agent stack was importing meanwhile

        from agent_tui.compose.factory import build_services  # lazy: start-up (after the first frame)

        return await build_services(config, workspace=folder, warm_http=False)

    return services


def launch_tui(
    config: Config,
    *,
    continue_: bool = False,
    session_id: str | None = None,
    loaded: LoadedConfig | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    first_message: str | None = None,
) -> int:
    """Run the app until the user quits; returns the exit code. `first_message` is sent as soon
    as the first tab's session is open (`agent-tui "fix the bug"`)."""
    from agent_tui.frontends.tui.app import AgentApp  # lazy: textual

    async def plain() -> AppServices:
        await app.warmed()

        from agent_tui.compose.factory import build_services  # lazy: start-up (after the first frame)

        return await build_services(config, warm_http=False)

    factory = trusting_services(lambda: app, loaded, overrides) if loaded is not None else plain
    app = AgentApp(
        factory,
        continue_=continue_,
        session_id=session_id,
        theme_name=config.ui.theme,
        first_message=first_message,
    )
    app.run()
    return app.return_code or 0
