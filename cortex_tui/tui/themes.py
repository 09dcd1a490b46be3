"""Theme files: TOML in the top-level `themes/` folder, validated, turned into Textual themes.

A theme file names its colours under `[colors]` (Textual's base colours) and may override
any domain colour (see `colours.DOMAIN_DEFAULTS`) under `[variables]`. Files are looked up
in the source checkout (`<repo>/themes`), in an installed wheel (`cortex_tui/themes`, put
there by hatch's force-include) and in `$CORTEX_HOME/themes` for the user's own. A bad
file never stops the app: it is skipped and its reason collected for one notification.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

from cortex_tui.tui.colours import DOMAIN_DEFAULTS

PACKAGE_DIR = Path(__file__).resolve().parents[1]
"""`cortex_tui/`: in a wheel the themes sit inside it, in a checkout next to it."""

BASE_COLOURS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
    "success",
    "warning",
    "error",
)
"""Textual's base colours; only `primary` is required, the rest are derived."""
THEME_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
FILE_KEYS = {"name", "dark", "colors", "variables"}


class ThemeFileError(ValueError):
    """A theme file that is not one: `where` it goes wrong, and why."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"{where}: {why}")


def _colour(where: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ThemeFileError(where, "must be a colour string like '#4e9be6'")
    try:
        Color.parse(value)
    except ColorParseError as exc:
        raise ThemeFileError(where, f"{value!r} is not a colour ({exc})") from None
    return value


def _table(where: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ThemeFileError(where, "must be a table")
    return value


def theme_from(raw: dict[str, Any]) -> Theme:
    """A theme file's table as a Textual theme. Checked by hand rather than with a
    pydantic model: pydantic's import is ~90 ms the app's first frame would wait for."""
    unknown = sorted(raw.keys() - FILE_KEYS)
    if unknown:
        raise ThemeFileError(unknown[0], "is not a theme file key")
    name = raw.get("name")
    if not isinstance(name, str) or not THEME_NAME.match(name):
        raise ThemeFileError("name", "must be lowercase letters, digits and dashes")
    dark = raw.get("dark")
    if not isinstance(dark, bool):
        raise ThemeFileError("dark", "must be true or false")
    colors = _table("colors", raw.get("colors"))
    if "primary" not in colors:
        raise ThemeFileError("colors.primary", "is required")
    extra = sorted(colors.keys() - set(BASE_COLOURS))
    if extra:
        raise ThemeFileError(f"colors.{extra[0]}", f"is not one of {', '.join(BASE_COLOURS)}")
    base: dict[str, Any] = {key: _colour(f"colors.{key}", value) for key, value in colors.items()}
    variables = _table("variables", raw.get("variables", {}))
    for key, value in variables.items():
        if not isinstance(value, str):
            raise ThemeFileError(f"variables.{key}", "must be a string")
        if key in DOMAIN_DEFAULTS:
            _colour(f"variables.{key}", value)
    return Theme(name=name, dark=dark, variables=dict(variables), **base)


def theme_dirs(home: Path | None) -> list[Path]:
    """Where theme files may be, shipped ones first; only folders that exist."""
    candidates = [PACKAGE_DIR / "themes", PACKAGE_DIR.parent / "themes"]
    if home is not None:
        candidates.append(home / "themes")
    return [path for path in candidates if path.is_dir()]


def load_theme_file(path: Path) -> Theme:
    """Parse and validate one file; raises `ValueError` with a one-line reason."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path.name}: {exc}") from None
    try:
        return theme_from(raw)
    except ThemeFileError as exc:
        raise ValueError(f"{path.name}: {exc}") from None


def load_themes(dirs: Iterable[Path]) -> tuple[list[Theme], list[str]]:
    """Every valid theme in `dirs` (a later folder's theme replaces an earlier one of the
    same name) and one reason per file that was skipped."""
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    for folder in dirs:
        for path in sorted(folder.glob("*.toml")):
            try:
                theme = load_theme_file(path)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            themes[theme.name] = theme
    return list(themes.values()), problems
