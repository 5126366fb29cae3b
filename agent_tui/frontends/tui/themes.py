"""Themes are files: TOML tables turned into `textual.theme.Theme` objects.

The two built-in themes live next to this module; users may drop more into
`<config dir>/themes/`. A file that does not parse is skipped with a one-line reason the app shows
as a notice — a bad theme never stops the app from starting. A theme that parses but whose text
is hard to read on its own background loads with a notice saying so (WCAG contrast ratios).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

from agent_tui.runtime import paths

BUILTIN_DIR = Path(__file__).parent / "themes"
DEFAULT_DARK = "agent-dark"
DEFAULT_LIGHT = "agent-light"

# Variables app.tcss and the meter use beyond Textual's own; a user theme may omit them.
VARIABLE_DEFAULTS = {
    "meter-system": "#7aa2f7",
    "meter-memory": "#bb9af7",
    "meter-tools": "#2ac3de",
    "meter-conversation": "#9ece6a",
    "meter-reserved": "#808080",
    "meter-free": "#404040",
    "user-label": "#e6a75a",
    "agent-label": "#5fa8d3",
}

_THEME_FIELDS = {f.name for f in fields(Theme)}


@dataclass(frozen=True)
class ThemeLoad:
    """What reading the theme folders produced."""

    themes: tuple[Theme, ...]
    """Themes that parsed, built-in first."""
    problems: tuple[str, ...]
    """One line per file that did not, naming the file and the reason."""


def theme_from_file(path: Path) -> Theme:
    """Parse one theme file; ValueError with a one-line reason when it is not a theme."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    unknown = sorted(set(data) - _THEME_FIELDS)
    if unknown:
        raise ValueError(f"{path}: unknown theme keys {', '.join(unknown)}")
    if not isinstance(data.get("name"), str) or not isinstance(data.get("primary"), str):
        raise ValueError(f"{path}: a theme needs a `name` and a `primary` colour")
    variables = data.get("variables", {})
    if not isinstance(variables, dict):
        raise ValueError(f"{path}: [variables] must be a table of name = colour")
    for name, value in variables.items():
        # The stylesheet would fail on a bad value at the first paint, taking the app down.
        try:
            Color.parse(str(value))
        except ColorParseError:
            raise ValueError(f"{path}: variable {name} = {value!r} is not a colour") from None
    try:
        theme = Theme(**data)
        theme.to_color_system().generate()  # bad colours fail here, not on first paint
    except Exception as exc:  # noqa: BLE001 - any bad value makes the file unusable
        raise ValueError(f"{path}: {exc}") from None
    return theme


def theme_dirs() -> list[Path]:
    return [BUILTIN_DIR, paths.config_dir() / "themes"]


def load_themes(dirs: list[Path] | None = None) -> ThemeLoad:
    """Every theme file in `dirs` (built-in and user folders by default)."""
    themes: list[Theme] = []
    problems: list[str] = []
    for folder in dirs if dirs is not None else theme_dirs():
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                theme = theme_from_file(path)
            except ValueError as exc:
                problems.append(f"Theme skipped: {exc}")
                continue
            themes.append(theme)
            problems.extend(legibility_problems(theme))
    return ThemeLoad(tuple(themes), tuple(problems))


# -- choosing --------------------------------------------------------------------------------


def pick_theme(
    requested: str | None,
    available: Iterable[str],
    fallback: str = DEFAULT_DARK,
    listed: Iterable[str] | None = None,
) -> tuple[str, str | None]:
    """The theme to use for `requested` (a name from /theme or [ui] theme), and the notice to
    show when it is not available, naming the `listed` themes (default: the available ones
    that are not Textual's own)."""
    names = set(available)
    if not requested:
        return fallback, None
    if requested in names:
        return requested, None
    shown = (
        list(listed)
        if listed is not None
        else sorted(name for name in names if not name.startswith("textual-"))
    )
    return fallback, f"Unknown theme {requested!r}; using {fallback}. Themes: {', '.join(shown)}."


# -- legibility ------------------------------------------------------------------------------

MIN_TEXT_CONTRAST = 4.5
"""WCAG AA for body text."""
MIN_MUTED_CONTRAST = 3.0
"""For de-emphasised text (hints, line numbers): WCAG's floor for large text."""


def _luminance(color: Color) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast_ratio(a: Color, b: Color) -> float:
    """The WCAG contrast ratio of two opaque colours: 1 (none) to 21 (black on white)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def theme_colour(theme: Theme, name: str, over: Color | None = None) -> Color:
    """A theme variable as the terminal shows it: `auto 60%` and alpha resolved over `over`."""
    variables = theme.to_color_system().generate()
    value = variables[name]
    under = over or Color.parse(variables["background"])
    if value.startswith("auto"):
        alpha = float(value.split()[1].rstrip("%")) / 100 if " " in value else 1.0
        return under + under.get_contrast_text(alpha)
    return under + Color.parse(value)


def legibility_problems(theme: Theme) -> list[str]:
    """One line per pairing of text and background that is hard to read in `theme`."""
    variables = theme.to_color_system().generate()
    problems = []
    for ground in ("background", "surface", "panel"):
        under = Color.parse(variables[ground])
        for text, floor in (
            ("foreground", MIN_TEXT_CONTRAST),
            ("text", MIN_TEXT_CONTRAST),
            ("text-muted", MIN_MUTED_CONTRAST),
        ):
            ratio = contrast_ratio(theme_colour(theme, text, under), under)
            if ratio < floor:
                problems.append(
                    f"Theme {theme.name}: {text} on {ground} has contrast "
                    f"{ratio:.1f}:1 (under {floor}:1), which is hard to read."
                )
    return problems
