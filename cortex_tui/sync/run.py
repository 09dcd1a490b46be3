"""One sync pass: files → what changed since the last pass → the durable spool.

For each path (a file, or a folder walked for notes and transcripts):
- a notes file whose size and mtime are as recorded is not read; otherwise its
  statements are compared with those taken in before (`diff.py`) and the operations
  are spooled as one entry;
- a transcript's new lines are spooled as turns (`transcripts.py`), and so are the
  new events of an OpenClaw session store (`openclaw_store.py`);
- a file recorded before that is gone is looked for under a new name (same content, or
  most of the same statements): found, it is a rename and nothing is imported again;
  not found, a notes file's statements are retired (a transcript's conversation stays
  remembered: deleting a log does not unsay it).

Entries are spooled (fsynced) before the state that records them is saved, and an
entry's key is fixed by what it holds, so a pass cut short by a crash is redone by the
next one without spooling anything twice. Whoever drains the spool stores the changes
(`agent_turn/file_changes.py`); this module never opens the store, so it runs the same
beside the service, without it, or inside it.
"""

from __future__ import annotations

import hashlib
import logging
import re
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from cortex_tui.agent_turn.file_changes import RETIRE, unit_source
from cortex_tui.agent_turn.project import project_for
from cortex_tui.config import load_settings
from cortex_tui.errors import InvalidInputError
from cortex_tui.indexer.sources import file_key
from cortex_tui.privacy.redactor import Redactor
from cortex_tui.spool.durable import Offsets, Spool
from cortex_tui.spool.entries import DraftFields, FileOperation, SpoolEntry, entry_size
from cortex_tui.sync.diff import diff_notes
from cortex_tui.sync.files import Kind, Skipped, check_transcript, kind_of, read_notes, walk
from cortex_tui.sync.notes import Note, note_tags, note_type, parse_notes
from cortex_tui.sync.openclaw_store import StoreRead, hand_over, read_new_sessions
from cortex_tui.sync.state import (
    NotesFile,
    OpenClawStore,
    StateStore,
    SyncState,
    TrackedFile,
    TranscriptFile,
)
from cortex_tui.sync.transcripts import read_new_exchanges, remember_offset, transcript_head

RENAME_OVERLAP = 0.6
"""Share of a vanished file's statements a new file must hold to be it, renamed."""
SPOOL_BATCH = 500
"""Entries spooled (and state saved) at a time: a backlog of transcripts in pieces."""
_DATED = re.compile(r"(\d{4})-(\d{2})-(\d{2})")

Progress = Callable[[int, int, str], None]
"""(files done, files in all, the file's path) as a pass advances."""


@dataclass
class FileChange:
    """What one pass found in one file (for the one-line status)."""

    path: str
    kind: Kind
    added: int = 0
    edited: int = 0
    retired: int = 0
    turns: int = 0
    renamed_from: str | None = None
    removed: bool = False

    def describe(self) -> str:
        parts = []
        if self.renamed_from:
            parts.append(f"renamed from {self.renamed_from}")
        if self.removed:
            parts.append("removed")
        for count, what in (
            (self.added, "new"),
            (self.edited, "edited"),
            (self.retired, "retired"),
            (self.turns, "new exchange" + ("" if self.turns == 1 else "s")),
        ):
            if count:
                parts.append(f"{count} {what}")
        return f"{self.path}: {', '.join(parts) or 'no change'}"


@dataclass
class SyncReport:
    files_seen: int = 0
    unchanged: int = 0
    changes: list[FileChange] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    """Keys of the spool entries this pass added: what a caller waits for."""
    operations: int = 0
    """Statements and exchanges those entries hold: the work the drain has to do."""

    def to_json(self) -> dict[str, Any]:
        return {
            "files_seen": self.files_seen,
            "unchanged": self.unchanged,
            "changes": [vars(change) for change in self.changes],
            "skipped": self.skipped,
            "spooled": len(self.keys),
            "operations": self.operations,
        }


