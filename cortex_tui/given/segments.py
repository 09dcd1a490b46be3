"""The given records' files: numbered segments of JSON lines under one lock.

Standard library only: the hook process itself appends the record of a prompt it gave
nothing because it gave up (`agent_turn/missed.py`), where importing the
records' models would cost it the time it no longer has. The log (`log.py`) adds
closing, compressing and pruning.
"""

from __future__ import annotations

import fcntl
import os

from cortex_tui.private import open_private, private_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from contextlib import AbstractContextManager
    from pathlib import Path

FOLDER = "injections"
"""The records' folder under `$CORTEX_HOME`. It keeps the name the records first had:
homes written before they were called "given" hold them there."""
PLAIN = "jsonl"
COMPRESSED = "jsonl.gz"
LOCK = ".lock"


def segments(folder: Path) -> list[Path]:
    """The segments, oldest first: one file each (a compressed copy wins over the plain
    file a crash left beside it)."""
    if not folder.is_dir():
        return []
    found: dict[int, Path] = {}
    for path in folder.iterdir():
        number, _, kind = path.name.partition(".")
        known = number.isdigit() and kind in (PLAIN, COMPRESSED)
        if known and (kind == COMPRESSED or int(number) not in found):
            found[int(number)] = path
    return [found[number] for number in sorted(found)]


def segment_path(folder: Path, number: int) -> Path:
    return folder / f"{number:06d}.{PLAIN}"


def number_of(path: Path) -> int:
    return int(path.name.partition(".")[0])


def current_segment(folder: Path) -> Path:
    """The segment the next record goes to: the newest, unless it is closed."""
    found = segments(folder)
    if not found:
        return segment_path(folder, 1)
    last = found[-1]
    return segment_path(folder, number_of(last) + 1) if last.name.endswith(COMPRESSED) else last


def append_line(segment: Path, line: bytes) -> None:
    """`line` (ending in a newline) at the segment's end, on a line of its own even
    after a write a crash cut short."""
    with open_private(segment, "a+b") as out:
        if ends_torn(out.fileno()):
            out.write(b"\n")
        out.write(line)


def ends_torn(fd: int) -> bool:
    """Whether the file's last byte is not a newline: a write a crash cut short."""
    end = os.lseek(fd, 0, os.SEEK_END)
    return end > 0 and os.pread(fd, 1, end - 1) != b"\n"


def locked(folder: Path) -> AbstractContextManager[None]:
    """The records' lock, across processes (the service's appends and prunes, a hook's
    missed record, `agent_turn/missed.py`)."""
    from contextlib import contextmanager

    @contextmanager
    def hold() -> Iterator[None]:
        private_dir(folder)
        with open_private(folder / LOCK, "a") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    return hold()
