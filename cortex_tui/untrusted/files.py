"""Reading a file whose path came from input without letting it hang or exhaust us.

A path in a hook event or on a command line can name anything: a named pipe (an open
blocks until a writer appears, and a service worker stuck there never comes back), a
device such as `/dev/zero` (a read never ends), or a regular file far larger than any
transcript. Every reader of such a path goes through here: the open never blocks, only
regular files are read, and no read takes more than the caller's limit. Only bytes that
`fstat` reported are read, so a file that keeps growing is read up to its size at the
open and the rest is left for the next call. Standard library only: the hook imports it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from cortex_tui.errors import InvalidInputError

MIB = 1024 * 1024
_SCAN_PIECE = MIB

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class FileSlice:
    """`data` read from byte `start` of a file that held `size` bytes when it was opened
    (a plain class: the post hook reads transcripts, and `dataclasses` costs it ~15 ms)."""

    __slots__ = ("data", "size", "start")

    def __init__(self, data: bytes, start: int, size: int) -> None:
        self.data = data
        self.start = start
        self.size = size

    @property
    def end(self) -> int:
        return self.start + len(self.data)

    @property
    def reaches_end(self) -> bool:
        return self.end >= self.size


def read_regular(path: Path | str, *, limit: int, start: int = 0, what: str = "file") -> FileSlice:
    """At most `limit` bytes from `start` (nothing when `start` is at or past the end).

    Raises `InvalidInputError` naming the problem when the path is missing, unreadable
    or not a regular file.
    """
    fd = _open_regular(Path(path), what)
    try:
        size = os.fstat(fd).st_size
        start = max(0, start)
        return FileSlice(_pread(fd, min(limit, max(0, size - start)), start), start, size)
    finally:
        os.close(fd)


def read_tail(path: Path | str, *, limit: int, what: str = "file") -> FileSlice:
    """The last `limit` bytes (the whole file when it is smaller)."""
    fd = _open_regular(Path(path), what)
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - limit)
        return FileSlice(_pread(fd, size - start, start), start, size)
    finally:
        os.close(fd)


def read_whole(path: Path | str, *, limit: int, what: str, fix: str) -> bytes:
    """The whole file, or `InvalidInputError` when it is larger than `limit`; `fix` says
    what to do instead (e.g. "split it into smaller files")."""
    chunk = read_regular(path, limit=limit, what=what)
    if not chunk.reaches_end:
        raise InvalidInputError(
            f"{what} {path} is {chunk.size / MIB:.1f} MB, over the {limit / MIB:.0f} MB "
            f"limit; {fix}"
        )
    return chunk.data


def next_line_start(path: Path | str, start: int, *, what: str = "file") -> int | None:
    """The offset just past the first newline at or after `start`, or None when the file
    has none there. Scans in fixed pieces, so a line of any length costs no memory."""
    fd = _open_regular(Path(path), what)
    try:
        size = os.fstat(fd).st_size
        position = max(0, start)
        while position < size:
            piece = _pread(fd, min(_SCAN_PIECE, size - position), position)
            if not piece:
                return None
            newline = piece.find(b"\n")
            if newline >= 0:
                return position + newline + 1
            position += len(piece)
        return None
    finally:
        os.close(fd)


def _open_regular(path: Path, what: str) -> int:
    """A read-only descriptor of a regular file. O_NONBLOCK makes opening a named pipe
    return at once instead of waiting for a writer; it changes nothing for a regular
    file, and anything else is refused before a byte is read."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InvalidInputError(f"{what} {path} does not exist; check the path") from None
    except OSError as exc:
        raise InvalidInputError(
            f"cannot read {what} {path}: {exc.strerror or exc}; check the path and its permissions"
        ) from None
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode):
        return fd
    os.close(fd)
    kind = next((name for test, name in _KINDS if test(mode)), "a special file")
    raise InvalidInputError(f"{what} {path} is {kind}, not a regular file; give the path of a file")


def _pread(fd: int, count: int, offset: int) -> bytes:
    pieces: list[bytes] = []
    while count > 0:
        piece = os.pread(fd, count, offset)
        if not piece:
            break  # the file shrank since fstat
        pieces.append(piece)
        count -= len(piece)
        offset += len(piece)
    return b"".join(pieces)
