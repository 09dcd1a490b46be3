"""What the hooks do with an agent turn, whoever runs it (the hook process or the service).

Before a turn: decide whether the event gets context and what to recall for it. After a
turn: put the new part of the conversation in the durable spool, then capture spooled
turns. A memory that could not be remembered while the store was down waits in the same
spool and is stored by the same drain. Standard library only at import time: a hook
process spools a turn itself when the service does not answer.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from cortex_tui.errors import InvalidInputError
from cortex_tui.integrations.events import HookEvent
from cortex_tui.integrations.output import CLAUDE_CONTEXT_EVENTS
from cortex_tui.integrations.project import Project, project_at, project_for, safe_name
from cortex_tui.integrations.session_turns import SESSION_START, SessionTurns, standing_key
from cortex_tui.link.spool import Offsets, Spool, turn_key

TYPE_CHECKING = False  # the hook process does not import `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from cortex_tui.capture.transcript import Turn
    from cortex_tui.config import Settings
    from cortex_tui.engine.capture_batch import Hold
    from cortex_tui.engine.local import LocalEngine
    from cortex_tui.injections.record import Asker
    from cortex_tui.link.spool import TurnProgress
    from cortex_tui.link.spool_entries import DraftEntry, DraftFields, SpoolEntry, TurnEntry
    from cortex_tui.log_protocol import Log
    from cortex_tui.write.turns import CaptureProgress, CaptureReport

    CaptureTurn = Callable[[SpoolEntry, TurnProgress], str]
    CaptureTurns = Callable[
        [list[TurnEntry], list[TurnProgress]], Iterator[list[tuple[int, str | Exception]]]
    ]
    """Captures consecutive spooled turns together: yields (position, summary or
    failure) for each, a durable slice at a time."""
    Locked = Callable[[Callable[[], Any]], Any]
    """Runs a piece of store work under the caller's lock (the service's engine lock)."""
    Redact = Callable[[str], str]
    """The privacy step on one text (`Redactor.clean`)."""

CLAUDE_CONTEXT_CAP = 10_000
CONTEXT_BLOCK_TAG = "<cortex_memories>"


class PrePlan:
    """What to give before a turn: a recall for `query` (none when it is empty), the
    project's standing rules and preferences when a session starts (`standing`), and the
    size cap of the two together. `legacy_project`: the folder name earlier versions filed
    the project's memories under, moved to its key before the recall."""

    __slots__ = (
        "agent",
        "legacy_project",
        "max_chars",
        "project",
        "query",
        "session",
        "standing",
        "trigger",
    )

    def __init__(
        self,
        query: str,
        project: Project | None,
        session: str,
        max_chars: int,
        standing: bool = False,
        *,
        agent: str = "plain",
        trigger: str = "prompt",
    ) -> None:
        self.query = query
        self.project = project.key if project else None
        self.legacy_project = project.legacy if project else None
        self.session = session
        self.max_chars = max_chars
        self.standing = standing
        self.agent = agent
        """Who asks, for the injection record: claude, openclaw or plain."""
        self.trigger = trigger
        """What asks: a prompt, or a session's start, resume or compaction."""

    def asker(self) -> Asker:
        """Who asked and for what, as the injection record names it."""
        from cortex_tui.injections.record import Asker

        return Asker(
            agent=self.agent,
            trigger=self.trigger,
            session=self.session or None,
            project=self.project,
            query=self.query,
            max_chars=self.max_chars,
        )

    def cache_key(self) -> tuple[str, str, str]:
        """Session + project + normalised query: a repeated prompt (a retry, a resumed
        session) reuses the context; any other prompt is recalled afresh."""
        normalised = " ".join(self.query.split()).casefold().rstrip("?!. ")
        return (self.session, self.project or "", normalised)


def plan_pre(event: HookEvent, min_prompt_chars: int, query_chars: int, log: Log) -> PrePlan | None:
    """None when this event gets no context: another Claude event, a prompt too short,
    or one already carrying our block. A session's start (any SessionStart) gets the
    project's standing context; after a compaction or a resume, also a recall for the
    session's last prompt, whose context the conversation lost. A long prompt is
    recalled on its first `query_chars` (`hooks.max_query_chars` within
    `limits.query_chars`: `query_chars_of`); `note_pre`
    adds the standing context to a session's first prompt when its start got none."""
    if event.caller == "claude" and event.event not in CLAUDE_CONTEXT_EVENTS:
        return None
    prompt = event.prompt.strip()
    starting = event.caller == "claude" and event.event == "SessionStart"
    if starting:
        resumed = event.source in ("compact", "resume")
        prompt = last_user_prompt(event.transcript_path, log) if resumed else ""
        if len(prompt) < min_prompt_chars or CONTEXT_BLOCK_TAG in prompt:
            prompt = ""
    elif len(prompt) < min_prompt_chars or CONTEXT_BLOCK_TAG in prompt:
        return None
    return PrePlan(
        query=prompt[:query_chars].strip(),
        project=project_at(event.cwd),
        session=safe_name(event.session_id),
        max_chars=CLAUDE_CONTEXT_CAP - 200,
        standing=starting,
        agent=event.caller,
        trigger=_trigger(event) if starting else "prompt",
    )


