"""The History pane: how a fact changed over time, and going back to an older version.

Nothing is overwritten in the store: an update, a conflict resolution or a restore ends
the old version (`valid_to`) and links it to its successor. This pane lists the chains
that changed (newest change first); a chain shows every version, newest first, with its
validity and a word-level diff against the version before it. Restoring an old version
makes its text current again as a *new* version, so the past stays as it was.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cortex_tui.engine.protocol import Engine
from cortex_tui.models import Memory, MemoryStatus, WriteAction
from cortex_tui.store.base import MemoryFilter
from cortex_tui.tui.formatting import ago, one_line
from cortex_tui.tui.panes.base import Answered, Written
from cortex_tui.tui.panes.side_by_side import SideBySidePane
from cortex_tui.tui.widgets.confirm import ConfirmModal
from cortex_tui.tui.widgets.decision import decision_line
from cortex_tui.tui.widgets.spaced_options import spaced
from cortex_tui.tui.widgets.word_diff import word_diff

SCAN_PAGE = 500
_SUBJECT_WIDTH = 34


def chain_heads(engine: Engine) -> list[Memory]:
    """The current versions that supersede something: one per changed chain, newest first.

    The store filters the heads (`has_predecessor`), `SCAN_PAGE` at a time, so a large
    store with few changed facts costs a few small pages, not a scan of everything.
    """
    heads: list[Memory] = []
    offset: str | None = None
    while True:
        page = engine.list_memories(
            MemoryFilter(has_predecessor=True), limit=SCAN_PAGE, offset=offset
        )
        heads.extend(page.memories)
        if page.next_offset is None:
            break
        offset = page.next_offset
    heads.sort(key=lambda m: (m.valid_from, m.id), reverse=True)
    return heads


@dataclass(frozen=True)
class ChainList:
    heads: list[Memory]
    now: datetime


@dataclass(frozen=True)
class Chain:
    """One version chain, oldest first as the engine returns it."""

    versions: list[Memory]
    now: datetime


class HeadsLoaded(Answered[ChainList]):
    """The facts that changed, each by its newest version."""


class ChainLoaded(Answered[Chain]):
    """One fact's version chain."""


class Restored(Answered[Memory]):
    """An old version brought back, as a new current version."""


def when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M")


def head_prompt(head: Memory, now: datetime) -> Content:
    return Content.assemble(
        (one_line(head.content, _SUBJECT_WIDTH), "bold"),
        "\n",
        (
            f"changed {ago(head.valid_from, now)} · {head.type.value} · {head.project or 'global'}",
            "$text-muted",
        ),
    )


def version_state(memory: Memory) -> Content:
    if memory.status is not MemoryStatus.ACTIVE:
        return Content.styled(memory.status.value, "$error")
    if memory.valid_to is None:
        return Content.styled("current", "bold $success")
    return Content.styled("superseded", "$superseded")


def version_prompt(number: int, memory: Memory, older: Memory | None) -> Content:
    """Validity and state, then provenance, then the text: diffed against the version
    before it, or plain for the first version."""
    until = when(memory.valid_to) if memory.valid_to else "now"
    header = Content.assemble(
        (f"v{number}  ", "bold"), f"{when(memory.valid_from)} → {until}  ", version_state(memory)
    )
    provenance = f"{memory.source} · confidence {memory.confidence:.2f} · {memory.short_id}"
    if older is None:
        return Content.assemble(
            header, "\n", (provenance, "$text-muted"), "\n", Content(memory.content)
        )
    diff = word_diff(older.content, memory.content)
    provenance += " · rewritten" if diff.rewritten else f" · +{diff.added} −{diff.removed} words"
    prompt = Content.assemble(header, "\n", (provenance, "$text-muted"), "\n", diff.content)
    why = memory.last_decision(WriteAction.SUPERSEDED)
    if why is None:
        return prompt
    return Content.assemble(prompt, "\n", decision_line(why))


