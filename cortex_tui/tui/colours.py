"""Domain colours as theme variables, so every theme (ours or Textual's) can colour them.

Widgets refer to them as `$signal-relevance`, `$penalty-conflict`, ... in CSS and in
Content markup; a theme file may override any of them under `[variables]`. The defaults
are mid-saturation colours that read on dark and light backgrounds alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.color import Color

from cortex_tui.signals import SIGNAL_NAMES

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
    "#c98f5a",  # asker
)


_CATEGORY_SIGNALS = (
    "relevance",
    "type",
    "confidence",
    "reinforcement",
    "recency",
    "tag_affinity",
    "scope",
)
"""The signals whose hues the map's categories borrow (distinct in every theme), in the
order categories take them; the grey of superseded versions is "everything else"."""
CATEGORIES = len(_CATEGORY_SIGNALS) + 1
"""Distinct colours for the values of one field (types, projects) on the map."""


def category_variable(index: int) -> str:
    """The theme variable of the `index`-th category colour (wrapping round)."""
    return f"category-{index % CATEGORIES + 1}"


def signal_variable(signal: str) -> str:
    """The theme variable colouring one score signal, e.g. `signal-tag-affinity`."""
    return "signal-" + signal.replace("_", "-")


_SIGNAL_COLOURS = dict(zip(SIGNAL_NAMES, _SIGNAL_DEFAULTS, strict=True))
_SUPERSEDED = "#8a8f98"

DOMAIN_DEFAULTS: dict[str, str] = {
    **{signal_variable(name): colour for name, colour in _SIGNAL_COLOURS.items()},
    **{
        category_variable(index): colour
        for index, colour in enumerate(
            [*(_SIGNAL_COLOURS[name] for name in _CATEGORY_SIGNALS), _SUPERSEDED]
        )
    },
    "penalty-supersession": "#e0803a",
    "penalty-conflict": "#e05561",
    "conflict": "#e05561",
    "superseded": _SUPERSEDED,
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
