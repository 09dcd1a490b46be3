"""What every pane shares: the engine, engine calls off the UI thread, and navigation.

Panes never call the engine on the UI thread: `call_engine` runs the call in a thread
worker and posts its answer to the pane as a typed message (an `Answered` subclass each
pane names, handled with `@on`; `Written` for a curation step done), or a notification
with the reason when the engine refuses (a `CortexError` carries a one-line, user-facing
fix). A test observes the answers with `run_test(message_hook=...)`. Panes talk to each
other only through the messages below, which the app routes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

from textual import on
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input
from textual.worker import Worker, get_current_worker

from cortex_tui.engine.deferred import DeferredEngine
from cortex_tui.errors import CortexError, StoreDamagedError

if TYPE_CHECKING:
    from cortex_tui.engine.protocol import Engine
    from cortex_tui.tui.widgets.confirm import ConfirmModal

T = TypeVar("T")
W = TypeVar("W", bound=Widget)


def titled(widget: W, title: str) -> W:
    """`widget` with its border title set as it is composed. Set in `on_mount` by
    looking the child up instead, it raced an app that exits while panes still mount
    (a failed demo opening): the child could already be gone."""
    widget.border_title = title
    return widget


@dataclass
class OpenHistory(Message):
    """Show the version chain of `memory_id` in the History pane."""

    memory_id: str


@dataclass
class ExplainMemory(Message):
    """Ask the Recall pane's "why not?" where `memory_id` ranks for the current query."""

    memory_id: str


@dataclass
class AskRecall(Message):
    """Run `query` in the Recall pane (a word picked in the word cloud, say)."""

    query: str


class StoreChanged(Message):
    """Something was written (a resolve, an edit, an undo): panes showing data reload."""


@dataclass
class Answered(Message, Generic[T], bubble=False):
    """What an engine call answered, posted to the pane that asked; each pane names its
    kinds of answer as subclasses (`RecallDone`, `ConflictsLoaded`, ...)."""

    result: T


@dataclass
class Written(Message, bubble=False):
    """A curation step a pane asked for is done; `summary` says what changed. The pane
    says so and every pane showing data reloads (`StoreChanged`)."""

    summary: str


class Pane(Vertical):
    """One mode of the app. Subclasses set `pane_id`, `title` and `key` (a number key),
    and `purpose`: what the pane shows once there is memory (the first-run guide that
    stands in for it on an empty store says so)."""

    pane_id: ClassVar[str]
    title: ClassVar[str]
    key: ClassVar[str]
    purpose: ClassVar[str]
    useful_when_empty: ClassVar[bool] = False
    """True for a pane with something to say on an empty store (Health): no guide."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(id=self.pane_id, classes="pane")
        self.engine = engine
        self.stable = False
        """True in screenshots and snapshot tests: hide what differs from run to run."""

    def focus_first(self) -> None:
        """Focus where this pane's keys work; never a text box, where the number keys
        that switch panes would be typed instead."""
        focusable = next(
            (w for w in self.query("*") if w.focusable and not isinstance(w, Input)), None
        )
        if focusable is not None:
            focusable.focus()

    def reload(self) -> None:
        """Fetch this pane's data again; called when shown and after `StoreChanged`."""

    def call_engine(
        self,
        call: Callable[[], T],
        answer: Callable[[T], Message],
        *,
        name: str,
        exclusive: bool = True,
    ) -> Worker[None]:
        """Run `call` in a thread worker; `answer(result)`, a message, is then posted to
        this pane.

        `exclusive` cancels an older call of the same `name` (a stale recall must not
        overwrite a newer one). A `CortexError` becomes an error notification; anything
        else is a bug and is also shown, with its type, instead of killing the app. A
        damaged store's notice stays up (ten minutes) with the way out.
        """

        def job() -> None:
            try:
                result = call()
            except Exception as exc:
                # Cancelled: a newer call replaced this one, or the app is closing (an
                # engine still opening gives up then): nobody to tell.
                if not get_current_worker().is_cancelled:
                    self.app.call_from_thread(self._report, exc, name)
                return
            if not get_current_worker().is_cancelled:
                self.app.call_from_thread(lambda: self.post_message(answer(result)))

        return self.run_worker(job, name=name, group=name, thread=True, exclusive=exclusive)

    def call_engine_if_confirmed(
        self,
        question: ConfirmModal,
        call: Callable[[], T],
        answer: Callable[[T], Message],
        *,
        name: str,
    ) -> None:
        """`call_engine` once the person says yes to `question`, which shows what the
        step will change: curation changes what every agent recalls from its next turn."""

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.call_engine(call, answer, name=name)

        self.app.push_screen(question, confirmed)

    def undo_last(self) -> None:
        """Undo the last curation step, whichever pane took it, and say what it was."""
        from cortex_tui.tui.formatting import undone_summary  # behind the first frame

        engine = self.engine
        self.call_engine(
            lambda: engine.curation.undo(1),
            lambda undone: Written(undone_summary(undone)),
            name=f"{self.pane_id}.undo",
        )

    def forget_after_asking(self, memory_id: str, text: str) -> None:
        """Mark a memory deleted once the person confirms (recall stops serving it; undo
        brings it back; purge removes it for good)."""
        from cortex_tui.tui.widgets.confirm import ConfirmModal  # behind the first frame

        engine = self.engine
        body = Content.assemble(
            ("Forget this memory? Recall stops serving it; undo brings it back.", "bold"),
            "\n  ",
            Content(text),
        )
        self.call_engine_if_confirmed(
            ConfirmModal("Forget?", body, confirm="Forget"),
            lambda: engine.forget(memory_id),
            lambda m: Written(f"Forgot {m.short_id}"),
            name=f"{self.pane_id}.forget",
        )

    @on(Written)
    def _written(self, message: Written) -> None:
        self.notify(message.summary, title=self.title)
        self.post_message(StoreChanged())

    def _report(self, exc: Exception, name: str) -> None:
        if isinstance(self.engine, DeferredEngine) and self.engine.failure() is exc:
            return  # why the engine could not be opened covers every pane already
        if isinstance(exc, StoreDamagedError):  # stays up: every pane is affected
            self.notify(str(exc), severity="error", title="store damaged", timeout=600)
        elif isinstance(exc, CortexError):
            self.notify(str(exc), severity="error", title=name)
        else:
            self.notify(f"{type(exc).__name__}: {exc}", severity="error", title=name)
