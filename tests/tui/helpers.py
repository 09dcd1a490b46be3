"""Small helpers for driving the app in Pilot tests."""

from __future__ import annotations

from typing import TypeVar

from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from cortex_tui.tui.scenes import settle, submit
from cortex_tui.tui.widgets.confirm import ConfirmModal


async def ask(pilot: Pilot[None], query: str) -> None:
    """Type `query` into the Recall pane's box, submit, and wait for the ranking."""
    await submit(pilot, "#recall-query", query)


async def keep_second_member(pilot: Pilot[None]) -> None:
    """In the Conflicts pane: keep this group's second member, through the confirmation."""
    pilot.app.query_one("#conflict-members", OptionList).focus()
    await pilot.press("down", "k")
    assert isinstance(pilot.app.screen, ConfirmModal)
    await pilot.press("y")
    await settle(pilot)


def plain(pilot: Pilot[None], widget_id: str) -> str:
    """The text a Static shows, without styles."""
    return str(pilot.app.screen.query_one(widget_id, Static).visual)


M = TypeVar("M", bound=Message)


class Posted:
    """The messages an app run posts, each once (`run_test(message_hook=posted)`): the
    hook sees a message at every node it bubbles through."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def __call__(self, message: Message) -> None:
        if all(seen is not message for seen in self.messages):
            self.messages.append(message)

    def of(self, kind: type[M]) -> list[M]:
        return [m for m in self.messages if isinstance(m, kind)]