def sync_paths(
    paths: Sequence[Path],
    home: Path,
    *,
    project: str | None = None,
    progress: Progress | None = None,
    log: logging.Logger | None = None,
) -> SyncReport:
    """Take in what changed under `paths` since the last pass (see the module
    docstring). Raises `InvalidInputError` for a path that does not exist and was
    never synced."""
    log = log or logging.getLogger(__name__)
    states = StateStore(home)
    with states.locked():
        state = states.load()
        run = _Pass(state, home, project, log)
        files = run.find(paths)
        for done, (path, kind) in enumerate(files):
            if progress:
                progress(done, len(files), str(path))
            run.take(path, kind)
            if len(run.pending) >= SPOOL_BATCH:
                run.commit(states)
        run.retire_vanished(paths)
        run.commit(states)
        if progress:
            progress(len(files), len(files), "")
        run.report.files_seen = len(files)
        return run.report


class _Pass:
    def __init__(
        self, state: SyncState, home: Path, project: str | None, log: logging.Logger
    ) -> None:
        self.state = state
        self.project = project or None
        self.spool = Spool(home / "spool", log)
        self.offsets = Offsets(home / "spool" / "offsets")
        self.report = SyncReport()
        self.pending: list[SpoolEntry] = []
        self.seen: set[str] = set()
        self.transcripts_read: list[TranscriptFile] = []
        self.stores_read: list[StoreRead] = []
        self.dirty = False
        """Whether the state changed since it was loaded or last saved."""
        settings = load_settings(home)
        self.content_chars = settings.limits.content_chars
        self.privacy = Redactor(settings.privacy)
        """Notes and transcripts pass the privacy step as they are read: neither the
        state kept of a file, nor what waits in the spool, holds a secret."""

    def _record(self, name: str, tracked: TrackedFile) -> None:
        self.state.files[name] = tracked
        self.dirty = True

    def _drop(self, name: str) -> TrackedFile:
        self.dirty = True
        return self.state.files.pop(name)

    # --- which files ---------------------------------------------------------------

    def find(self, paths: Sequence[Path]) -> list[tuple[Path, Kind]]:
        files: dict[Path, Kind] = {}
        for given in paths:
            path = given.expanduser().resolve()
            if path.is_dir():
                files.update(walk(path))
            elif path.exists():
                kind = kind_of(path, named=True)
                if kind is None:
                    self.report.skipped.append(
                        f"skipped {given}: not notes (.md, .markdown, .txt), a transcript "
                        "(.jsonl) or an OpenClaw session store (openclaw-agent.sqlite)"
                    )
                else:
                    files[path] = kind
            elif not self._tracked_under(path):
                raise InvalidInputError(
                    f"{given} does not exist; give a notes file, a transcript or a folder"
                )
        return sorted(files.items())

    def _tracked_under(self, root: Path) -> list[str]:
        prefix = f"{root.as_posix().rstrip('/')}/"
        return [p for p in self.state.files if p == root.as_posix() or p.startswith(prefix)]

    # --- one file ------------------------------------------------------------------

    def take(self, path: Path, kind: Kind) -> None:
        name = path.as_posix()
        self.seen.add(name)
        try:
            if kind == "notes":
                self._take_notes(path)
            elif kind == "openclaw":
                self._take_openclaw_store(path)
            else:
                self._take_transcript(path)
        except Skipped as skipped:
            self.report.skipped.append(str(skipped))
        except OSError as exc:  # gone or locked away between the walk and the read
            self.report.skipped.append(f"skipped {path}: {exc.strerror or exc}; sync it again")

    def _take_notes(self, path: Path) -> None:
        name = path.as_posix()
        tracked = self.state.files.get(name)
        stat = path.stat()
        if (
            isinstance(tracked, NotesFile)
            and tracked.size == stat.st_size
            and tracked.mtime_ns == stat.st_mtime_ns
        ):
            self.report.unchanged += 1
            return
        data = read_notes(path)
        sha = hashlib.sha256(data).hexdigest()[:16]
        notes = self._within_limit(path, parse_notes(self.privacy.clean(data.decode("utf-8"))))
        change = FileChange(_shown(path), "notes")
        if not isinstance(tracked, NotesFile):
            tracked, change.renamed_from = self._renamed_notes(path, sha, notes)
        if tracked.sha == sha:
            seen = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
            self._record(name, tracked.model_copy(update=seen))
            if change.renamed_from:
                self.report.changes.append(change)
            else:
                self.report.unchanged += 1
            return
        project = self.project or project_for(str(path.parent))
        dated = _date_in(path.name)
        key = file_key(path)  # a renamed file's new statements are named by its new name

        def draft(note: Note) -> DraftFields:
            return _draft(note, key, project, dated)

        diff = diff_notes(tracked.notes, notes, draft)
        revision = tracked.revision + 1
        taken = {
            "sha": sha,
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
            "revision": revision,
            "notes": diff.taken,
            "key": key,
        }
        self._record(name, tracked.model_copy(update=taken))
        change.added, change.edited, change.retired = diff.added, diff.edited, diff.retired
        self.report.changes.append(change)
        if diff.changed:
            self._spool_changes(name, revision, sha, change.path, diff.ops)

    def _within_limit(self, path: Path, notes: list[Note]) -> list[Note]:
        """The statements a memory can hold; each longer one is reported and left out
        (the file is read again when it changes)."""
        kept = []
        for note in notes:
            if len(note.text) > self.content_chars:
                self.report.skipped.append(
                    f"skipped {_shown(path)}:{note.line}: a statement of {len(note.text)} "
                    f"characters, over limits.content_chars ({self.content_chars}); split it"
                )
            else:
                kept.append(note)
        return kept

    def _renamed_notes(
        self, path: Path, sha: str, notes: list[Note]
    ) -> tuple[NotesFile, str | None]:
        """The state of the vanished file this one is (by content), or a fresh one."""
        shas = {note.sha for note in notes}
        best: tuple[float, str] | None = None
        for name, tracked in self.state.files.items():
            if not isinstance(tracked, NotesFile) or Path(name).exists():
                continue
            if tracked.sha == sha:
                best = (2.0, name)
                break
            held = [t for t in tracked.notes if t.sha in shas]
            share = len(held) / len(tracked.notes) if tracked.notes else 0.0
            if share >= RENAME_OVERLAP and (best is None or share > best[0]):
                best = (share, name)
        if best is None:
            return NotesFile(key=file_key(path)), None
        moved = self._drop(best[1])
        assert isinstance(moved, NotesFile)
        return moved, _shown(Path(best[1]))

    def _take_transcript(self, path: Path) -> None:
        check_transcript(path)
        name = path.as_posix()
        tracked = self.state.files.get(name)
        change = FileChange(_shown(path), "transcript")
        if not isinstance(tracked, TranscriptFile):
            tracked, change.renamed_from = self._renamed_transcript(path)
        if tracked.offset == path.stat().st_size and not change.renamed_from:
            self.report.unchanged += 1
            return
        read = read_new_exchanges(path, tracked, self.offsets, self.project, self.privacy.clean)
        self._record(name, read.tracked)
        self.transcripts_read.append(read.tracked)
        change.turns = len(read.entries)
        if change.turns or change.renamed_from:
            self.report.changes.append(change)
        else:
            self.report.unchanged += 1
        self.pending.extend(read.entries)

    def _take_openclaw_store(self, path: Path) -> None:
        name = path.as_posix()
        tracked = self.state.files.get(name)
        if not isinstance(tracked, OpenClawStore):
            tracked = OpenClawStore(key=file_key(path))
        read = read_new_sessions(path, tracked, self.spool.folder, self.project, self.privacy.clean)
        if read.tracked != tracked:
            self._record(name, read.tracked)
        self.stores_read.append(read)
        if read.unreadable:
            self.report.skipped.append(
                f"skipped {read.unreadable} events of {_shown(path)} that do not decode "
                "here (OpenClaw's binary JSON needs SQLite 3.45 or later; this Python has "
                f"{sqlite3.sqlite_version}); the rest was read"
            )
        if read.entries:
            change = FileChange(_shown(path), "openclaw", turns=len(read.entries))
            self.report.changes.append(change)
        else:
            self.report.unchanged += 1
        self.pending.extend(read.entries)

    def _renamed_transcript(self, path: Path) -> tuple[TranscriptFile, str | None]:
        head = transcript_head(path)
        gone = (
            name
            for name, tracked in self.state.files.items()
            if isinstance(tracked, TranscriptFile)
            and head
            and tracked.head == head
            and not Path(name).exists()
        )
        name = next(gone, None)
        if name is None:
            return TranscriptFile(key=file_key(path)), None
        moved = self._drop(name)
        assert isinstance(moved, TranscriptFile)
        return moved.model_copy(update={"key": file_key(path)}), _shown(Path(name))

    # --- vanished files ------------------------------------------------------------

    def retire_vanished(self, roots: Sequence[Path]) -> None:
        """Files recorded under the roots that are gone and were not renamed."""
        for root in roots:
            for name in self._tracked_under(root.expanduser().resolve()):
                if name in self.seen or Path(name).exists():
                    continue
                tracked = self._drop(name)
                change = FileChange(_shown(Path(name)), tracked.kind, removed=True)
                if isinstance(tracked, NotesFile) and tracked.notes:
                    ops: list[FileOperation] = [
                        {"op": RETIRE, "was": t.source} for t in tracked.notes
                    ]
                    change.retired = len(ops)
                    self._spool_changes(name, tracked.revision + 1, "gone", change.path, ops)
                self.report.changes.append(change)

    # --- spooling --------------------------------------------------------------------

    def _spool_changes(
        self, name: str, revision: int, sha: str, shown: str, ops: list[FileOperation]
    ) -> None:
        digest = hashlib.sha256(f"{name}\0{revision}\0{sha}".encode()).hexdigest()[:32]
        self.pending.append(
            {
                "kind": "changes",
                "key": f"sync-{digest}",
                "changes": {"file": shown, "ops": ops},
                "at": time.time(),
            }
        )

    def commit(self, states: StateStore) -> None:
        """Spool what this pass found so far, then record it as taken in."""
        if self.pending:
            self.spool.append_many(self.pending)
            for entry in self.pending:
                self.report.keys.append(entry["key"])
                self.report.operations += entry_size(entry)
            self.pending = []
        if self.dirty:  # a watch's pass over unchanged files writes nothing
            states.save(self.state)
            self.dirty = False
        for tracked in self.transcripts_read:
            remember_offset(self.offsets, tracked)
        self.transcripts_read = []
        for read in self.stores_read:
            hand_over(self.spool.folder, read)
        self.stores_read = []


def _draft(note: Note, key: str, project: str | None, dated: datetime | None) -> DraftFields:
    kind = note_type(note.headings)
    draft: DraftFields = {
        "content": note.text,
        "tags": note_tags(note.headings),
        "project": project,
        "source": unit_source(key, note.line, note.sha),
    }
    if kind is not None:
        draft["type"] = kind.value
    if dated is not None:
        draft["episode_start"] = dated.isoformat()
    return draft


def _date_in(name: str) -> datetime | None:
    """The day a daily log (`2026-11-24.md`) is about, at local midnight."""
    match = _DATED.search(name)
    if match is None:
        return None
    try:
        year, month, day = (int(part) for part in match.groups())
        return datetime(year, month, day).astimezone()
    except ValueError:
        return None


def _shown(path: Path) -> str:
    """A path as a person reads it: under the home folder as `~/…`."""
    try:
        return f"~/{path.relative_to(Path.home()).as_posix()}"
    except ValueError:
        return path.as_posix()
