"""Every key the TUI binds is in the TUI page's table for its pane (or "Everywhere"),
so a key added, moved or removed in code shows up as a failing test, not a stale page."""

from __future__ import annotations

import re

import pytest
from textual.binding import Binding

from cortex_tui.tui.app import CortexApp
from cortex_tui.tui.help import bindings_of
from cortex_tui.tui.registry import PANES, PaneEntry
from tests.docs.markdown_files import DOCS, prose

SHOWN = {"slash": "/", "question_mark": "?"}
"""How the page writes a key Textual names by word."""


def section(title: str) -> str:
    page = prose(DOCS / "tui.md")
    start = page.index(f"\n## {title}\n")
    end = page.find("\n## ", start + 1)
    return page[start : end if end != -1 else None]


def documented_keys(title: str) -> set[str]:
    rows = [line for line in section(title).split("\n") if line.startswith("| ")]
    return {key for row in rows for key in re.findall(r"`([^`]+)`", row.split(" | ")[0])}


def keys_of(bindings: list[Binding]) -> set[str]:
    return {SHOWN.get(key, key) for binding in bindings for key in binding.key.split(",")}


@pytest.mark.parametrize("pane", PANES, ids=lambda pane: pane.pane_id)
def test_each_pane_key_is_in_its_table(pane: PaneEntry) -> None:
    bound = keys_of(bindings_of(pane.load().BINDINGS))
    assert bound - documented_keys(pane.title) == set()


def test_the_keys_that_work_everywhere_are_in_their_table() -> None:
    app_bindings = [
        binding
        for binding in bindings_of(CortexApp.BINDINGS)
        if not (binding.id or "").startswith("app.pane.")
    ]
    documented = documented_keys("Everywhere")
    assert keys_of(app_bindings) - documented == set()
    assert {PANES[0].key, PANES[-1].key} <= documented  # the number keys, first and last
