"""Editing the eight prior weights: one numeric input per prior, and save-as-profile.

The editor posts `WeightsEdited` whenever all eight inputs form valid `RecallWeights`, so
the Recall pane re-ranks while the user types; `SaveProfile` asks the pane to persist the
weights under a name (the pane does the engine call in a worker).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.validation import Number
from textual.widgets import Button, Input, Label, Static

from cortex_tui.config import MAX_PRIOR_WEIGHT, RecallWeights
from cortex_tui.signals import PRIOR_NAMES
from cortex_tui.tui.colours import signal_variable
from cortex_tui.tui.score_text import signal_label


@dataclass
class WeightsEdited(Message):
    """The weights as edited, to rank with (not saved)."""

    weights: RecallWeights


@dataclass
class SaveProfile(Message):
    """The edited weights, to save as a named profile."""

    name: str
    weights: RecallWeights


def _input_id(signal: str) -> str:
    return f"weight-{signal.replace('_', '-')}"


class WeightEditor(VerticalScroll):
    """Numeric inputs for the weights, and the most the priors together could lift a score."""

    DEFAULT_CSS = """
    WeightEditor { padding: 0 1; }
    WeightEditor .weight-row { height: 1; }
    WeightEditor .weight-row Label { width: 18; }
    WeightEditor .weight-row Input { width: 10; }
    WeightEditor #weights-sum { margin: 1 0; height: auto; }
    WeightEditor #weights-save-row { height: 1; }
    WeightEditor #weights-name { width: 18; }
    WeightEditor Button { margin-left: 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.profile = "default"

    def compose(self) -> ComposeResult:
        yield Static(
            f"Prior weights (0–{MAX_PRIOR_WEIGHT:g}): a prior lifts a score by at most its "
            "weight × relevance. Edit and recall re-ranks live.",
            classes="weights-hint",
        )
        for name in PRIOR_NAMES:
            with Horizontal(classes="weight-row"):
                yield Label(Content.styled(signal_label(name), f"${signal_variable(name)}"))
                yield Input(
                    id=_input_id(name),
                    type="number",
                    compact=True,
                    validators=[Number(minimum=0.0, maximum=MAX_PRIOR_WEIGHT)],
                    valid_empty=False,
                )
        yield Static(id="weights-sum")
        with Horizontal(id="weights-save-row"):
            yield Input(placeholder="profile name", id="weights-name", compact=True)
            yield Button("Save profile", id="weights-save", compact=True)

    def load(self, profile: str, weights: RecallWeights) -> None:
        """Show `weights` (from the picked profile) without emitting an edit."""
        self.profile = profile
        for name, value in weights.model_dump().items():
            field = self.query_one(f"#{_input_id(name)}", Input)
            with field.prevent(Input.Changed):
                field.value = f"{value:g}"
        self.query_one("#weights-name", Input).value = profile
        self._show_sum(weights)

    def current(self) -> RecallWeights | None:
        """The weights the inputs describe, or None while one of them is invalid."""
        values: dict[str, float] = {}
        for name in PRIOR_NAMES:
            field = self.query_one(f"#{_input_id(name)}", Input)
            if not field.is_valid:
                return None
            values[name] = float(field.value)
        try:
            return RecallWeights(**values)
        except ValueError:
            return None

    @on(Input.Changed, ".weight-row Input")
    def _edited(self, event: Input.Changed) -> None:
        event.stop()
        weights = self.current()
        if weights is None:
            self.query_one("#weights-sum", Static).update("fix the highlighted weight")
            return
        self._show_sum(weights)
        self.post_message(WeightsEdited(weights))

    @on(Button.Pressed, "#weights-save")
    @on(Input.Submitted, "#weights-name")
    def _save(self, event: Message) -> None:
        event.stop()
        weights = self.current()
        name = self.query_one("#weights-name", Input).value.strip()
        if weights is None or not name:
            self.notify("give valid weights and a profile name", severity="warning")
            return
        self.post_message(SaveProfile(name, weights))

    def _show_sum(self, weights: RecallWeights) -> None:
        most = math.prod(1.0 + weight for weight in weights.model_dump().values())
        self.query_one("#weights-sum", Static).update(
            f"priors lift a score by at most ×{most:.3f} (profile {self.profile})"
        )
