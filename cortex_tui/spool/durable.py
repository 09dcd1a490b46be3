"""A durable spool of captured turns: written (and fsynced) before the hook returns.
A memory that an MCP client asked to remember while the store was out of reach waits
here too, as an entry holding the draft instead of the turn's text, and so do the
changes file sync found in a notes file (an entry holding `changes`).

Capture runs after the append; whoever captures an entry marks it done. An entry not
marked done is replayed later, and each turn has an idempotency key, so a crash loses
nothing. Progress inside a turn is spooled too (`TurnProgress`): the extracted candidates
once, then each candidate as it is written, so a replay writes only what is left. The
service captures many turns at once and marks them done together once their writes are
durable; its replay finds what a crash left stored of a turn among its session's latest
memories and writes only the rest (`LocalEngine.write_capture`).
A file lock serialises hook processes and the service. Standard library only: the hook
imports it on every turn.

The files are read as damage can leave them (power loss, a full disk): line by line, so
a line that does not parse (cut mid-write, a multi-byte character torn in half, not a
record) is moved to `quarantine/<file>` with a log line and never blocks the lines after
it; and every append starts on a fresh line, so a torn tail cannot swallow the next turn.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from contextlib import contextmanager
from pathlib import Path

from cortex_tui.private import open_private, private_dir
from cortex_tui.untrusted.text import clean_json_loads

ENTRIES = "turns.jsonl"
DONE = "done.txt"
PROGRESS = "progress.jsonl"
QUARANTINE = "quarantine"
REFUSED = "refused.jsonl"

TYPE_CHECKING = False  # the hook process does not import `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any, TypeVar

    from cortex_tui.log_protocol import Log
    from cortex_tui.spool.entries import CandidateFields, ProgressRecord, SpoolEntry

    Record = dict[str, Any]
    """A line as parsed, before its shape is checked."""
    Checked = TypeVar("Checked")


def turn_key(session_id: str | None, text: str) -> str:
    return hashlib.sha256(f"{session_id or ''}\0{text}".encode()).hexdigest()[:32]


class Spool:
    def __init__(self, folder: Path, log: Log) -> None:
        self.folder = folder
        self.log = log

    @contextmanager
    def _locked(self) -> Iterator[None]:
        private_dir(self.folder)
        with open_private(self.folder / ".lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def append(self, entry: SpoolEntry) -> bool:
        """Add an entry (it must carry a `key`); False when that key is already spooled."""
        return self.append_many([entry]) == 1

    def append_many(self, entries: Sequence[SpoolEntry]) -> int:
        """Add entries in order with one read and one fsync (file sync spools a whole
        backlog at once); those whose key is already spooled are left out. Returns how
        many were added."""
        with self._locked():
            known = {e["key"] for e in self._entries()} | self._done()
            lines = []
            for entry in entries:
                if entry["key"] not in known:
                    known.add(entry["key"])
                    lines.append(json.dumps(entry, ensure_ascii=False))
            if lines:
                _append_line(self.folder / ENTRIES, "\n".join(lines))
            return len(lines)

    def quarantined(self) -> int:
        """Lines moved aside so far (all files): what `status` and tests report."""
        folder = self.folder / QUARANTINE
        if not folder.is_dir():
            return 0
        return sum(len(f.read_bytes().splitlines()) for f in folder.iterdir() if f.is_file())

    def pending(self) -> list[SpoolEntry]:
        with self._locked():
            done = self._done()
            return [e for e in self._entries() if e["key"] not in done]

    def mark_done(self, key: str) -> None:
        self.mark_done_many([key])

    def mark_done_many(self, keys: list[str]) -> None:
        """Record `keys` as captured with one fsync; when nothing is left pending, start
        both files over."""
        if not keys:
            return
        with self._locked():
            _append_line(self.folder / DONE, "\n".join(keys))
            done = self._done()
            if len(done) < _line_count(self.folder / ENTRIES):
                return  # something is pending: skip parsing every entry to find out
            if all(e["key"] in done for e in self._entries()):
                for name in (ENTRIES, DONE, PROGRESS):
                    (self.folder / name).unlink(missing_ok=True)

    def compact(self) -> int:
        """Drop the entries already captured (and their progress) while others wait:
        a turn's text stays on disk no longer than its capture, even when a turn after
        it keeps failing. Once per drain (it reads every entry); how many it dropped."""
        with self._locked():
            done = self._done()
            entries = self._records(ENTRIES, _as_entry)
            left = [e for e in entries if e["key"] not in done]
            if len(left) == len(entries):
                return 0
            _replace_lines(
                self.folder / ENTRIES, [json.dumps(e, ensure_ascii=False).encode() for e in left]
            )
            progress = self._records(PROGRESS, _as_progress)
            _replace_lines(
                self.folder / PROGRESS,
                [
                    json.dumps(r, ensure_ascii=False).encode()
                    for r in progress
                    if r["key"] not in done
                ],
            )
            return len(entries) - len(left)

    def refuse(self, entry: SpoolEntry, reason: str) -> None:
        """Set aside an entry that can never be stored (too large for a limit set since
        it was spooled, say): kept with the reason in `quarantine/refused.jsonl`, then
        marked done, so it is neither lost nor retried for ever."""
        folder = self.folder / QUARANTINE
        with self._locked():
            private_dir(folder)
            _append_line(
                folder / REFUSED, json.dumps({**entry, "refused": reason}, ensure_ascii=False)
            )
        self.mark_done(entry["key"])
        self.log.warning(
            "spool: set %s aside in %s/%s: %s", entry["key"][:8], QUARANTINE, REFUSED, reason
        )

    def rewrite(self, line: Callable[[bytes], bytes], *, write: bool = True) -> list[str]:
        """Pass every line the spool keeps (entries, progress, quarantine) through
        `line`, under the lock, each file replaced whole; the files it changed, or would
        change when not `write` (`scrub` redacts a spool written before the privacy
        step)."""
        changed = []
        with self._locked():
            quarantine = self.folder / QUARANTINE
            kept = sorted(quarantine.iterdir()) if quarantine.is_dir() else []
            for path in [self.folder / ENTRIES, self.folder / PROGRESS, *kept]:
                if not path.is_file():
                    continue
                before = [raw for raw in path.read_bytes().split(b"\n") if raw.strip()]
                after = [line(raw) for raw in before]
                if after != before:
                    if write:
                        _replace_lines(path, after)
                    changed.append(str(path.relative_to(self.folder)))
        return changed

    def progress(self, key: str) -> TurnProgress:
        return TurnProgress(self, key)

    def _record_progress(self, record: ProgressRecord) -> None:
        with self._locked():
            _append_line(self.folder / PROGRESS, json.dumps(record, ensure_ascii=False))

    def _progress_of(self, key: str) -> list[ProgressRecord]:
        with self._locked():
            records: list[ProgressRecord] = self._records(PROGRESS, _as_progress)
            return [r for r in records if r["key"] == key]

    def _entries(self) -> list[SpoolEntry]:
        return self._records(ENTRIES, _as_entry)

    def _done(self) -> set[str]:
        """Keys marked done; a torn key is just a string no entry has."""
        path = self.folder / DONE
        if not path.exists():
            return set()
        return set(path.read_bytes().decode("ascii", errors="replace").split())

    def _records(self, name: str, valid: Callable[[Record], Checked | None]) -> list[Checked]:
        """The file's valid records, as `valid` reads them; any other line is quarantined
        (under the lock)."""
        path = self.folder / name
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return []
        records: list[Checked] = []
        kept: list[bytes] = []
        bad: list[bytes] = []
        for line in data.split(b"\n"):
            if not line.strip():
                continue
            record = _parse(line)
            checked = valid(record) if record is not None else None
            if checked is not None:
                records.append(checked)
                kept.append(line)
            else:
                bad.append(line)
        if bad:
            self._quarantine(name, bad, kept)
        return records

    def _quarantine(self, name: str, bad: list[bytes], kept: list[bytes]) -> None:
        """Append `bad` to quarantine/<name> first, then rewrite the file with `kept`: a
        crash in between leaves a line in both places, never in neither."""
        folder = self.folder / QUARANTINE
        private_dir(folder)
        with open_private(folder / name, "ab") as handle:
            handle.write(b"".join(line + b"\n" for line in bad))
            handle.flush()
            os.fsync(handle.fileno())
        _replace_lines(self.folder / name, kept)
        self.log.warning(
            "spool: moved %d unreadable line(s) of %s to %s/%s (a write cut short?)",
            len(bad),
            name,
            QUARANTINE,
            name,
        )


class TurnProgress:
    """How far the capture of one spooled turn got (see the module docstring)."""

    def __init__(self, spool: Spool, key: str) -> None:
        self._spool = spool
        self._key = key
        records = spool._progress_of(key)
        self._candidates: list[CandidateFields] | None = next(
            (r["candidates"] for r in records if "candidates" in r), None
        )
        self._written = {r["written"] for r in records if "written" in r}

    @property
    def written(self) -> int:
        """How many candidates (or, for a file's changes, batches) are written."""
        return len(self._written)

    def saved_candidates(self) -> list[CandidateFields] | None:
        return self._candidates

    def save_candidates(self, candidates: list[CandidateFields]) -> None:
        self._spool._record_progress({"key": self._key, "candidates": candidates})
        self._candidates = candidates

    def is_written(self, index: int) -> bool:
        return index in self._written

    def mark_written(self, index: int) -> None:
        self._spool._record_progress({"key": self._key, "written": index})
        self._written.add(index)


def _parse(line: bytes) -> Record | None:
    try:
        record = clean_json_loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None  # UnicodeDecodeError is a ValueError: a torn multi-byte character
    return record if isinstance(record, dict) and isinstance(record.get("key"), str) else None


ENTRY_KINDS = (("turn", "text", str), ("draft", "draft", dict), ("changes", "changes", dict))
"""Each kind of entry, the field that holds what it carries, and that field's type."""


def _as_entry(record: Record) -> SpoolEntry | None:
    """A turn's text, a draft to remember, or a file's changes (file sync), tagged with
    its kind; an entry an earlier version wrote has no tag and gets the one its fields
    say. Anything else is not an entry."""
    for kind, field, shape in ENTRY_KINDS:
        if record.get("kind", kind) == kind and isinstance(record.get(field), shape):
            record["kind"] = kind
            return record  # type: ignore[return-value]  # its shape was checked above
    return None


def _line_count(path: Path) -> int:
    """Non-empty lines: at least the number of entries (torn lines count too)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return 0
    return sum(1 for line in data.split(b"\n") if line.strip())


def _as_progress(record: Record) -> ProgressRecord | None:
    if isinstance(record.get("candidates"), list) or isinstance(record.get("written"), int):
        return record  # type: ignore[return-value]  # its shape was checked above
    return None


def _append_line(path: Path, line: str) -> None:
    """Append `line` on a line of its own, even after a tail a crash left unfinished."""
    with open_private(path, "a+b") as handle:
        if handle.seek(0, os.SEEK_END) > 0:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":
                handle.write(b"\n")
        handle.write(line.encode("utf-8") + b"\n")
        handle.flush()
        os.fsync(handle.fileno())


def _replace_lines(path: Path, lines: list[bytes]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open_private(tmp, "wb") as handle:
        handle.write(b"".join(line + b"\n" for line in lines))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


class Offsets:
    """How far each session's transcript has been captured (byte offset), per session."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def get(self, session: str) -> int:
        try:
            return int(json.loads((self.folder / f"{session}.json").read_text())["offset"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0

    def set(self, session: str, offset: int) -> None:
        private_dir(self.folder)
        target = self.folder / f"{session}.json"
        tmp = target.with_suffix(".tmp")
        with open_private(tmp, "w") as handle:
            json.dump({"offset": offset}, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
