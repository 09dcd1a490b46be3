"""A transcript's new lines → spool entries, one per exchange, as the post hook makes them.

Only what was written since the last sync is read (from a byte offset). The new turns
are cut into exchanges (a prompt and the replies to it); each becomes a spooled turn of
the transcript's session, captured in order, so each exchange is the next turn of its
session and recall reads a turn with the one before it; each carries the time of its
first line, so the turn archive dates it as said, not as synced. Claude Code names a
transcript by its session and the post hook keeps its own offset for that session: sync
starts from the further of the two and moves both, so a conversation the hook captured
is not captured again by sync, nor the other way round.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cortex_tui.agent_turn.agents.claude_code.transcript import (
    Turn,
    conversation_text,
    read_transcript_turns,
)
from cortex_tui.agent_turn.file_changes import SOURCE_SCHEME
from cortex_tui.agent_turn.project import project_for, safe_name
from cortex_tui.agent_turn.spooling import turn_entry
from cortex_tui.errors import InvalidInputError
from cortex_tui.spool.durable import Offsets
from cortex_tui.spool.entries import TurnEntry
from cortex_tui.sync.files import Skipped
from cortex_tui.sync.state import TranscriptFile
from cortex_tui.untrusted.files import read_regular

HEAD_BYTES = 64 * 1024
log = logging.getLogger(__name__)


@dataclass
class TranscriptRead:
    entries: list[TurnEntry]
    tracked: TranscriptFile
    turns: int


def read_new_exchanges(
    path: Path,
    tracked: TranscriptFile,
    offsets: Offsets,
    project: str | None,
    redact: Callable[[str], str] | None = None,
) -> TranscriptRead:
    """The exchanges written since `tracked.offset`, and the state after them; each
    through `redact` (the privacy step) before it is spooled."""
    session = tracked.session or path.stem  # Claude Code names a transcript by its session
    head = transcript_head(path)
    start = tracked.offset if tracked.head in ("", head) else 0  # rewritten: start over
    start = max(start, offsets.get(safe_name(session)))
    turns: list[Turn] = []
    while True:
        try:
            more, end = read_transcript_turns(path, start)
        except InvalidInputError as exc:
            raise Skipped(path, str(exc)) from None
        turns.extend(more)
        if end <= start:
            break
        start = end
    where = project or project_for(next((t.cwd for t in turns if t.cwd), None))
    source = f"{SOURCE_SCHEME}{tracked.key}"
    entries = [
        turn_entry(text, session, where, source, redact=redact, said_at=said_at)
        for text, said_at in _exchanges(turns)
        if text.strip()
    ]
    after = tracked.model_copy(update={"offset": start, "head": head, "session": session})
    return TranscriptRead(entries, after, len(turns))


def remember_offset(offsets: Offsets, tracked: TranscriptFile) -> None:
    """Tell the post hook how far this session's transcript has been taken in."""
    if tracked.session and offsets.get(safe_name(tracked.session)) < tracked.offset:
        offsets.set(safe_name(tracked.session), tracked.offset)


def _exchanges(turns: list[Turn]) -> list[tuple[str, float | None]]:
    """Each prompt with the replies after it (replies before the first prompt together),
    and when it was said: its first line's time, so a session synced months later is
    archived on the days it was said, not on the day of the sync."""
    groups: list[list[Turn]] = []
    for turn in turns:
        if turn.role == "user" or not groups:
            groups.append([])
        groups[-1].append(turn)
    return [(conversation_text(group), _said_at(group)) for group in groups]


def _said_at(group: list[Turn]) -> float | None:
    said = next((turn.timestamp for turn in group if turn.timestamp is not None), None)
    return said.timestamp() if said is not None else None


def transcript_head(path: Path) -> str:
    """A hash of the transcript's first line (complete lines only; "" before there is
    one): a transcript grows at its end, so a different first line means a new file."""
    try:
        data = read_regular(path, limit=HEAD_BYTES, what="transcript").data
    except InvalidInputError as exc:
        raise Skipped(path, str(exc)) from None
    newline = data.find(b"\n")
    return "" if newline < 0 else hashlib.sha256(data[:newline]).hexdigest()[:12]
