"""Every use of Textual's private API, in one place, so an upgrade that breaks one breaks loudly.

Textual is pinned to a tested range (pyproject.toml, constraints.txt); the rest of agent-tui uses
its public API only. Two things have no public hook, and live here:

- an unexpected exception in the UI: Textual prints a full traceback with locals over the
  user's terminal. We log it whole and print one line that says where the details are
  (`App._handle_exception`, `App._fatal_error`, overridden by `OneLineCrashes`);
- a notification to a terminal that is not focused: an OSC 9 / 777 sequence written as it is
  (`App._driver`, `write_to_terminal`);
- what the tests read: the screen as text (`Screen._compositor`) and the notices shown
  (`App._notifications`);
- a leak: `StylesCache.get_inner_outer` is an `lru_cache` on an instance method, so it keeps
  the last 1 024 widgets' style caches — and every line they rendered — alive after the
  widgets are removed (Textualize/textual#6665, open). A long chat creates a widget per
  entry, so the heap grew for the first ~1 000 entries and each full garbage collection with
  it: 25 ms at turn 25, 90-100 ms at turn 300, landing on some reply. `release_render_caches`
  empties that cache after the chat drops old widgets.
- a waste at start-up: Textual's `Footer` rebuilds every key (a widget each, each restyled) on
  every focus change, whether or not the keys it shows changed; the first seconds of the TUI
  moved focus ~5 times over the same four keys (~4% of start-up CPU). `SteadyFooter` keeps the
  keys when its `bindings_changed` hook would rebuild the same ones (`Footer._bindings_ready`).
- a slide at every turn: a tab's label changes when its busy mark `⋯` comes and goes, and
  Textual's tab strip then slides its underline for 0.3 s at 60 frames a second; every frame
  repaints the screen, ~20 per turn, while the reply the user waits for is being drawn.
  `relabel_tab` changes the label with that message held back and puts the underline under the
  label at once (`Underline` lives in the private `textual.widgets._tabs`).

`PRIVATE_API` names each one; tests/test_textual_compat.py checks they exist with the shape we
rely on and that the behaviour built on them still works, so the next Textual release that moves
them fails that test, not a user's session.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, TypeVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Tab, Tabs

if TYPE_CHECKING:
    from textual.notifications import Notification

log = logging.getLogger(__name__)

ReturnT = TypeVar("ReturnT")


def relabel_tab(tabs: Tabs, tab: Tab, label: str) -> None:
    """Give `tab` a new label without the underline's slide (it moves once the label is laid out)."""
    from textual.widgets._tabs import Underline

    with tab.prevent(Tab.Relabelled):
        tab.label = label

    def underline_active(rounds: int) -> None:
        active = tabs.active_tab
        if active is None or not tabs.is_mounted:
            return
        span = active.virtual_region.shrink(active.styles.gutter)
        if span.width != active.label.cell_length and rounds:
            # The refresh that ran did not lay out the new label yet (another widget's came first).
            tabs.call_after_refresh(underline_active, rounds - 1)
            return
        underline = tabs.query_one(Underline)
        underline.highlight_start, underline.highlight_end = span.column_span

    tabs.call_after_refresh(underline_active, 5)


PRIVATE_API: dict[type, tuple[str, ...]] = {
    App: ("_handle_exception", "_fatal_error", "_notifications", "_driver"),
    Screen: ("_compositor",),
    Footer: ("_bindings_ready", "bindings_changed"),
}
"""The private Textual names agent-tui touches, by the class that holds them."""


class OneLineCrashes(App[ReturnT]):
    """An app whose unexpected exceptions go whole to the log and as one line to the terminal."""

    def crash_line(self) -> str:
        """What the terminal shows after an unexpected exception (the app says where to look)."""
        return "stopped on an unexpected error; details in the log."

    def _handle_exception(self, error: Exception) -> None:
        log.error("%s crashed", self.title, exc_info=error)
        super()._handle_exception(error)

    def _fatal_error(self) -> None:
        # Replaces Textual's full traceback with locals (in the log already, above).
        self.bell()
        self.panic(Text(self.crash_line()))


def write_to_terminal(app: App[Any], data: str) -> None:
    """Send an escape sequence (a notification) to the terminal as it is: Textual has no public
    way to write raw output, so it goes through the app's driver (`App._driver`)."""
    driver = app._driver
    if driver is not None:
        driver.write(data)
        driver.flush()


def screen_text(app: App[object]) -> str:
    """What the terminal shows, one line per row, without styles (for tests)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def release_render_caches() -> None:
    """Let removed widgets' style caches (and the lines they rendered) be freed. The cache only
    saves building two Styles per widget per colour pair; live widgets refill it as they draw."""
    from textual._styles_cache import StylesCache

    StylesCache.get_inner_outer.cache_clear()


def notifications(app: App[object]) -> list[Notification]:
    """The notices currently shown or queued, oldest first (for tests)."""
    return list(app._notifications)


class SteadyFooter(Footer):
    """Textual's Footer, rebuilt only when the keys it would show changed."""

    _shown: tuple[object, ...] | None = None
    """What the last compose showed (None before the bindings were ready)."""

    def _keys_to_show(self) -> tuple[object, ...]:
        active = self.screen.active_bindings
        keys = [
            (binding, enabled, tooltip) for (_, binding, enabled, tooltip) in active.values() if binding.show
        ]
        displays = tuple(self.app.get_key_display(binding) for binding, _, _ in keys)
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            found = active.get(self.app.COMMAND_PALETTE_BINDING)
            palette = found[1:] if found is not None else None
        return tuple(keys), displays, palette, self.combine_groups

    def compose(self) -> ComposeResult:
        if self._bindings_ready:
            self._shown = self._keys_to_show()
        yield from super().compose()

    def bindings_changed(self, screen: Screen[object]) -> None:
        same_screen = self.is_attached and screen is self.screen and screen.app.app_focus
        if same_screen and self._shown is not None and self._keys_to_show() == self._shown:
            return  # the same keys: rebuilding them would only restyle identical widgets
        super().bindings_changed(screen)
