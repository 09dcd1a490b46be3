"""What file sync has already taken in, per file: `$CORTEX_HOME/sync/state.json`.

- a notes file: its statements in file order, each with the hash of its text, the text
  (to pair an edited statement with the one it replaces) and the source its memory was
  written under; plus the whole file's hash, size and mtime, so an untouched file costs
  one `stat` and a renamed one is recognised by content;
- a transcript: the byte offset read up to, the hash of its first bytes (a file
  rewritten from scratch starts over) and its session;
- an OpenClaw session store: per session, the last event read and the folder the
  agent worked in (its project).

The file is replaced atomically (written beside, fsynced, renamed), and only after the
changes it records are in the durable spool: a crash in between makes the next run find
the same changes, which the spool refuses as already queued. Runs are serialised by a
lock file, so a foreground `watch` and the service's watch never interleave.

A state file that does not parse is moved aside (`state.json.unreadable`) with a warning
and sync starts afresh: unchanged lines are recognised by their sources and not stored
twice (see `agent_turn/file_changes.py`).
"""

from __future__ import annotations

import fcntl
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cortex_tui.private import open_private, private_dir
from cortex_tui.sync.notes import text_hash

STATE = "state.json"
LOCK = ".lock"
log = logging.getLogger(__name__)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TakenNote(_Model):
    """A statement already taken in, and the source of the memory made from it."""

    sha: str
    text: str
    source: str


class NotesFile(_Model):
    kind: Literal["notes"] = "notes"
    key: str
    sha: str = ""
    size: int = 0
    mtime_ns: int = 0
    revision: int = 0
    notes: list[TakenNote] = Field(default_factory=list)


class TranscriptFile(_Model):
    kind: Literal["transcript"] = "transcript"
    key: str
    offset: int = 0
    head: str = ""
    session: str = ""


class SessionTaken(_Model):
    """How far one session of an OpenClaw store has been taken in."""

    seq: int = -1
    cwd: str = ""


class OpenClawStore(_Model):
    kind: Literal["openclaw"] = "openclaw"
    key: str
    sessions: dict[str, SessionTaken] = Field(default_factory=dict)


TrackedFile = NotesFile | TranscriptFile | OpenClawStore


class SyncState(_Model):
    version: Literal[1] = 1
    files: dict[str, NotesFile | TranscriptFile | OpenClawStore] = Field(default_factory=dict)


class StateStore:
    """Loads and saves the state of one data home."""

    def __init__(self, home: Path) -> None:
        self.folder = home / "sync"

    @property
    def path(self) -> Path:
        return self.folder / STATE

    @contextmanager
    def locked(self) -> Iterator[None]:
        private_dir(self.folder)
        with open_private(self.folder / LOCK, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def load(self) -> SyncState:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return SyncState()
        try:
            return SyncState.model_validate_json(data)
        except ValidationError as exc:
            aside = self.path.with_name(STATE + ".unreadable")
            os.replace(self.path, aside)
            log.warning("sync state %s unreadable (%s); moved to %s", self.path, exc, aside)
            return SyncState()

    def save(self, state: SyncState) -> None:
        replace_file(self.path, state.model_dump_json())

    def rewrite(self, clean: Callable[[str], str], *, write: bool = True) -> int:
        """Pass the text of every statement taken in through `clean` (`scrub`: a state
        written before the privacy step keeps a notes file's lines as they were), each
        keeping the hash of its new text; 1 when that changed the state, else 0."""
        with self.locked():
            state = self.load()
            changed = False
            for tracked in state.files.values():
                if not isinstance(tracked, NotesFile):
                    continue
                for note in tracked.notes:
                    cleaned = clean(note.text)
                    if cleaned != note.text:
                        note.text, note.sha, changed = cleaned, text_hash(cleaned), True
            if changed and write:
                self.save(state)
            return int(changed)


def replace_file(path: Path, text: str) -> None:
    """Write `text` beside `path`, fsync it, rename it over `path` and fsync the folder:
    a crash leaves the old file or the new one, never a part."""
    private_dir(path.parent)
    temp = path.with_name(f".{path.name}.tmp")
    with open_private(temp, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temp, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