def _trigger(event: HookEvent) -> str:
    """A session's start as the injection record names it."""
    return event.source if event.source in ("resume", "compact") else "session start"


def query_chars_of(settings: Settings) -> int:
    """The characters of a prompt a pre hook recalls on."""
    return min(settings.hooks.max_query_chars, settings.limits.query_chars)


def pre_context(plan: PrePlan, standing: Callable[[int], str], recall: Callable[[int], str]) -> str:
    """The standing block, then the recalled one, within the plan's cap together; each
    callable takes the characters left for it. A memory in both is given once, in the
    standing block."""
    given = standing(plan.max_chars) if plan.standing else ""
    recalled = ""
    if plan.query:
        left = plan.max_chars - (len(given) + 1 if given else 0)
        recalled = _without_lines_of(recall(left), given) if left > 0 else ""
    return "\n".join(block for block in (given, recalled) if block)


def _without_lines_of(block: str, given: str) -> str:
    """`format.without_lines_of`, imported only when both blocks are there: the hook
    process's own path never needs it."""
    if not given or not block:
        return block
    from cortex_tui.format import without_lines_of

    return without_lines_of(block, given)


def last_user_prompt(transcript_path: str | None, log: Log) -> str:
    """The session's last prompt, or "" when the transcript cannot be read (a path that
    is not a regular file gets no context, never a hung or exhausted worker)."""
    if not transcript_path:
        return ""
    from cortex_tui.capture.transcript import last_user_text

    try:
        return last_user_text(transcript_path)
    except InvalidInputError as exc:
        log.info("no prompt from the transcript: %s", exc)
        return ""


def spool_turn(
    event: HookEvent, home: Path, log: Log, redact: Redact | None = None
) -> Spool | None:
    """Append the turn's new text to the spool (fsynced) and advance the session's
    transcript offset; None when the event is not one to capture. A Claude Code turn is
    put together from the hooks' events and the transcript (`session_turns.py`).
    `redact` (the privacy step, where the process has it: the service) is applied
    before the text reaches the disk; the hook process alone spools it as it came, and
    the capture that follows redacts it."""
    if event.caller == "claude" and (event.stop_hook_active or event.agent_id):
        return None
    spool = Spool(home / "spool", log)
    session = safe_name(event.session_id)
    if event.caller == "openclaw":
        _spool_openclaw(spool, event, session, log, redact)
        return spool
    if event.caller != "claude":
        _spool_text(spool, event.prompt, event, session, log, redact)
        return spool
    from cortex_tui.capture.transcript import conversation_text

    kept = SessionTurns(home, event.session_id)
    transcript, new_offset = _transcript_turns(event, home, session, log)
    turn = kept.plan(transcript, event.last_assistant_message)
    _spool_text(spool, conversation_text(turn.turns), event, session, log, redact)
    if new_offset is not None:
        Offsets(home / "spool" / "offsets").set(session, new_offset)
    kept.settle(turn)
    return spool


def note_pre(
    event: HookEvent, home: Path, log: Log, plan: PrePlan | None, redact: Redact | None = None
) -> None:
    """Before an agent's turn: keep a Claude Code prompt until its turn is captured (the
    Stop hook may run before the transcript shows it, `session_turns.py`), and when
    `plan` gives context, add the project's standing context to it if the session is
    yet to be given it — a Claude Code SessionStart gives it, unless that found no
    service running; an OpenClaw session, which has no such event, gets it with its
    first prompt. `redact`: the privacy step, for the prompt kept (the service has it;
    the hook process not). An OpenClaw prompt is not kept: its `agent_end` carries the
    whole history."""
    if event.caller == "plain" or not event.session_id:
        return
    if event.caller == "claude" and event.event not in CLAUDE_CONTEXT_EVENTS:
        return
    keeps = event.caller == "claude" and event.event == "UserPromptSubmit"
    prompt = event.prompt if keeps else None
    key = None
    if plan is not None:
        key = SESSION_START if event.event == "SessionStart" else standing_key(event.prompt)
    if prompt is None and key is None:
        return
    try:
        due = SessionTurns(home, event.session_id).before_turn(prompt, key, redact)
    except OSError as exc:
        log.info("prompt not kept for capture: %s", exc)
        return
    if plan is not None and due:
        plan.standing = True


