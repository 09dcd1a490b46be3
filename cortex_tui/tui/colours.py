"""Domain colours as theme variables, so every theme (ours or Textual's) can colour them.

Widgets refer to them as `$signal-relevance`, `$penalty-conflict`, ... in CSS and in
Content markup; a theme file may override any of them under `[variables]`. The defaults
are mid-saturation colours that read on dark and light backgrounds alike.
"""

from __future__ import annotations

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


def signal_variable(signal: str) -> str:
    """The theme variable colouring one score signal, e.g. `signal-tag-affinity`."""
    return "signal-" + signal.replace("_", "-")


DOMAIN_DEFAULTS: dict[str, str] = {
    **{
        signal_variable(name): colour
        for name, colour in zip(SIGNAL_NAMES, _SIGNAL_DEFAULTS, strict=True)
    },
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
