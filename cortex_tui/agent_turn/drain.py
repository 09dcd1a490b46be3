"""Spooled entries handed to capture, oldest first: conversation turns to the write path
(runs of consecutive turns together), a draft to `remember`, a notes file's changes to
`file_changes.py`. A crash at any point loses nothing: an entry leaves the spool only
once what it holds is durable in the store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from cortex_tui.engine.capture_batch import Hold, TurnToCapture, capture_turns
from cortex_tui.engine.limits import fit_turn
from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import InvalidInputError
from cortex_tui.log_protocol import Log
from cortex_tui.spool.durable import Spool, TurnProgress
from cortex_tui.spool.entries import SpoolEntry, TurnEntry
from cortex_tui.write.turn_capture import CaptureProgress, CaptureReport

CaptureOne = Callable[[SpoolEntry, TurnProgress], str]
"""Captures one spooled entry, resuming it from its progress; a summary for the log."""
CaptureTurns = Callable[
    [list[TurnEntry], list[TurnProgress]], Iterator[list[tuple[int, str | Exception]]]
]
"""Captures consecutive spooled turns together: yields (position, summary or failure)
for each, a durable slice at a time."""
Locked = Callable[[Callable[[], Any]], Any]
"""Runs a piece of store work under the caller's lock (the service's engine lock)."""
Redact = Callable[[str], str]

TURN_BATCH = 32
"""Spooled turns captured together at most: one model call embeds all their candidates."""


def drain_spool(
    spool: Spool,
    capture: CaptureOne,
    log: Log,
    capture_turns: CaptureTurns | None = None,
    redact: Redact | None = None,
) -> int:
    """Capture every pending entry, oldest first, resuming one a crash interrupted;
    `capture` returns a one-line summary for the log, and `capture_turns`, when given,
    takes runs of consecutive conversation turns (drafts and file changes still go one
    at a time). Returns how many entries were captured.

    An entry whose capture fails stays spooled and the later ones are still captured
    (one bad turn must not hold the others back); the first failure is raised at the end
    so the caller retries. One refused for its input (`InvalidInputError`) is set aside
    in the spool's quarantine instead, through `redact` when given (it is kept there).
    """
    captured = 0
    failures: list[Exception] = []

    def settle(item: SpoolEntry, outcome: str | Exception) -> bool:
        if isinstance(outcome, InvalidInputError):  # it would fail the same way for ever
            if redact is not None:
                from cortex_tui.privacy.records import redact_strings

                item = redact_strings(item, redact)
            spool.refuse(item, str(outcome))
            return False
        if isinstance(outcome, Exception):
            log.warning(
                "turn %s not captured yet: %s: %s",
                item["key"][:8],
                type(outcome).__name__,
                outcome,
            )
            failures.append(outcome)
            return False
        log.info("captured turn %s: %s", item["key"][:8], outcome)
        return True

    pending = spool.pending()
    position = 0
    while position < len(pending):
        if capture_turns is not None and (run := _turn_run(pending, position)):
            progresses = [spool.progress(item["key"]) for item in run]
            for settled in capture_turns(run, progresses):
                keys = [run[i]["key"] for i, outcome in settled if settle(run[i], outcome)]
                spool.mark_done_many(keys)
                captured += len(keys)
            position += len(run)
            continue
        item = pending[position]
        position += 1
        try:
            outcome: str | Exception = capture(item, spool.progress(item["key"]))
        except Exception as exc:
            outcome = exc
        if settle(item, outcome):
            spool.mark_done(item["key"])
            captured += 1
    if captured:
        spool.compact()
    if failures:
        raise failures[0]
    return captured


def _turn_run(pending: list[SpoolEntry], start: int) -> list[TurnEntry]:
    """The conversation turns from `start` on, up to the next draft or file change."""
    run: list[TurnEntry] = []
    for item in pending[start : start + TURN_BATCH]:
        if item["kind"] != "turn":
            break
        run.append(item)
    return run


def batch_capture(engine: LocalEngine, hold: Hold) -> CaptureTurns:
    """`capture_turns` for `drain_spool`: the engine's batch capture of spooled turns."""

    def capture(
        items: list[TurnEntry], progresses: list[TurnProgress]
    ) -> Iterator[list[tuple[int, str | Exception]]]:
        turns = [
            TurnToCapture(
                text=_spooled_text(engine, item),
                project=item.get("project"),
                session_id=item.get("session_id"),
                source=item.get("source", "hook"),
                progress=progress,
                said_at=said_at(item),
            )
            for item, progress in zip(items, progresses, strict=True)
        ]
        for settled in capture_turns(engine, turns, hold):
            yield [
                (i, outcome if isinstance(outcome, Exception) else _summary(outcome))
                for i, outcome in settled
            ]

    return capture


def capture_turn(
    engine: LocalEngine,
    item: SpoolEntry,
    progress: CaptureProgress,
    locked: Locked = lambda work: work(),
) -> str:
    """Capture one spooled turn (resuming it when `progress` says it was started),
    remember the spooled draft, or apply a notes file's changes. The store work runs
    under `locked` (a file's changes batch by batch, so a long file does not hold the
    service's lock throughout)."""
    match item["kind"]:
        case "changes":
            from cortex_tui.agent_turn.file_changes import apply_file_changes

            return apply_file_changes(engine, item["changes"], progress, locked)
        case "draft":
            from cortex_tui.models import MemoryDraft

            draft = MemoryDraft.model_validate(item["draft"])
            result = locked(lambda: engine.remember(draft))
            return f"remembered a spooled draft: {result.action.value} {result.memory.short_id}"
        case "turn":
            text = _spooled_text(engine, item)
            project, session = item.get("project"), item.get("session_id")
            source = item.get("source", "hook")
            when = said_at(item)
            report = locked(
                lambda: engine.capture(
                    text,
                    project=project,
                    session_id=session,
                    source=source,
                    progress=progress,
                    said_at=when,
                )
            )
            return _summary(report)


def said_at(item: TurnEntry) -> datetime | None:
    """When a spooled turn was said, where its entry says (a synced transcript's)."""
    said = item.get("said_at")
    if not isinstance(said, int | float) or isinstance(said, bool):
        return None
    try:
        return datetime.fromtimestamp(said, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _spooled_text(engine: LocalEngine, item: TurnEntry) -> str:
    """A spooled turn's text within `limits.capture_chars`: it was acknowledged to an
    agent already, so a turn over the limit keeps its start and end instead of failing."""
    return fit_turn(item["text"], engine.settings.limits.capture_chars)


def _summary(report: CaptureReport) -> str:
    said = [o.describe().splitlines()[0][:80] for o in report.outcomes]
    return "; ".join(said) or "nothing durable"
