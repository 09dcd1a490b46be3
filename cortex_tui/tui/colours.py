"""Domain colours as theme variables, so every theme (ours or Textual's) can colour them.

Widgets refer to them as `$signal-relevance`, `$penalty-conflict`, ... in CSS and in
Content markup; a theme file may override any of them under `[variables]`. The defaults
are mid-saturation colours that read on dark and light backgrounds alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.color import Color

from cortex_tui.models import SIGNAL_NAMES

_SIGNAL_DEFAULTS: tuple[str, ...] = (
    "#4e9be6",  # relevance
    "#3bb3a3",  # recency
    "#8d7be0",  # frequency
    "#d9a23b",  # type
    "#c7793f",  # scope
    "#5fae5a",  # confidence
    "#b86fc2",  # reinforcement
    "#d0648a",  # tag_affinity
    "#7f9c3a",  # graph_proximity
    "#4fa3c7",  # period
)


_CATEGORY_DEFAULTS: tuple[str, ...] = (
    "#4e9be6",
    "#d9a23b",
    "#5fae5a",
    "#b86fc2",
    "#3bb3a3",
    "#d0648a",
    "#c7793f",
    "#8a8f98",
)
CATEGORIES = len(_CATEGORY_DEFAULTS)
"""Distinct colours for the values of one field (types, projects) on the map; the last
one is for "everything else"."""


def category_variable(index: int) -> str:
    """The theme variable of the `index`-th category colour (wrapping round)."""
    return f"category-{index % CATEGORIES + 1}"


def signal_variable(signal: str) -> str:
    """The theme variable colouring one score signal, e.g. `signal-tag-affinity`."""
    return "signal-" + signal.replace("_", "-")


DOMAIN_DEFAULTS: dict[str, str] = {
    **{
        signal_variable(name): colour
        for name, colour in zip(SIGNAL_NAMES, _SIGNAL_DEFAULTS, strict=True)
    },
    **{category_variable(index): colour for index, colour in enumerate(_CATEGORY_DEFAULTS)},
    "penalty-supersession": "#e0803a",
    "penalty-conflict": "#e05561",
    "conflict": "#e05561",
    "superseded": "#8a8f98",
    "rank-up": "#5fae5a",
    "rank-down": "#e05561",
    "rank-new": "#4e9be6",
    "graph-edge": "#7f9c3a",
    "graph-edge-expired": "#8a8f98",
    "score-bar": "#4e9be6",
    "diff-added": "#5fae5a",
    "diff-removed": "#e05561",
}


def ramp(variables: Mapping[str, str], start: str, end: str, shares: Sequence[float]) -> list[str]:
    """Hex colours from theme variable `start` towards `end`, one per share (0 = start):
    a frequency or intensity scale that follows the theme, dark or light."""
    low, high = Color.parse(variables[start]), Color.parse(variables[end])
    return [low.blend(high, share).hex for share in shares]
