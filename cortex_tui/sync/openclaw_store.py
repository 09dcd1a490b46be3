"""An OpenClaw agent's session store → spool entries, one per exchange, as the plugin's
capture makes them.

OpenClaw 2026.9 keeps each agent's sessions in one SQLite database
(`~/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite`): table `transcript_events`,
one row per event of a session (`session_id`, `seq`), its JSON in `event_json`, or, for
an event of a kilobyte or more that compresses well, zstd-compressed in `event_zstd`.
The events are the lines of the JSONL sessions earlier versions wrote: a `session`
header with the agent's `cwd`, then `message` events whose `message` has a `role` and
`content`, among model changes, compactions and the like. A message event's `timestamp`
dates its turn, so the turn archive keeps a session as said, not as synced.

The database is opened read-only and only the events after the last `seq` taken in are
read, per session. The plugin's capture and sync share what they took of each session
(`agent_turn/agents/openclaw/session.py`): sync starts after the messages the plugin handed
over, and records the messages it took, so neither captures a turn the other did.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cortex_tui.agent_turn.agents.openclaw.session import OpenClawSession, turns_with_start
from cortex_tui.agent_turn.file_changes import SOURCE_SCHEME
from cortex_tui.agent_turn.project import project_for, safe_name
from cortex_tui.agent_turn.spooling import turn_entry
from cortex_tui.spool.entries import TurnEntry
from cortex_tui.sync.files import Skipped
from cortex_tui.sync.state import OpenClawStore, SessionTaken

Message = dict[str, Any]
Event = dict[str, Any]
_MILLISECONDS_FROM = 1e11
"""A number of seconds past this is year 5138: a time that large is in milliseconds."""


@dataclass
class StoreRead:
    entries: list[TurnEntry]
    tracked: OpenClawStore
    last_messages: dict[str, Message] = field(default_factory=dict)
    """Each session's last message read: recorded as handed over once its turns are
    spooled (`hand_over`), so the plugin does not capture them again."""
    unreadable: int = 0
    """Events this machine cannot decode (binary JSON of a newer SQLite): counted and
    reported, never silently lost."""


def read_new_sessions(
    path: Path,
    tracked: OpenClawStore,
    spool_folder: Path,
    project: str | None,
    redact: Callable[[str], str] | None = None,
) -> StoreRead:
    """The exchanges of every session since what `tracked` records, and the state after
    them; each through `redact` (the privacy step) before it is spooled."""
    sessions = dict(tracked.sessions)
    read = StoreRead([], tracked)
    try:
        with closing(_open(path)) as db:
            packed = _packed_columns(db)
            for session_id, newest in _session_heads(db):
                taken = sessions.get(session_id, SessionTaken())
                if newest <= taken.seq:
                    continue
                events, unreadable = _events_after(db, packed, session_id, taken.seq)
                read.unreadable += unreadable
                cwd, messages, said = _conversation(events, taken.cwd)
                handed = OpenClawSession(str(spool_folder), safe_name(session_id))
                where = project or project_for(cwd or None)
                source = f"{SOURCE_SCHEME}{tracked.key}#{session_id}"
                read.entries += [
                    turn_entry(
                        text, session_id, where, source, redact=redact, said_at=said.get(id(first))
                    )
                    for text, first in turns_with_start(handed.after_handed_over(messages))
                ]
                if messages:
                    read.last_messages[session_id] = messages[-1]
                # Past what did not decode too: it would not decode on the next pass.
                sessions[session_id] = SessionTaken(seq=newest, cwd=cwd)
    except sqlite3.Error as exc:
        raise Skipped(path, f"cannot read OpenClaw's session store: {exc}") from None
    read.tracked = tracked.model_copy(update={"sessions": sessions})
    return read


def hand_over(spool_folder: Path, read: StoreRead) -> None:
    """Record each session's last message read as handed over (after the pass spooled
    its turns)."""
    for session_id, message in read.last_messages.items():
        handed = OpenClawSession(str(spool_folder), safe_name(session_id))
        handed.captured([message], whole_history=False)


def _conversation(
    events: list[tuple[int, Event]], cwd: str
) -> tuple[str, list[Message], dict[int, float]]:
    """The folder the agent worked in (from the session's header), the user's and the
    assistant's messages, in order, and when each was said (by the message's `id()`,
    where its event tells); compactions, model changes, tool results and the like are
    not the conversation."""
    messages: list[Message] = []
    said: dict[int, float] = {}
    for _, event in events:
        if event.get("type") == "session" and isinstance(event.get("cwd"), str):
            cwd = event["cwd"]
        message = event.get("message") if event.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") in ("user", "assistant"):
            messages.append(message)
            when = _seconds(event.get("timestamp"))
            when = _seconds(message.get("timestamp")) if when is None else when
            if when is not None:
                said[id(message)] = when
    return cwd, messages, said


def _seconds(raw: Any) -> float | None:
    """A time as OpenClaw writes one, in seconds since the epoch: an event's ISO 8601
    `timestamp`, or a message's in milliseconds; None for anything else."""
    if isinstance(raw, str):
        try:
            moment = datetime.fromisoformat(raw)
        except ValueError:
            return None
        return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
    if isinstance(raw, int | float) and not isinstance(raw, bool) and raw > 0:
        return raw / 1000 if raw > _MILLISECONDS_FROM else float(raw)
    return None


