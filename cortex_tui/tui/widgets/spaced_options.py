"""Options that span several lines (a memory, a conflict group, a version) listed with a
rule between each two, so that where one ends and the next begins reads at a glance."""

from __future__ import annotations

from collections.abc import Iterable

from textual.widgets.option_list import Option


def spaced(options: Iterable[Option]) -> list[Option | None]:
    """`options` with a separator (None, to `OptionList`) between each two."""
    listed: list[Option | None] = []
    for option in options:
        if listed:
            listed.append(None)
        listed.append(option)
    return listed
