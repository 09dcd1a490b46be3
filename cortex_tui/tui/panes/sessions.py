"""The Sessions pane: every captured turn as it was said, and a sentence of it kept.

The turn archive (`engine.archive`, `cortex-tui sessions`) keeps each captured turn's
messages, the person's prompt and the agent's answer, after the privacy step. Its
sessions are listed on the left, the most recent first, under the day each last spoke;
the chosen session's messages fill the right in the order they were said. A search
(`/`) lists the archived messages nearest a query on the right instead; enter on one
opens its session at that message. `m` makes a memory of the highlighted message (or
of a hit's sentences): an edit box holds its text, to trim to what is worth keeping; a
write that fails opens it again with the text and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from cortex_tui.engine.protocol import Engine
from cortex_tui.errors import CortexError
from cortex_tui.models import ArchivedMessage, ArchivedSession, MemoryDraft, Quote, WriteResult
from cortex_tui.tui.panes.base import Answered, Pane, Written, titled
from cortex_tui.tui.session_text import (
    day_label,
    empty_text,
    hit_prompt,
    hits_heading,
    made_summary,
    message_prompt,
    plural,
    session_heading,
    session_label,
)
from cortex_tui.tui.widgets.remember_text import RememberTextModal
from cortex_tui.tui.widgets.spaced_options import spaced

SESSIONS_SHOWN = 500
"""The most recent sessions the list holds (`cortex-tui sessions --limit` reaches further)."""
HITS = 30
TUI_SOURCE = "tui"
"""A memory's `source` when it was made here from something said."""
_LABEL_WIDTH = 28
_SESSION = "s:"
_DAY = "d:"
_HIT = "h:"


@dataclass(frozen=True)
class SessionList:
    """The sessions of the project asked for (None: all), and every project the archive's
    sessions name, for `p` to go through."""

    sessions: list[ArchivedSession]
    projects: list[str]
    project: str | None


@dataclass(frozen=True)
class Conversation:
    """One session's messages in order; `focus` the one to highlight (a hit opened)."""

    session_id: str
    messages: list[ArchivedMessage]
    focus: str | None


@dataclass(frozen=True)
class Hits:
    query: str
    project: str | None
    quotes: list[Quote]


@dataclass(frozen=True)
class Said:
    """What a memory is made from: an archived message, or a hit's sentences of one."""

    message_id: str
    text: str
    project: str | None

    @classmethod
    def of_message(cls, message: ArchivedMessage) -> Said:
        return cls(message.id, message.text, message.project)

    @classmethod
    def of_quote(cls, quote: Quote) -> Said:
        return cls(quote.id, quote.text, quote.project)

    def draft(self, text: str) -> MemoryDraft:
        """The memory, in the session's project, tied to the message it was said in
        (`said_in`: `cortex-tui show` prints it). Not to the session's turns: a
        captured memory's turn places it among that session's memories, which a
        sentence picked later has no place in."""
        return MemoryDraft(
            content=text,
            project=self.project,
            said_in=[self.message_id],
            source=TUI_SOURCE,
        )


@dataclass(frozen=True)
class Made:
    """A write from the edit box: its result, or why it failed and the text it had."""

    said: Said
    text: str
    result: WriteResult | None
    problem: str = ""


class SessionsLoaded(Answered[SessionList]):
    """The archive's sessions, the most recent first."""


class ConversationLoaded(Answered[Conversation]):
    """One session's messages."""


class HitsFound(Answered[Hits]):
    """The archived messages nearest a query."""


class MemoryMade(Answered[Made]):
    """A memory made of something said, or why it could not be."""


