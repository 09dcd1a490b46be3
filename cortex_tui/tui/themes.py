"""Theme files: TOML in the top-level `themes/` folder, validated, turned into Textual themes.

A theme file names its colours under `[colors]` (Textual's base colours) and may override
any domain colour (see `colours.DOMAIN_DEFAULTS`) under `[variables]`. Files are looked up
in the source checkout (`<repo>/themes`), in an installed wheel (`cortex_tui/themes`, put
there by hatch's force-include) and in `$CORTEX_HOME/themes` for the user's own. A bad
file never stops the app: it is skipped and its reason collected for one notification.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from textual.color import Color, ColorParseError
from textual.theme import Theme

from cortex_tui.tui.colours import DOMAIN_DEFAULTS

PACKAGE_DIR = Path(__file__).resolve().parents[1]
"""`cortex_tui/`: in a wheel the themes sit inside it, in a checkout next to it."""


def _colour(value: str) -> str:
    try:
        Color.parse(value)
    except ColorParseError as exc:
        raise ValueError(f"{value!r} is not a colour ({exc})") from None
    return value


class ThemeColors(BaseModel):
    """Textual's base colours; only `primary` is required, the rest are derived."""

    model_config = ConfigDict(extra="forbid")

    primary: str
    secondary: str | None = None
    accent: str | None = None
    foreground: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    boost: str | None = None
    success: str | None = None
    warning: str | None = None
    error: str | None = None

    @field_validator("*")
    @classmethod
    def _is_colour(cls, value: str | None) -> str | None:
        return None if value is None else _colour(value)


class ThemeFile(BaseModel):
    """One theme file as written on disk."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    dark: bool
    colors: ThemeColors
    variables: dict[str, str] = Field(default_factory=dict)

    @field_validator("variables")
    @classmethod
    def _domain_colours(cls, variables: dict[str, str]) -> dict[str, str]:
        for key, value in variables.items():
            if key in DOMAIN_DEFAULTS:
                _colour(value)
        return variables

    def to_theme(self) -> Theme:
        colors = self.colors.model_dump(exclude_none=True)
        return Theme(name=self.name, dark=self.dark, variables=self.variables, **colors)


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
        return ThemeFile.model_validate(raw).to_theme()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "file"
        raise ValueError(f"{path.name}: {where}: {first['msg']}") from None


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