class HistoryPane(SideBySidePane):
    """Changed chains on the left; the selected chain's versions on the right."""

    pane_id = "history"
    title = "History"
    key = "3"
    purpose = "History shows how a fact changed: each version it replaced, and why."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "restore", "Restore version", id="history.restore"),
        Binding("u", "undo", "Undo", id="history.undo"),
        Binding("f5", "reload", "Refresh", id="history.reload"),
    ]

    DEFAULT_CSS = """
    HistoryPane #history-chains { width: 40; }
    """

    lists = (("history-chains", "Changed facts"), ("history-versions", "Versions, newest first"))

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self._heads: list[Memory] = []
        self._versions: list[Memory] = []
        self._focus_id: str | None = None

    # --- data ---------------------------------------------------------------------------

    def reload(self) -> None:
        engine = self.engine
        self.call_engine(
            lambda: ChainList(chain_heads(engine), engine.now()), HeadsLoaded, name="history"
        )
        if self._focus_id is not None:
            self._fetch_chain(self._focus_id)

    def show_chain(self, memory_id: str) -> None:
        """Show the version chain containing `memory_id` (any version of it)."""
        self._focus_id = memory_id
        self._fetch_chain(memory_id)

    def _fetch_chain(self, memory_id: str) -> None:
        engine = self.engine
        self.call_engine(
            lambda: Chain(engine.history(memory_id), engine.now()),
            ChainLoaded,
            name="history.chain",
        )

    @on(HeadsLoaded)
    def _show_heads(self, message: HeadsLoaded) -> None:
        listing = message.result
        self._heads = listing.heads
        chains = self.query_one("#history-chains", OptionList)
        chains.set_options(
            spaced(Option(head_prompt(head, listing.now), id=head.id) for head in listing.heads)
        )
        count = len(listing.heads)
        self.query_one("#history-summary", Static).update(
            f"{count} fact{'s' * (count != 1)} changed over time"
            if count
            else "No memory has more than one version yet."
        )
        if self._focus_id is None and listing.heads:
            chains.highlighted = 0
        else:
            self._highlight_shown_chain()

    @on(ChainLoaded)
    def _show_chain(self, message: ChainLoaded) -> None:
        chain = message.result
        self._versions = chain.versions
        versions = self.query_one("#history-versions", OptionList)
        versions.set_options(
            spaced(
                Option(version_prompt(number, memory, older), id=memory.id)
                for number, memory, older in _newest_first(chain.versions)
            )
        )
        versions.highlighted = 0 if chain.versions else None
        if chain.versions:
            versions.border_subtitle = f"{len(chain.versions)} versions"
        self._highlight_shown_chain()

    def _highlight_shown_chain(self) -> None:
        """Point the chain list at the chain on the right, when it is one of the listed."""
        shown = {m.id for m in self._versions}
        chains = self.query_one("#history-chains", OptionList)
        for head in self._heads:
            if head.id in shown:
                index = chains.get_option_index(head.id)
                if chains.highlighted != index:
                    chains.highlighted = index
                return

    @on(OptionList.OptionHighlighted, "#history-chains")
    def _chain_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        head_id = event.option.id
        if head_id is None or head_id in {m.id for m in self._versions}:
            return
        self.show_chain(head_id)

    @on(OptionList.OptionSelected, "#history-chains")
    def _chain_selected(self) -> None:
        self.query_one("#history-versions", OptionList).focus()

    @property
    def selected_version(self) -> Memory | None:
        option = self.query_one("#history-versions", OptionList).highlighted_option
        if option is None:
            return None
        return next((m for m in self._versions if m.id == option.id), None)

    # --- actions ------------------------------------------------------------------------

    def action_restore(self) -> None:
        """Make the highlighted old version current again, as a new version."""
        old = self.selected_version
        current = next((m for m in reversed(self._versions) if m.is_current), None)
        if old is None:
            self.notify("Pick a version to restore first.", severity="warning")
            return
        if old.is_current:
            self.notify("That is the current version already.", severity="warning")
            return
        engine = self.engine
        body = Content("\n").join(
            [
                Content.styled("Make this text current again (as a new version):", "bold"),
                Content.assemble("  ", Content(old.content)),
                Content.styled("It supersedes the current version:", "bold"),
                Content.assemble(
                    "  ", (current.content if current else "(none is current)", "$superseded")
                ),
            ]
        )
        self.call_engine_if_confirmed(
            ConfirmModal("Restore this version?", body, confirm="Restore"),
            lambda: engine.curation.restore(old.id),
            Restored,
            name="history.restore",
        )

    @on(Restored)
    def _restored(self, message: Restored) -> None:
        self._focus_id = message.result.id
        self.post_message(Written(f"Restored as {message.result.short_id}"))

    def action_undo(self) -> None:
        """Undo the last curation action (a restore, or any other)."""
        self.undo_last()

    def action_reload(self) -> None:
        self.reload()


def _newest_first(versions: list[Memory]) -> Iterator[tuple[int, Memory, Memory | None]]:
    """Each version, newest first, with its number (1 is the first) and the one it
    replaced, which its word diff is against."""
    for number in range(len(versions), 0, -1):
        yield number, versions[number - 1], versions[number - 2] if number > 1 else None
