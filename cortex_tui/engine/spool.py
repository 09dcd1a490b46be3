"""A durable spool of captured turns: written (and fsynced) before the hook returns.

Capture runs after the append; whoever captures an entry marks it done. An entry not
marked done is replayed later, and each turn has an idempotency key, so a crash loses
nothing. Progress inside a turn is spooled too (`TurnProgress`): the extracted candidates
once, then each candidate as it is written, so a replay writes only what is left. The
one remaining window is a crash between a candidate's write and its record: that one
candidate is written again and folds into itself as a reinforcement.
A file lock serialises hook processes and the service. Standard library only: the hook
imports it on every turn.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ENTRIES = "turns.jsonl"
DONE = "done.txt"
PROGRESS = "progress.jsonl"


def turn_key(session_id: str | None, text: str) -> str:
    return hashlib.sha256(f"{session_id or ''}\0{text}".encode()).hexdigest()[:32]


class Spool:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.folder.mkdir(parents=True, exist_ok=True)
        with (self.folder / ".lock").open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def append(self, entry: dict[str, Any]) -> bool:
        """Add an entry (it must carry a `key`); False when that key is already spooled."""
        with self._locked():
            if (
                any(e["key"] == entry["key"] for e in self._entries())
                or entry["key"] in self._done()
            ):
                return False
            _append_line(self.folder / ENTRIES, json.dumps(entry, ensure_ascii=False))
            return True

    def pending(self) -> list[dict[str, Any]]:
        with self._locked():
            done = self._done()
            return [e for e in self._entries() if e["key"] not in done]

    def mark_done(self, key: str) -> None:
        """Record `key` as captured; when nothing is left pending, start both files over."""
        with self._locked():
            _append_line(self.folder / DONE, key)
            done = self._done()
            if all(e["key"] in done for e in self._entries()):
                for name in (ENTRIES, DONE, PROGRESS):
                    (self.folder / name).unlink(missing_ok=True)

    def progress(self, key: str) -> TurnProgress:
        return TurnProgress(self, key)

    def _record_progress(self, record: dict[str, Any]) -> None:
        with self._locked():
            _append_line(self.folder / PROGRESS, json.dumps(record, ensure_ascii=False))

    def _progress_of(self, key: str) -> list[dict[str, Any]]:
        with self._locked():
            return [r for r in _read_records(self.folder / PROGRESS) if r["key"] == key]

    def _entries(self) -> list[dict[str, Any]]:
        return _read_records(self.folder / ENTRIES)

    def _done(self) -> set[str]:
        path = self.folder / DONE
        return set(path.read_text(encoding="utf-8").split()) if path.exists() else set()


class TurnProgress:
    """How far the capture of one spooled turn got (see the module docstring)."""

    def __init__(self, spool: Spool, key: str) -> None:
        self._spool = spool
        self._key = key
        records = spool._progress_of(key)
        self._candidates: list[dict[str, Any]] | None = next(
            (r["candidates"] for r in records if isinstance(r.get("candidates"), list)), None
        )
        self._written = {r["written"] for r in records if isinstance(r.get("written"), int)}

    def saved_candidates(self) -> list[dict[str, Any]] | None:
        return self._candidates

    def save_candidates(self, candidates: list[dict[str, Any]]) -> None:
        self._spool._record_progress({"key": self._key, "candidates": candidates})
        self._candidates = candidates

    def is_written(self, index: int) -> bool:
        return index in self._written

    def mark_written(self, index: int) -> None:
        self._spool._record_progress({"key": self._key, "written": index})
        self._written.add(index)


def _read_records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by a crash mid-write: it was never acknowledged
        if isinstance(record, dict) and isinstance(record.get("key"), str):
            records.append(record)
    return records


def _append_line(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
        handle.flush()
        os.fsync(handle.fileno())


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
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self.folder / f"{session}.json"
        tmp = target.with_suffix(".tmp")
        with tmp.open("w") as handle:
            json.dump({"offset": offset}, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