class SessionsPane(Pane):
    """Sessions on the left; the chosen session's messages, or a search's hits, on the
    right."""

    pane_id = "sessions"
    title = "Sessions"
    key = "S"
    purpose = "Sessions shows every captured turn as it was said, to search and keep from."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "remember", "Make a memory", id="sessions.remember"),
        Binding("slash", "search", "Search", id="sessions.search"),
        Binding("r", "toggle_hits", "Hits ⇄ session", id="sessions.hits"),
        Binding("p", "cycle_project", "Project", id="sessions.project"),
        Binding("f5", "reload", "Refresh", show=False, id="sessions.reload"),
    ]

    DEFAULT_CSS = """
    SessionsPane { padding: 0 1; }
    SessionsPane #sessions-query { height: 1; width: 1fr; }
    SessionsPane #sessions-summary { height: 1; color: $text-muted; }
    SessionsPane #sessions-body { height: 1fr; }
    /* A gutter kept for the scrollbar: the list measures its wrapped messages once, and a
       scrollbar appearing later would narrow them and cut a line of each. */
    SessionsPane OptionList {
        height: 1fr; border: round $panel-lighten-2; scrollbar-gutter: stable;
    }
    SessionsPane OptionList:focus { border: round $accent; }
    SessionsPane #sessions-list { width: 32; }
    SessionsPane #sessions-right { width: 1fr; height: 1fr; }
    SessionsPane #sessions-head { height: auto; max-height: 6; padding: 0 1; }
    SessionsPane.-empty #sessions-said { display: none; }
    SessionsPane.-empty #sessions-head { height: 1fr; max-height: 100%; padding: 1 2; }
    """

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.project: str | None = None
        self.showing: Literal["session", "hits"] = "session"
        self._projects: list[str] = []
        self._sessions: dict[str, ArchivedSession] = {}
        self._wanted: str | None = None
        """The session asked for last: an older answer is dropped."""
        self._conversation: Conversation | None = None
        self._message: str | None = None
        """The message highlighted in the session shown (kept while the hits are shown)."""
        self._hits: Hits | None = None

    def compose(self) -> ComposeResult:
        yield Input(
            placeholder="/ search what was said (enter; empty: back to the session)",
            id="sessions-query",
            compact=True,
        )
        yield Static(id="sessions-summary")
        with Horizontal(id="sessions-body"):
            yield titled(OptionList(id="sessions-list"), "Sessions, newest first")
            with Vertical(id="sessions-right"):
                yield Static(id="sessions-head")
                yield titled(OptionList(id="sessions-said"), "Said, in order")

    # --- data ---------------------------------------------------------------------------

    def reload(self) -> None:
        engine, project = self.engine, self.project

        def call() -> SessionList:
            shown = engine.archive.sessions(project, limit=SESSIONS_SHOWN)
            every = shown if project is None else engine.archive.sessions(limit=SESSIONS_SHOWN)
            return SessionList(shown, sorted({s.project for s in every if s.project}), project)

        self.call_engine(call, SessionsLoaded, name="sessions")

    def action_reload(self) -> None:
        self.reload()

    @on(SessionsLoaded)
    def _loaded(self, message: SessionsLoaded) -> None:
        listing = message.result
        if listing.project != self.project:
            return  # `p` was pressed since: its own answer follows
        self._projects = listing.projects
        self._sessions = {s.session_id: s for s in listing.sessions}
        sessions = self.query_one("#sessions-list", OptionList)
        with self.prevent(OptionList.OptionHighlighted):
            sessions.set_options(_by_day(listing.sessions))
        self._show_summary(len(listing.sessions))
        self.set_class(not listing.sessions, "-empty")
        if not listing.sessions:
            self._wanted, self._conversation = None, None
            self.query_one("#sessions-said", OptionList).clear_options()
            self.query_one("#sessions-head", Static).update(empty_text(listing.project))
            return
        shown = self._conversation.session_id if self._conversation else None
        chosen = shown if shown in self._sessions else listing.sessions[0].session_id
        self._highlight_session(chosen)
        self._open(chosen, self._message if chosen == shown else None)

    def _show_summary(self, count: int) -> None:
        self.query_one("#sessions-summary", Static).update(
            f"{plural(count, 'session')} · project: {self.project or 'all'} (p) · "
            "m makes a memory · / searches"
        )

    def _highlight_session(self, session_id: str) -> None:
        """Point the list at `session_id` when it is listed (a hit may open one that is
        not: another project's, or older than the list reaches)."""
        sessions = self.query_one("#sessions-list", OptionList)
        if session_id not in self._sessions:
            return
        index = sessions.get_option_index(_SESSION + session_id)
        if sessions.highlighted != index:
            with self.prevent(OptionList.OptionHighlighted):
                sessions.highlighted = index

    def _open(self, session_id: str, focus: str | None = None) -> None:
        """Fetch a session's messages; `focus` the message to highlight."""
        self._wanted = session_id
        engine = self.engine
        self.call_engine(
            lambda: Conversation(session_id, engine.archive.session(session_id), focus),
            ConversationLoaded,
            name="sessions.said",
        )

    @on(ConversationLoaded)
    def _conversation_loaded(self, message: ConversationLoaded) -> None:
        conversation = message.result
        if conversation.session_id != self._wanted:
            return
        self._conversation = conversation
        self._message = conversation.focus
        if self.showing == "session":
            self._show_session()

    def _show_session(self) -> None:
        said = self.query_one("#sessions-said", OptionList)
        conversation = self._conversation
        self.showing = "session"
        said.border_title = "Said, in order"
        if conversation is None:
            said.clear_options()
            said.border_subtitle = ""
            self.query_one("#sessions-head", Static).update("")
            return
        messages = conversation.messages
        self.query_one("#sessions-head", Static).update(
            session_heading(conversation.session_id, messages)
        )
        said.set_options(spaced(Option(message_prompt(m), id=m.id) for m in messages))
        said.border_subtitle = plural(len(messages), "message")
        if messages:
            focus = self._message
            ids = [m.id for m in messages]
            said.highlighted = said.get_option_index(focus) if focus in ids else 0

    @on(OptionList.OptionHighlighted, "#sessions-said")
    def _message_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.showing == "session":
            self._message = event.option.id

    @on(OptionList.OptionHighlighted, "#sessions-list")
    def _session_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        option_id = event.option.id or ""
        if not option_id.startswith(_SESSION):
            return
        session_id = option_id.removeprefix(_SESSION)
        if session_id != self._wanted:
            self.showing = "session"
            self._open(session_id)

    @on(OptionList.OptionSelected, "#sessions-list")
    def _session_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on a session: to its messages (back from the hits, if they were shown)."""
        if self.showing == "hits":
            self._show_session()
        self.query_one("#sessions-said", OptionList).focus()

    # --- search -------------------------------------------------------------------------

    def action_search(self) -> None:
        self.query_one("#sessions-query", Input).focus()

    @on(Input.Submitted, "#sessions-query")
    def _submitted(self, event: Input.Submitted) -> None:
        query = event.value.strip()
        if not query:
            self._hits = None
            self._show_session()
            self.query_one("#sessions-list", OptionList).focus()
            return
        engine, project = self.engine, self.project
        self.call_engine(
            lambda: Hits(query, project, engine.archive.search(query, project, limit=HITS)),
            HitsFound,
            name="sessions.search",
        )

    @on(HitsFound)
    def _hits_found(self, message: HitsFound) -> None:
        self._hits = message.result
        self._show_hits()
        self.query_one("#sessions-said", OptionList).focus()

    def _show_hits(self) -> None:
        hits = self._hits
        if hits is None:
            return
        self.showing = "hits"
        said = self.query_one("#sessions-said", OptionList)
        said.border_title = "Said nearest the search, best first"
        said.border_subtitle = plural(len(hits.quotes), "hit")
        self.query_one("#sessions-head", Static).update(
            hits_heading(hits.query, len(hits.quotes), hits.project)
        )
        said.set_options(
            spaced(Option(hit_prompt(q), id=f"{_HIT}{n}") for n, q in enumerate(hits.quotes))
        )
        said.highlighted = 0 if hits.quotes else None

    @on(OptionList.OptionSelected, "#sessions-said")
    def _said_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on a hit: open its session at that message."""
        quote = self._quote(event.option.id)
        if quote is None:
            return
        if quote.session_id is None:
            self.notify("That was said outside any session: there is none to open.")
            return
        self.showing = "session"
        self._highlight_session(quote.session_id)
        self._open(quote.session_id, quote.id)

    def action_toggle_hits(self) -> None:
        """From the hits to the session shown, and back to the last search's hits."""
        if self.showing == "hits":
            self._show_session()
        elif self._hits is None:
            self.notify("No search yet: / types one.", severity="warning")
        else:
            self._show_hits()

    def action_cycle_project(self) -> None:
        """all → each project the archive names, in turn → all."""
        projects: list[str | None] = [None, *self._projects]
        position = projects.index(self.project) if self.project in projects else 0
        self.project = projects[(position + 1) % len(projects)]
        self.reload()

    # --- making a memory ----------------------------------------------------------------

    def _quote(self, option_id: str | None) -> Quote | None:
        if self.showing != "hits" or self._hits is None or not option_id:
            return None
        if not option_id.startswith(_HIT):
            return None
        return self._hits.quotes[int(option_id.removeprefix(_HIT))]

    def _highlighted_said_id(self) -> str | None:
        option = self.query_one("#sessions-said", OptionList).highlighted_option
        return option.id if option is not None else None

    def _said(self) -> Said | None:
        """The highlighted message (or hit), as what a memory would be made from."""
        option_id = self._highlighted_said_id()
        quote = self._quote(option_id)
        if quote is not None:
            return Said.of_quote(quote)
        conversation = self._conversation
        if self.showing != "session" or conversation is None:
            return None
        found = next((m for m in conversation.messages if m.id == option_id), None)
        return Said.of_message(found) if found is not None else None

    def action_remember(self) -> None:
        said = self._said()
        if said is None:
            self.notify("No message highlighted: pick one on the right.", severity="warning")
            return
        self._ask_to_remember(said, said.text)

    def _ask_to_remember(self, said: Said, text: str, problem: str = "") -> None:
        """The edit box, then the write; escape writes nothing."""
        engine = self.engine
        where = f"project {said.project}" if said.project else "no project"

        def answered(value: str | None) -> None:
            if value is None:
                return
            draft = said.draft(value)

            def call() -> Made:
                try:
                    return Made(said, value, engine.remember(draft))
                except CortexError as exc:
                    return Made(said, value, None, str(exc))
                except Exception as exc:  # a bug: shown, and the text kept all the same
                    return Made(said, value, None, f"{type(exc).__name__}: {exc}")

            self.call_engine(call, MemoryMade, name="sessions.remember")

        self.app.push_screen(
            RememberTextModal(
                "Make a memory",
                text,
                hint=f"Trim it to what is worth remembering; ctrl+s keeps it as a memory "
                f"({where}), escape keeps nothing.",
                problem=problem,
            ),
            answered,
        )

    @on(MemoryMade)
    def _made(self, message: MemoryMade) -> None:
        made = message.result
        if made.result is None:
            self._ask_to_remember(made.said, made.text, made.problem)
            return
        self.post_message(Written(made_summary(made.result)))


def _by_day(sessions: list[ArchivedSession]) -> list[Option | None]:
    """Each session under the day it last spoke (a heading that cannot be chosen), a
    rule between two sessions of one day and before each day but the first."""
    options: list[Option | None] = []
    day = None
    for session in sessions:
        if session.last_said.date() != day:
            day = session.last_said.date()
            if options:
                options.append(None)
            options.append(Option(day_label(day), id=f"{_DAY}{day}", disabled=True))
        else:
            options.append(None)
        options.append(
            Option(session_label(session, _LABEL_WIDTH), id=_SESSION + session.session_id)
        )
    return options
