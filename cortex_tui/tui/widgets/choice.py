"""Pick one of a few values: a memory type, a scope, the entity to merge into."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from cortex_tui.tui.widgets.dialog import Dialog


class ChoiceModal(Dialog[str | None]):
    """Dismisses with the id of the chosen option on enter, or None on escape.

    `choices` are (id, label) pairs; `current` is highlighted first, so enter on an
    unchanged value is a visible no-op rather than a surprise.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="choice.cancel"),
    ]

    DEFAULT_CSS = """
    ChoiceModal > .dialog-box { width: 60; max-height: 80%; }
    ChoiceModal OptionList { height: auto; max-height: 20; border: none; }
    """

    keys = "enter choose · esc cancel"

    def __init__(
        self, title: str, choices: list[tuple[str, Content | str]], *, current: str | None = None
    ) -> None:
        super().__init__(title)
        self._choices = choices
        self._current = current

    def compose_body(self) -> ComposeResult:
        yield OptionList(
            *(
                Option(label if isinstance(label, Content) else Content(label), id=key)
                for key, label in self._choices
            ),
            id="choice-list",
        )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        ids = [key for key, _ in self._choices]
        options.highlighted = ids.index(self._current) if self._current in ids else 0
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
