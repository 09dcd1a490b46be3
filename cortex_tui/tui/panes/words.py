"""The Words pane: what the store talks about, as a word cloud.

The most frequent meaningful terms of the current memories (stop words and markup
dropped, entities and tags as whole phrases, counted once per memory), for the whole
store or one project (`p` cycles) and one type (`y` cycles). Enter on a term, or a
click, runs it as a query in the Recall pane.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.theme import Theme
from textual.widgets import Static

from cortex_tui.engine.protocol import Engine
from cortex_tui.models import MemoryType
from cortex_tui.overview.models import TermCount, WordCloud
from cortex_tui.tui.colours import ramp
from cortex_tui.tui.panes.base import Answered, AskRecall, Pane, titled
from cortex_tui.tui.widgets.word_cloud import WordCloudView, shown

TERMS = 120
ALL = None
KINDS = {"word": "a word", "entity": "an entity", "tag": "a tag"}


def status_content(cloud: WordCloud, project: str | None, type: MemoryType | None) -> Content:
    counted = (
        f"{cloud.counted:,} of {cloud.memories:,} memories counted (a fixed sample)"
        if cloud.counted < cloud.memories
        else f"{cloud.memories:,} memories"
    )
    return Content.assemble(
        ("Words of ", ""),
        (counted, "bold"),
        (f" · project: {project or 'all'} (p)", "$text-muted"),
        (f" · type: {type.value if type else 'all'} (y)", "$text-muted"),
    )


def term_content(term: TermCount | None, memories: int) -> Content:
    if term is None:
        return Content("")
    share = f"{term.count / memories:.0%} of them" if memories else ""
    return Content.assemble(
        (shown(term), "bold"),
        f"  {KINDS[term.kind]}, in {term.count:,} memories ({share})",
        ("  · enter: recall it", "$text-muted"),
    )


class WordsLoaded(Answered[WordCloud]):
    """The most frequent terms."""


class WordsPane(Pane):
    """The store's vocabulary at a glance; a term is one key away from a recall."""

    pane_id = "words"
    title = "Words"
    key = "8"
    purpose = "Words shows what your memories talk about most."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "cycle_project", "Project", id="words.project"),
        Binding("y", "cycle_type", "Type", id="words.type"),
    ]

    DEFAULT_CSS = """
    WordsPane #words-status, WordsPane #words-term { height: auto; padding: 0 1; }
    WordsPane WordCloudView { border: round $panel-lighten-2; }
    WordsPane WordCloudView:focus { border: round $accent; }
    """

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.project: str | None = ALL
        self.type: MemoryType | None = ALL
        self._cloud: WordCloud | None = None

    def compose(self) -> ComposeResult:
        yield Static("Counting words…", id="words-status")
        yield titled(WordCloudView(id="words-cloud"), "Most frequent first")
        yield Static(id="words-term")

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def reload(self) -> None:
        engine = self.engine
        project, type_ = self.project, self.type

        self.call_engine(
            lambda: engine.overview.word_cloud(project=project, type=type_, limit=TERMS),
            WordsLoaded,
            name="words",
        )

    @on(WordsLoaded)
    def _words_loaded(self, message: WordsLoaded) -> None:
        self.show(message.result)

    def show(self, cloud: WordCloud) -> None:
        self._cloud = cloud
        self.query_one("#words-status", Static).update(
            status_content(cloud, self.project, self.type)
        )
        palette = self.app.theme_variables
        styles = ramp(palette, "background", "foreground", (0.45, 0.8))
        styles += ramp(palette, "foreground", "accent", (0.6, 1.0))
        weights = ("", "", "bold ", "bold ")
        self.query_one(WordCloudView).show(
            cloud.terms,
            [f"{weight}{colour}" for weight, colour in zip(weights, styles, strict=True)],
        )

    def _theme_changed(self, theme: Theme) -> None:
        if self._cloud is not None:
            self.show(self._cloud)

    @on(WordCloudView.Moved)
    def _moved(self, event: WordCloudView.Moved) -> None:
        memories = self._cloud.counted if self._cloud else 0
        self.query_one("#words-term", Static).update(term_content(event.term, memories))

    @on(WordCloudView.Picked)
    def _picked(self, event: WordCloudView.Picked) -> None:
        self.post_message(AskRecall(event.term.term))

    def action_cycle_project(self) -> None:
        """all → each project in turn → all."""
        projects: list[str | None] = [ALL, *(self._cloud.projects if self._cloud else [])]
        position = projects.index(self.project) if self.project in projects else 0
        self.project = projects[(position + 1) % len(projects)]
        self.reload()

    def action_cycle_type(self) -> None:
        """all → rule → procedure → fact → episode → preference → all."""
        types: list[MemoryType | None] = [ALL, *MemoryType]
        self.type = types[(types.index(self.type) + 1) % len(types)]
        self.reload()
