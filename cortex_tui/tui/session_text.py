"""The turn archive as styled text for the Sessions pane: a session in the list, a
session's heading, a message as it was said, a search hit, and what making a memory of a
sentence did.

Dates are the archive's own (UTC, as `cortex-tui sessions` prints them), never an age
against a clock. What was said enters as plain `Content`, never as markup.
"""

from __future__ import annotations

from datetime import date, datetime

from textual.content import Content

from cortex_tui.models import ArchivedMessage, ArchivedSession, Quote, WriteAction, WriteResult
from cortex_tui.tui.formatting import one_line

SPEAKERS = {"user": "the user", "assistant": "the assistant"}
SPEAKER_STYLES = {"user": "bold $accent", "assistant": "bold $primary"}
NO_PROJECT = "no project"


def speaker(who: str | None) -> Content:
    """Who said it: the user, the assistant (or someone, for a text with no label)."""
    return Content.styled(SPEAKERS.get(who or "", "someone"), SPEAKER_STYLES.get(who or "", "bold"))


def plural(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def day_label(day: date) -> Content:
    """A day's heading in the list of sessions (each under the day it last spoke)."""
    return Content.styled(f"{day:%a %Y-%m-%d}", "bold $text-muted")


def _span(first: datetime, last: datetime) -> str:
    """When a session spoke: `14:02–15:10` in one day, dates as well across days."""
    if first.date() == last.date():
        start, end = f"{first:%H:%M}", f"{last:%H:%M}"
        return start if start == end else f"{start}–{end}"
    return f"{first:%m-%d %H:%M} – {last:%m-%d %H:%M}"


def session_label(session: ArchivedSession, width: int) -> Content:
    """A session in the list: its project and when it spoke, then its size and id."""
    project = (
        Content.styled(session.project, "bold")
        if session.project
        else Content.styled(NO_PROJECT, "bold $text-muted")
    )
    size = f"{plural(session.turns, 'turn')} · "
    return Content.assemble(
        project,
        (f"  {_span(session.first_said, session.last_said)}", "$text-muted"),
        "\n",
        (size + one_line(session.session_id, max(width - len(size), 8)), "$text-muted"),
    )


def session_heading(session_id: str, messages: list[ArchivedMessage]) -> Content:
    """Above a session's messages: which session, where, when, how long."""
    if not messages:
        return Content.styled(f"session {session_id}: nothing archived is left of it", "$warning")
    first, last = messages[0], messages[-1]
    turns = len({m.turn for m in messages if m.turn is not None})
    when = f"{first.said_at:%Y-%m-%d} {_span(first.said_at, last.said_at)}"
    if first.said_at.date() != last.said_at.date():
        when = f"{first.said_at:%Y-%m-%d %H:%M} – {last.said_at:%Y-%m-%d %H:%M}"
    return Content.assemble(
        ("session ", "$text-muted"),
        (session_id, "bold"),
        (f" · {first.project or NO_PROJECT} · {first.source}", "$text-muted"),
        "\n",
        (f"{when} · {plural(turns, 'turn')}, {plural(len(messages), 'message')}", "$text-muted"),
    )


def message_prompt(message: ArchivedMessage) -> Content:
    """A message as it was said: its turn, who, when, then its whole text (wrapped)."""
    turn = f"turn {message.turn}" if message.turn is not None else "no turn"
    return Content.assemble(
        (f"{turn} · ", "$text-muted"),
        speaker(message.speaker),
        (f" · {message.said_at:%Y-%m-%d %H:%M}", "$text-muted"),
        "\n",
        Content(message.text),
    )


def hit_prompt(quote: Quote) -> Content:
    """A search hit: when, which session, which project, who, then the sentences quoted."""
    session = quote.session_id[:8] if quote.session_id else "no session"
    return Content.assemble(
        (f"{quote.said_at:%Y-%m-%d} · ", "$text-muted"),
        (session, "bold"),
        (f" · {quote.project or NO_PROJECT} · ", "$text-muted"),
        speaker(quote.speaker),
        (f" · relevance {quote.gate.relevance:.2f}", "$text-muted"),
        "\n",
        Content(f"“{quote.text}”"),
    )


def hits_heading(query: str, found: int, project: str | None) -> Content:
    where = f" in {project} (and no project)" if project else ""
    if not found:
        return Content.assemble(
            (f"Nothing archived{where} comes near ", "$text-muted"),
            Content(f"“{query}”"),
            (". r goes back to the session.", "$text-muted"),
        )
    return Content.assemble(
        (f"{plural(found, 'message')}{where} nearest ", "$text-muted"),
        Content(f"“{query}”"),
        (", best first · enter opens one in its session · r goes back", "$text-muted"),
    )


def empty_text(project: str | None) -> Content:
    """What the pane says when the archive (or the project picked) has no session."""
    if project:
        return Content.assemble(
            "No archived session of ",
            (project, "bold"),
            (" · p goes on to the next project, and back to all of them.", "$text-muted"),
        )
    return Content.assemble(
        ("Nothing is archived yet.", "bold"),
        "\n\nEvery captured turn is kept here as it was said (after the privacy step): the "
        "hooks capture each turn of an agent's session (",
        ("cortex-tui hook install", "bold"),
        "), and ",
        ("cortex-tui sync", "bold"),
        " takes in agents' transcripts.\n\nIf turns are captured and none shows up here, "
        "the archive is off: ",
        ("archive.enabled", "bold"),
        " in config.toml.",
    )


def made_summary(result: WriteResult) -> str:
    """What making a memory of a sentence did, naming the memory that now holds it."""
    memory, related = result.memory, result.related
    if result.action in (WriteAction.DUPLICATE, WriteAction.REINFORCED):
        return f"Already kept as {memory.short_id}: {result.action.value}"
    if result.action is WriteAction.SUPERSEDED and related is not None:
        return f"Remembered as {memory.short_id}, superseding {related.short_id}"
    if result.action is WriteAction.CONFLICT and related is not None:
        return (
            f"Remembered as {memory.short_id}; it conflicts with {related.short_id} "
            "(the Conflicts pane)"
        )
    return f"Remembered as {memory.short_id}"
