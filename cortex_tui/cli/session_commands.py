"""`cortex-tui sessions [show ID | search QUERY]`: the turn archive (`cortex_tui/archive/`),
every captured turn as it was said.

Without an action: the archived sessions, the most recent first. `show` prints one
session's messages in order; `search` the archived messages nearest a query, each by its
sentences nearest it, with how much each bears on the query (what a prompt's block
would need, `archive.min_relevance`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from cortex_tui.cli import render
from cortex_tui.cli.args import OneLineParser, Subparsers
from cortex_tui.cli.context import CommandContext
from cortex_tui.errors import InvalidInputError
from cortex_tui.models import ArchivedSession, Quote

MAX_LIMIT = 10_000


def register(sub: Subparsers, common: OneLineParser) -> None:
    p = sub.add_parser(
        "sessions",
        parents=[common],
        help="the turn archive: every captured turn as it was said; show one, search them",
        description="Every captured turn is also kept as it was said (after the privacy "
        "step): the person's prompt and the agent's answer. With no action, the sessions "
        "the archive holds, newest first.",
    )
    p.add_argument("--project", help="one project's sessions (or messages, for search)")
    p.add_argument("--limit", type=int, default=20, help="sessions or results shown (default 20)")
    actions = p.add_subparsers(dest="sessions_action", metavar="ACTION", parser_class=OneLineParser)
    shown = actions.add_parser(
        "show", parents=[common], help="one session's messages, in the order they were said"
    )
    shown.add_argument("session", help="a session's id, or the start of one")
    found = actions.add_parser(
        "search", parents=[common], help="the archived messages nearest a query"
    )
    found.add_argument("query")
    for action in (shown, found):
        action.add_argument("--project", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        action.add_argument("--limit", type=int, default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def cmd_sessions(ctx: CommandContext) -> int:
    a = ctx.args
    if not 1 <= a.limit <= MAX_LIMIT:
        raise InvalidInputError(f"--limit must be 1 to {MAX_LIMIT}")
    archive = ctx.engine.archive
    if a.sessions_action == "show":
        messages = archive.session(a.session)
        ctx.emit(messages, "\n".join(render.message_lines(messages)))
    elif a.sessions_action == "search":
        quotes = archive.search(a.query, a.project, min(a.limit, 200))
        ctx.emit(quotes, "\n".join(_quote_line(q) for q in quotes) or "nothing archived matches")
    else:
        sessions = archive.sessions(a.project, a.limit)
        empty = "no session has been archived yet (capture, the hooks and sync fill the archive)"
        if not ctx.settings.archive.enabled:
            empty = "no session has been archived: the turn archive is off (archive.enabled)"
        ctx.emit(sessions, "\n".join(_session_line(s) for s in sessions) or empty)
    return 0


def _session_line(session: ArchivedSession) -> str:
    where = f"  {session.project}" if session.project else ""
    span = f"{session.first_said:%Y-%m-%d %H:%M}"
    if session.last_said.date() != session.first_said.date():
        span += f" – {session.last_said:%Y-%m-%d}"
    size = f"{_count(session.turns, 'turn')}, {_count(session.messages, 'message')}"
    return f"{session.session_id}  {span}  {size}  {session.source}{where}"


def _quote_line(quote: Quote) -> str:
    who = render.SPEAKERS.get(quote.speaker or "", "someone")
    where = f"  session {quote.session_id}" if quote.session_id else ""
    return (
        f"{quote.rank:>3}. {quote.gate.relevance:.3f}  {quote.said_at:%Y-%m-%d}  {who}{where}\n"
        f"     “{quote.text}”"
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


HANDLERS: dict[str, Callable[[CommandContext], int]] = {"sessions": cmd_sessions}
