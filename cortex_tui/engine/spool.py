"""A durable spool of captured turns: written (and fsynced) before the hook returns.

Capture runs after the append; whoever captures an entry marks it done. An entry not
marked done is replayed later, and each turn has an idempotency key, so a crash loses
nothing and nothing is captured twice. A file lock serialises hook processes.
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
                for name in (ENTRIES, DONE):
                    (self.folder / name).unlink(missing_ok=True)

    def _entries(self) -> list[dict[str, Any]]:
        path = self.folder / ENTRIES
        if not path.exists():
            return []
        entries = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by a crash mid-write: its turn was never acknowledged
            if isinstance(entry, dict) and isinstance(entry.get("key"), str):
                entries.append(entry)
        return entries

    def _done(self) -> set[str]:
        path = self.folder / DONE
        return set(path.read_text(encoding="utf-8").split()) if path.exists() else set()


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
