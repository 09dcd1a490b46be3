"""The Conflicts pane: memories that contradict each other, and a person's decision.

Capture opens a conflict group when a new statement contradicts a current memory with no
sign of which is newer. Here a person settles it: keep one member (the others are
superseded by it and marked resolved, so recall drops them for real), merge the members
into one text they write, or dismiss the group (not a conflict: both stay current and the
pair is never raised again). Every decision is confirmed first and can be undone, since
it changes what agents recall from the next turn on.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cortex_tui.curation.groups import ConflictGroup
from cortex_tui.engine.protocol import Engine
from cortex_tui.models import Memory, WriteAction
from cortex_tui.tui.formatting import age, one_line
from cortex_tui.tui.panes.base import Answered, OpenHistory, Written
from cortex_tui.tui.panes.side_by_side import SideBySidePane
from cortex_tui.tui.widgets.confirm import ConfirmModal
from cortex_tui.tui.widgets.decision import decision_line
from cortex_tui.tui.widgets.spaced_options import spaced
from cortex_tui.tui.widgets.text_edit import EditTextModal

_SUBJECT_WIDTH = 30


@dataclass(frozen=True)
class ConflictsView:
    """The groups awaiting resolution and the engine's "now" to age them against."""

    groups: list[ConflictGroup]
    now: datetime


class ConflictsLoaded(Answered[ConflictsView]):
    """The conflict groups waiting for a decision."""


def group_prompt(group: ConflictGroup, now: datetime) -> Content:
    """Two lines for the group list: what it is about, then how many and how old."""
    first = group.members[0]
    projects = sorted({m.project or "global" for m in group.members})
    return Content.assemble(
        one_line(first.content, _SUBJECT_WIDTH),
        "\n",
        (
            f"{len(group.members)} members · {age(first.created_at, now)} · {', '.join(projects)}",
            "$text-muted",
        ),
    )


def member_meta(memory: Memory, now: datetime) -> Content:
    """The facts a person weighs: confidence, age, where it came from, which project."""
    return Content.assemble(
        ("● ", "$conflict"),
        (memory.short_id, "bold"),
        f"  confidence {memory.confidence:.2f}",
        f" · {age(memory.created_at, now)} old",
        f" · {memory.source}",
        f" · {memory.project or 'global'}",
        f" · {memory.type.value}",
    )


def member_prompt(memory: Memory, now: datetime) -> Content:
    """The member's facts, its full text (plain `Content`: brackets stay intact), and why
    the write path put it in the group, when it did."""
    prompt = Content.assemble(member_meta(memory, now), "\n", Content(memory.content))
    why = memory.last_decision(WriteAction.CONFLICT)
    if why is None:
        return prompt
    return Content.assemble(prompt, "\n", decision_line(why))


def keep_body(kept: Memory, retired: list[Memory]) -> Content:
    """What keep-this will do, spelled out for the confirmation modal."""
    lines = [
        Content.styled("Keep (stays current, marked resolved):", "bold"),
        Content.assemble("  ", Content(kept.content)),
        Content.styled("Retire (superseded by it, dropped from recall):", "bold"),
        *(Content.assemble("  ", (m.content, "$superseded")) for m in retired),
    ]
    return Content("\n").join(lines)


