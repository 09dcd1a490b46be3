"""The `?` screen: the keys of the pane in front of you, then the app-wide ones.

Keys are shown as they are bound now, after the user's `[tui.keymap]`, each with its
binding id so the user knows what to write in config.toml to move it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

from cortex_tui.tui.widgets.dialog import Dialog

HelpSection = tuple[str, list[Binding]]


def effective_keys(binding: Binding, keymap: Mapping[str, str]) -> str:
    """The key(s) that trigger `binding` once the keymap is applied."""
    if binding.id and binding.id in keymap:
        return keymap[binding.id]
    return binding.key


def bindings_of(declared: Iterable[BindingType]) -> list[Binding]:
    """Shown bindings only, in declaration order (hidden ones are editing internals)."""
    return [b for b in Binding.make_bindings(declared) if b.show or b.id]


def help_content(
    sections: list[HelpSection], keymap: Mapping[str, str], display: dict[str, str]
) -> Content:
    """One block per section: key, description, binding id."""
    blocks: list[Content] = []
    for title, bindings in sections:
        rows = [Content.styled(title, "bold $accent")]
        for binding in bindings:
            keys = effective_keys(binding, keymap)
            shown = ", ".join(display.get(key, key) for key in keys.split(","))
            rows.append(
                Content.assemble(
                    (f"  {shown:<14}", "bold"),
                    f"{binding.description or binding.action:<28}",
                    (binding.id or "", "$text-muted"),
                )
            )
        blocks.append(Content("\n").join(rows))
    return Content("\n\n").join(blocks)


class HelpScreen(Dialog[None]):
    """A modal listing keys; escape, `?` or q closes it, f1 goes on to the reference pages."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "dismiss", "Close", id="help.close"),
        Binding("f1", "app.docs", "Docs", id="help.docs"),
    ]

    DEFAULT_CSS = """
    HelpScreen > .dialog-box { width: 80; max-height: 90%; }
    """

    keys = "f1: the reference pages · remap in config.toml [tui.keymap]"
    scrolls = True

    def __init__(self, title: str, body: Content) -> None:
        super().__init__(title)
        self._body = body

    def compose_body(self) -> ComposeResult:
        yield Static(self._body, id="help-body")
