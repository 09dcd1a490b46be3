"""The records on disk: `$CORTEX_HOME/injections/` (`segments.FOLDER`), JSON lines in
numbered segments.

Appended a whole line per write, so a crash halfway leaves at most one torn last line,
which reading skips (and the next append starts on a line of its own). A segment is
closed at a tenth of the size limit and compressed (a record is mostly score breakdowns,
whose repeated names gzip well: ~20 KB a prompt becomes a few); the compressed copy
replaces it by a rename, so a crash leaves one whole copy or the other. Whole segments
are dropped, oldest first, past the size limit, and once their newest record is older
than the age limit. Reading filters by age too, so a lowered limit holds at once. Files
are private like the rest of the home; one lock file keeps two processes' appends and
prunes apart.
"""

from __future__ import annotations

import gzip
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path

from pydantic import ValidationError

from cortex_tui.config import InjectionsConfig
from cortex_tui.given.record import GivenRecord
from cortex_tui.given.segments import (
    COMPRESSED,
    PLAIN,
    append_line,
    current_segment,
    locked,
    number_of,
    segment_path,
    segments,
)
from cortex_tui.private import open_private

SEGMENT_SHARE = 10
"""A segment is closed at this fraction of the size limit: dropping one frees a tenth."""
MIN_SEGMENT_BYTES = 16 * 1024
TAIL_BYTES = 64 * 1024
"""Bytes read from a segment's end to find its newest record's time."""


class GivenLog:
    def __init__(
        self, folder: Path, config: InjectionsConfig, clock: Callable[[], datetime]
    ) -> None:
        self.folder = folder
        self.config = config
        self._clock = clock
        self._lock = threading.Lock()
        self._pruned = False

    @property
    def max_bytes(self) -> int:
        return int(self.config.max_mb * 1024 * 1024)

    @property
    def segment_bytes(self) -> int:
        return max(MIN_SEGMENT_BYTES, self.max_bytes // SEGMENT_SHARE)

    def append(self, record: GivenRecord) -> None:
        """Keep `record` (nothing when the records are turned off)."""
        if not self.config.enabled:
            return
        line = (record.model_dump_json(exclude_none=True, exclude_defaults=True) + "\n").encode()
        with self._locked():
            segment = current_segment(self.folder)
            if segment.exists() and segment.stat().st_size + len(line) > self.segment_bytes:
                _compress(segment)
                segment = segment_path(self.folder, number_of(segment) + 1)
                self._prune(keep=segment)
            elif not self._pruned:
                self._prune(keep=segment)
            append_line(segment, line)

    def newest(
        self,
        *,
        session: str | None = None,
        agent: str | None = None,
        limit: int = 50,
        before: datetime | None = None,
    ) -> list[GivenRecord]:
        """Records newest first: of one session (an id or a start of it) or agent, only
        those before `before`, at most `limit`; none older than the age limit."""
        oldest = self._oldest_kept()
        found: list[GivenRecord] = []
        for record in self._backwards():
            if record.at < oldest:
                break
            if before is not None and record.at >= before:
                continue
            if session is not None and not (record.session or "").startswith(session):
                continue
            if agent is not None and record.agent != agent:
                continue
            found.append(record)
            if len(found) >= limit:
                break
        return found

    def find(self, injection_id: str) -> GivenRecord | None:
        """The record with this id (or the one id starting so), within the age limit."""
        oldest = self._oldest_kept()
        for record in self._backwards():
            if record.at < oldest:
                return None
            if record.id.startswith(injection_id):
                return record
        return None

    def size(self) -> int:
        """Bytes the records take on disk."""
        return sum(path.stat().st_size for path in segments(self.folder))

    # --- files -----------------------------------------------------------------------

    def _backwards(self) -> Iterator[GivenRecord]:
        for segment in reversed(segments(self.folder)):
            for line in reversed(_lines(segment)):
                if record := _parsed(line):
                    yield record

    def _oldest_kept(self) -> datetime:
        return self._clock() - timedelta(days=self.config.keep_days)

    def _prune(self, keep: Path) -> None:
        """Drop the segments past the age limit, then the oldest past the size limit;
        `keep` (the one about to be written) stays."""
        self._pruned = True
        oldest = self._oldest_kept()
        closed = [path for path in segments(self.folder) if path != keep]
        for path in list(closed):
            newest = _newest_time(path)
            if newest is not None and newest >= oldest:
                break
            _drop(path)
            closed.remove(path)
        # The segment written grows to `segment_bytes`: the others keep the rest.
        others = sum(path.stat().st_size for path in closed)
        while closed and others > self.max_bytes - self.segment_bytes:
            dropped = closed.pop(0)
            others -= dropped.stat().st_size
            _drop(dropped)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self._lock, locked(self.folder):
            yield


def _lines(segment: Path) -> list[bytes]:
    """A segment's lines; none when another process pruned it meanwhile."""
    try:
        data = segment.read_bytes()
    except FileNotFoundError:
        return []
    if segment.name.endswith(COMPRESSED):
        data = gzip.decompress(data)
    return data.split(b"\n")


def _compress(segment: Path) -> None:
    """Replace a closed segment by its compressed copy (written aside, then renamed in)."""
    target = segment.with_name(f"{segment.name}.gz")
    aside = segment.with_name(f".{target.name}.partial")
    with open_private(aside, "wb") as out:
        out.write(gzip.compress(segment.read_bytes(), compresslevel=6))
        out.flush()
        os.fsync(out.fileno())
    os.replace(aside, target)
    segment.unlink()


def _drop(segment: Path) -> None:
    """A segment gone, with a plain copy a crash may have left beside a compressed one."""
    segment.unlink(missing_ok=True)
    segment.with_name(f"{number_of(segment):06d}.{PLAIN}").unlink(missing_ok=True)


def _parsed(line: bytes) -> GivenRecord | None:
    """A record, or None for an empty or torn line (a crash during its write)."""
    if not line.strip():
        return None
    try:
        return GivenRecord.model_validate_json(line)
    except ValidationError:
        return None


def _newest_time(path: Path) -> datetime | None:
    """The time of the newest whole record in `path` (None: none could be read)."""
    if path.name.endswith(COMPRESSED):
        lines = _lines(path)
    else:
        try:
            with path.open("rb") as handle:
                end = handle.seek(0, os.SEEK_END)
                handle.seek(max(0, end - TAIL_BYTES))
                lines = handle.read().split(b"\n")
        except FileNotFoundError:
            return None
    for line in reversed(lines):
        if record := _parsed(line):
            return record.at
    return None