class ConflictsPane(SideBySidePane):
    """Conflict groups on the left, the selected group's members on the right."""

    pane_id = "conflicts"
    title = "Conflicts"
    key = "2"
    purpose = "Conflicts gathers memories that contradict each other, for you to settle."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("k", "keep", "Keep this", id="conflicts.keep"),
        Binding("m", "merge", "Merge…", id="conflicts.merge"),
        Binding("d", "dismiss", "Dismiss", id="conflicts.dismiss"),
        Binding("u", "undo", "Undo", id="conflicts.undo"),
        Binding("h", "history", "History", id="conflicts.history"),
        Binding("r", "reload", "Refresh", id="conflicts.reload"),
    ]

    DEFAULT_CSS = """
    ConflictsPane #conflict-groups { width: 36; }
    """

    lists = (("conflict-groups", "Groups"), ("conflict-members", "Members"))

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self._groups: list[ConflictGroup] = []
        self._now: datetime | None = None
        self._selected_group: str | None = None

    # --- data ---------------------------------------------------------------------------

    def reload(self) -> None:
        engine = self.engine
        self.call_engine(
            lambda: ConflictsView(engine.curation.conflicts(), engine.now()),
            ConflictsLoaded,
            name="conflicts",
        )

    @on(ConflictsLoaded)
    def _show(self, message: ConflictsLoaded) -> None:
        """Render the groups, keeping the selected group (or its position) across reloads."""
        view = message.result
        previous = self._selected_group
        old_index = next((i for i, g in enumerate(self._groups) if g.id == previous), 0)
        self._groups, self._now = view.groups, view.now
        groups = self.query_one("#conflict-groups", OptionList)
        groups.set_options(
            spaced(Option(group_prompt(group, view.now), id=group.id) for group in view.groups)
        )
        count = len(view.groups)
        self.query_one("#conflicts-summary", Static).update(
            Content.assemble(
                (f"{count} group{'s' * (count != 1)}", "bold $conflict"), " awaiting resolution"
            )
            if count
            else Content("No conflicts await resolution.")
        )
        if not view.groups:
            self._selected_group = None
            self.query_one("#conflict-members", OptionList).clear_options()
            return
        ids = [g.id for g in view.groups]
        groups.highlighted = ids.index(previous) if previous in ids else min(old_index, count - 1)
        self._show_members()

    @on(OptionList.OptionHighlighted, "#conflict-groups")
    def _group_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id != self._selected_group:
            self._selected_group = event.option.id
            self._show_members()

    def _show_members(self) -> None:
        group = self.selected_group
        members = self.query_one("#conflict-members", OptionList)
        if group is None or self._now is None:
            members.clear_options()
            return
        self._selected_group = group.id
        now = self._now
        members.set_options(
            spaced(Option(member_prompt(memory, now), id=memory.id) for memory in group.members)
        )
        members.highlighted = 0

    @property
    def selected_group(self) -> ConflictGroup | None:
        return next((g for g in self._groups if g.id == self._selected_group), None)

    def _group_to_act_on(self) -> ConflictGroup | None:
        """The selected group, or None after saying there is none to merge or dismiss."""
        group = self.selected_group
        if group is None:
            self.notify("No conflict group selected.", severity="warning")
        return group

    @property
    def selected_member(self) -> Memory | None:
        group = self.selected_group
        option = self.query_one("#conflict-members", OptionList).highlighted_option
        if group is None or option is None:
            return None
        return next((m for m in group.members if m.id == option.id), None)

    # --- actions ------------------------------------------------------------------------

    def action_keep(self) -> None:
        """Keep the highlighted member; the others are retired in its favour."""
        group, kept = self.selected_group, self.selected_member
        if group is None or kept is None:
            self.notify("Pick a member to keep first.", severity="warning")
            return
        retired = [m for m in group.members if m.id != kept.id]
        engine = self.engine
        self.call_engine_if_confirmed(
            ConfirmModal("Keep this memory?", keep_body(kept, retired), confirm="Keep"),
            lambda: engine.curation.resolve(group.id, kept.id),
            lambda memory: Written(f"Kept {memory.short_id}; others retired"),
            name="conflicts.keep",
        )

    def action_merge(self) -> None:
        """Replace every member with one text the person writes (one new memory)."""
        group = self._group_to_act_on()
        if group is None:
            return
        engine = self.engine

        def edited(text: str | None) -> None:
            if text is None:
                return
            body = Content.assemble(
                (f"Replace {len(group.members)} memories with:", "bold"),
                "\n  ",
                Content(text),
            )
            self.call_engine_if_confirmed(
                ConfirmModal("Merge the group?", body, confirm="Merge"),
                lambda: engine.curation.merge(group.id, text),
                lambda memory: Written(f"Merged into {memory.short_id}"),
                name="conflicts.merge",
            )

        self.app.push_screen(
            EditTextModal(
                "Merge conflict",
                "\n".join(m.content for m in group.members),
                hint=f"Write the one statement that replaces these {len(group.members)} memories.",
            ),
            edited,
        )

    def action_dismiss(self) -> None:
        """Not a conflict: every member stays current and the group is closed."""
        group = self._group_to_act_on()
        if group is None:
            return
        engine = self.engine
        body = Content.assemble(
            ("Not a conflict: all of these stay current and are never raised again.", "bold"),
            *(Content.assemble("\n  ", Content(m.content)) for m in group.members),
        )
        self.call_engine_if_confirmed(
            ConfirmModal("Dismiss the group?", body, confirm="Dismiss"),
            lambda: engine.curation.dismiss(group.id),
            lambda _: Written("Dismissed; the members stay current"),
            name="conflicts.dismiss",
        )

    def action_undo(self) -> None:
        """Undo the last curation action (a keep, merge or dismiss, or any other)."""
        self.undo_last()

    def action_history(self) -> None:
        member = self.selected_member
        if member is None:
            self.notify("Pick a member first.", severity="warning")
            return
        self.post_message(OpenHistory(member.id))

    def action_reload(self) -> None:
        self.reload()