def keep_prompt(event: HookEvent, home: Path, log: Log) -> None:
    """Keep the prompt of a turn that gets no context (the hook process, when the
    service has not taken the event)."""
    note_pre(event, home, log, None)


def _spool_text(
    spool: Spool, text: str, event: HookEvent, session: str, log: Log, redact: Redact | None
) -> None:
    if text.strip():
        entry = turn_entry(text, event.session_id, project_for(event.cwd), redact=redact)
        if spool.append(entry):
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
) -> TurnEntry:
    """A conversation turn as the spool holds it, keyed by session and text (the same
    turn spooled twice is one entry); `source` names where it was read, when not a hook
    (file sync's transcripts). The key is of the text as it came, so the service's
    redacted entry and a hook's own for the same Stop stay one entry."""
    entry: TurnEntry = {
        "key": turn_key(session_id, text),
        "text": redact(text) if redact is not None else text,
        "project": project,
        "session_id": session_id,
        "at": time.time(),
    }
    if source is not None:
        entry["source"] = source
    return entry


def entry_size(entry: SpoolEntry) -> int:
    """The work in a spooled entry: a file's statements, else one turn or draft."""
    if "changes" in entry:
        return len(entry["changes"]["ops"]) or 1
    return 1


TURN_BATCH = 32
"""Spooled turns captured together at most: one model call embeds all their candidates."""


def drain_spool(
    spool: Spool,
    capture: CaptureTurn,
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
        if "text" not in item:
            break
        run.append(item)
    return run


def batch_capture(engine: LocalEngine, hold: Hold) -> CaptureTurns:
    """`capture_turns` for `drain_spool`: the engine's batch capture of spooled turns."""
    from cortex_tui.engine.capture_batch import TurnToCapture, capture_turns

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
    if "changes" in item:
        from cortex_tui.integrations.file_changes import apply_file_changes

        return apply_file_changes(engine, item["changes"], progress, locked)
    if "draft" in item:
        from cortex_tui.models import MemoryDraft

        draft = MemoryDraft.model_validate(item["draft"])
        result = locked(lambda: engine.remember(draft))
        return f"remembered a spooled draft: {result.action.value} {result.memory.short_id}"
    text = _spooled_text(engine, item)
    report = locked(
        lambda: engine.capture(
            text,
            project=item.get("project"),
            session_id=item.get("session_id"),
            source=item.get("source", "hook"),
            progress=progress,
        )
    )
    return _summary(report)


def _spooled_text(engine: LocalEngine, item: TurnEntry) -> str:
    """A spooled turn's text within `limits.capture_chars`: it was acknowledged to an
    agent already, so a turn over the limit keeps its start and end instead of failing."""
    from cortex_tui.engine.limits import fit_turn

    return fit_turn(item["text"], engine.settings.limits.capture_chars)


def _summary(report: CaptureReport) -> str:
    said = [o.describe().splitlines()[0][:80] for o in report.outcomes]
    return "; ".join(said) or "nothing durable"


def spool_draft(draft: DraftFields, home: Path, log: Log) -> str:
    """Put a memory to remember in the spool (fsynced); the next drain stores it. The
    key is the whole draft, the time it was said included, so a replay of the spool
    never stores it twice."""
    canonical = json.dumps(draft, sort_keys=True, ensure_ascii=False)
    key = "draft-" + hashlib.sha256(canonical.encode()).hexdigest()[:32]
    entry: DraftEntry = {"key": key, "draft": draft, "at": time.time()}
    if Spool(home / "spool", log).append(entry):
        log.info("spooled a draft to remember (%s)", key[6:14])
    return key


def _spool_openclaw(
    spool: Spool, event: HookEvent, session: str, log: Log, redact: Redact | None
) -> None:
    """Each turn of the session's history not captured yet, one spool entry each."""
    from cortex_tui.integrations.openclaw.turns import OpenClawSession

    kept = OpenClawSession(str(spool.folder), session)
    for text in kept.new_turns(event.messages):
        _spool_text(spool, text, event, session, log, redact)
    kept.captured(event.messages)


def _transcript_turns(
    event: HookEvent, home: Path, session: str, log: Log
) -> tuple[list[Turn], int | None]:
    """The transcript's lines not captured yet, and the offset after them (none when
    the event names no transcript, or it cannot be read yet)."""
    if not event.transcript_path:
        return [], None
    from cortex_tui.capture.transcript import read_transcript_turns

    offsets = Offsets(home / "spool" / "offsets")
    try:
        return read_transcript_turns(event.transcript_path, offsets.get(session))
    except InvalidInputError as exc:
        log.info("transcript not read: %s", exc)
        return [], None
