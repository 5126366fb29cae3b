"""The TUI's own actions for registry commands (bound in frontends/tui/slash.py `TUI_ACTIONS`): each takes
the tab's view and the text after the command's name. The commands' shared effects are in
core/command_effects.py; these are what only a tab can do (open a screen, replace its session).
Failures become one-line notices in `slash.run`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.frontends.tui import permissions_cmd

if TYPE_CHECKING:
    from agent_tui.frontends.tui.command_host import TabCommandHost

# -- the tab's session ---------------------------------------------------------------------------


async def compact(view: TabCommandHost, argument: str) -> None:
    await view.start_compact(argument or None)


async def review(view: TabCommandHost, argument: str) -> None:
    await view.start_review(argument.strip() or None)


async def new(view: TabCommandHost, argument: str) -> None:
    await view.open_new()


async def model(view: TabCommandHost, argument: str) -> None:
    await view.switch_model(argument)


async def permissions(view: TabCommandHost, argument: str) -> None:
    """Session grants and saved rules in one list; `remove RULE` drops either, at once."""

    await permissions_cmd.run(view, argument)


# -- the App's screens ----------------------------------------------------------------------------


async def context(view: TabCommandHost, argument: str) -> None:
    view.actions.action_context()


async def blobs(view: TabCommandHost, argument: str) -> None:
    view.actions.action_blobs(argument)


async def resume(view: TabCommandHost, argument: str) -> None:
    view.actions.action_resume()


async def sandbox(view: TabCommandHost, argument: str) -> None:
    view.actions.action_sandbox(argument)


async def theme(view: TabCommandHost, argument: str) -> None:
    view.actions.action_theme(argument)


async def show_help(view: TabCommandHost, argument: str) -> None:
    view.actions.action_help()


async def quit_app(view: TabCommandHost, argument: str) -> None:
    view.actions.exit()