def _open(path: Path) -> sqlite3.Connection:
    """Read-only: the database is OpenClaw's, and it may be writing it right now."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
    db.execute("PRAGMA query_only = ON")
    return db


def _session_heads(db: sqlite3.Connection) -> list[tuple[str, int]]:
    """Each session and its newest event: a session with nothing new costs no read."""
    rows = db.execute(
        "SELECT session_id, MAX(seq) FROM transcript_events GROUP BY session_id ORDER BY session_id"
    )
    return [(str(session), int(newest)) for session, newest in rows.fetchall()]


def _packed_columns(db: sqlite3.Connection) -> str:
    """The compressed event and its size, where this version of the store has them."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(transcript_events)")}
    return "event_zstd, event_utf8_bytes" if "event_zstd" in columns else "NULL, NULL"


def _events_after(
    db: sqlite3.Connection, packed: str, session_id: str, after: int
) -> tuple[list[tuple[int, Event]], int]:
    """The session's events after `after`, decoded, and how many could not be."""
    rows = db.execute(
        f"SELECT seq, event_json, {packed} FROM transcript_events "
        "WHERE session_id = ? AND seq > ? ORDER BY seq",
        (session_id, after),
    )
    events: list[tuple[int, Event]] = []
    unreadable = 0
    for seq, text, compressed, size in rows.fetchall():
        event = _decoded(db, text, compressed, size)
        if event is None:
            unreadable += 1
        else:
            events.append((int(seq), event))
    return events, unreadable


def _decoded(db: sqlite3.Connection, text: Any, compressed: Any, size: Any) -> Event | None:
    """An event from its JSON text, its zstd-compressed UTF-8, or SQLite's binary JSON
    (readable by SQLite 3.45 or later); None when it is none of those."""
    raw: str | None = None
    if isinstance(text, str):
        raw = text
    elif isinstance(text, bytes):
        try:
            raw = db.execute("SELECT json(?)", (text,)).fetchone()[0]
        except sqlite3.Error:
            return None
    elif isinstance(compressed, bytes):
        import zstandard  # only for events of a kilobyte or more

        try:
            limit = size if isinstance(size, int) and size > 0 else 0
            data = zstandard.ZstdDecompressor().decompress(compressed, max_output_size=limit)
            raw = data.decode("utf-8")
        except (zstandard.ZstdError, UnicodeDecodeError):
            return None
    if raw is None:
        return None
    try:
        event = json.loads(raw)
    except ValueError:
        return None
    return event if isinstance(event, dict) else None
