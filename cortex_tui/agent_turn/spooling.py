"""After a turn: its new text into the durable spool (fsynced) before the hook returns,
and a memory to remember there too while the store is out of reach. What is new in a
turn is the agent adapter's to say (`new_turns`); capture follows (`drain.py`).

Standard library only at import time: a hook process spools a turn itself when the
service does not answer.
"""

from __future__ import annotations

import hashlib
import json
import time

from cortex_tui.agent_turn.project import project_for, safe_name
from cortex_tui.spool.durable import Spool, turn_key

TYPE_CHECKING = False  # the hook process does not import `typing`
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from cortex_tui.agent_turn.events import HookEvent
    from cortex_tui.log_protocol import Log
    from cortex_tui.spool.entries import DraftEntry, DraftFields, TurnEntry

    Redact = Callable[[str], str]
    """The privacy step on one text (`Redactor.clean`)."""


def spool_turn(
    event: HookEvent, home: Path, log: Log, redact: Redact | None = None
) -> Spool | None:
    """Append the turn's new text to the spool (fsynced), then let the adapter record it
    as handed over; None when the event is not one to capture. `redact` (the privacy
    step, where the process has it: the service) is applied before the text reaches the
    disk; the hook process alone spools it as it came, and the capture that follows
    redacts it."""
    if not event.agent.captures(event):
        return None
    spool = Spool(home / "spool", log)
    new = event.agent.new_turns(event, home, log)
    for text in new.texts:
        _spool_text(spool, text, event, log, redact)
    new.settle()
    return spool


def _spool_text(spool: Spool, text: str, event: HookEvent, log: Log, redact: Redact | None) -> None:
    if text.strip():
        entry = turn_entry(text, event.session_id, project_for(event.cwd), redact=redact)
        if spool.append(entry):
            session = safe_name(event.session_id)
            log.info(
                "spooled turn %s of session %s (%d chars)", entry["key"][:8], session, len(text)
            )


def turn_entry(
    text: str,
    session_id: str | None,
    project: str | None,
    source: str | None = None,
    *,
    redact: Redact | None = None,
    said_at: float | None = None,
) -> TurnEntry:
    """A conversation turn as the spool holds it, keyed by session and text (the same
    turn spooled twice is one entry); `source` names where it was read, when not a hook
    (file sync's transcripts), and `said_at` when it was said, when that is known and
    not now (a transcript's line). The key is of the text as it came, so the service's
    redacted entry and a hook's own for the same Stop stay one entry."""
    entry: TurnEntry = {
        "kind": "turn",
        "key": turn_key(session_id, text),
        "text": redact(text) if redact is not None else text,
        "project": project,
        "session_id": session_id,
        "at": time.time(),
    }
    if source is not None:
        entry["source"] = source
    if said_at is not None:
        entry["said_at"] = said_at
    return entry


def spool_draft(draft: DraftFields, home: Path, log: Log) -> str:
    """Put a memory to remember in the spool (fsynced); the next drain stores it. The
    key is the whole draft, the time it was said included, so a replay of the spool
    never stores it twice."""
    canonical = json.dumps(draft, sort_keys=True, ensure_ascii=False)
    key = "draft-" + hashlib.sha256(canonical.encode()).hexdigest()[:32]
    entry: DraftEntry = {"kind": "draft", "key": key, "draft": draft, "at": time.time()}
    if Spool(home / "spool", log).append(entry):
        log.info("spooled a draft to remember (%s)", key[6:14])
    return key
