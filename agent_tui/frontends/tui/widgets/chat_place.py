"""Where a reader is in the chat, as a place that survives a reflow.

A scroll offset means nothing after a resize or after older entries went in above: every reply
wraps anew, so the same offset lands in other text. A place names the item at the top of the
view instead, and how far into it the view starts. Inside the item that is a share of its
height, since the text reflows in proportion. Above it (the blank row over a reply, the
"earlier entries" line) it is whole rows, since those do not reflow. Taken as a share of the
item, such a gap grew with the reply, and the view came back a fraction of a reply too high
(issue 32).

Applying a place is absolute and idempotent: whoever applies it, and however often, the view
ends up at the same spot once the layout is settled.

The place is taken on every scroll frame (a PageUp animates over a dozen), and asking Textual
for an item's region off screen rebuilds its map of every mounted widget once per frame (3-4 ms
with 200 entries mounted). A `PlaceMap` reads the items' rows once per layout and finds the
place by bisection; the pane builds a new one when the layout changes.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from textual.widget import Widget


@dataclass(frozen=True)
class ReadingPlace:
    """The item at the top of the view and where in or above it the view starts."""

    item: Widget
    """The first item whose bottom is below the top of the view."""
    share: float = 0.0
    """How far into the item the view starts, as a share of its height (0 to 1)."""
    rows_above: int = 0
    """Rows above the item where the view starts (a gap, never inside an item); `share` is 0."""

    def offset(self) -> float:
        """The scroll offset that puts this place at the top of the view, in today's layout."""
        region = self.item.virtual_region
        return region.y + self.share * region.height - self.rows_above


class PlaceMap:
    """The items' rows in one layout, to find the place of any scroll offset in it."""

    def __init__(self, items: Iterable[Widget]) -> None:
        self._items = list(items)
        self._regions = [item.virtual_region for item in self._items]
        # Running maximum: a hidden item has an empty region at 0, and bisection needs order.
        self._bottoms = list(accumulate((region.bottom for region in self._regions), max))

    def place_at(self, y: float) -> ReadingPlace | None:
        """The place of scroll offset `y`: the first item whose bottom is below it."""
        index = bisect_right(self._bottoms, y)
        if index == len(self._items):
            return None
        item, region = self._items[index], self._regions[index]
        if y < region.y:
            return ReadingPlace(item, rows_above=round(region.y - y))
        return ReadingPlace(item, share=(y - region.y) / max(1, region.height))


def place_at(items: Iterable[Widget], y: float) -> ReadingPlace | None:
    """The place of scroll offset `y` among `items` (in order, top to bottom)."""
    return PlaceMap(items).place_at(y)


def halt_scroll(pane: Widget, place_of: Callable[[float], ReadingPlace | None]) -> ReadingPlace | None:
    """Stop the pane's scroll animation where it is, before older entries go in above, and
    return the place (`place_of` its offset) it was heading for; None when it was not scrolling.

    An animation heads for an offset and steps through offsets: it went on stepping after the
    batch was laid out above, a batch's height higher in the text than the reader was, and the
    place taken from those frames was then restored, so a PageUp that mounted a batch jumped
    over the rows between. Stopped here, the view stays on the reader's place through the
    mount, and the pane scrolls on to the place it was heading for once the batch is laid out.
    """
    if not pane.app.animator.is_being_animated(pane, "scroll_y"):
        return None
    goal = place_of(pane.scroll_target_y)  # in today's layout, as the offset is
    pane.scroll_to(y=pane.scroll_y, animate=False, immediate=True)  # stops the animation
    return goal
