"""Where a value is kept: every file under a folder, read as bytes (and every member of
every zip archive: backups are deflated), and every payload the store returns (its page
files are compressed, so only the store itself can say what they hold).

A value of several lines (a private key) is looked for line by line as well: stored as
JSON, its line breaks are escaped, and a part of it is as much a leak."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

LINE_CHARS = 16
ZEROS = bytes(4096)
"""A run of NUL bytes no needle can lie across: an embedded store's files are mostly
such runs (preallocated pages), and squeezing each to one NUL keeps every match while
the search reads a few MB instead of hundreds."""


def needles(value: str) -> list[str]:
    """`value`, each of its lines long enough to be its own, and the start and end of
    each: what a redaction that stopped short of a value's whole would leave behind."""
    lines = [line for line in value.splitlines() if len(line) >= LINE_CHARS]
    ends = [piece for line in lines for piece in (line[:LINE_CHARS], line[-LINE_CHARS:])]
    return list(dict.fromkeys([value, *lines, *ends]))


def fragments(value: str, size: int = 10) -> list[str]:
    """Every run of `size` characters of `value`'s lines: for text checks, where no
    piece of a secret may be left (too many for a search of every file)."""
    lines = [line.strip() for line in value.splitlines() if len(line.strip()) >= size]
    return list(
        dict.fromkeys(line[i : i + size] for line in lines for i in range(len(line) - size + 1))
    )


def files_holding(root: Path, values: Iterable[str]) -> dict[str, list[str]]:
    """Each value found, with the files (and archive members) that hold it."""
    wanted = {value: [n.encode() for n in needles(value)] for value in values}
    assert not any(b"\0" in raw for raws in wanted.values() for raw in raws)
    found: dict[str, list[str]] = {}
    for path, raw_data in _contents(root):
        data = b"\0".join(raw_data.split(ZEROS)) if ZEROS in raw_data else raw_data
        for value, raws in wanted.items():
            if any(raw in data for raw in raws):
                found.setdefault(value, []).append(path)
    return found


def payloads_holding(home: Path, values: Iterable[str]) -> dict[str, list[str]]:
    """Each value found in a stored point's payload (every collection, every field: a
    memory's index context too), with the collections that hold it."""
    from cortex_tui.config import load_settings
    from cortex_tui.embed.hashing import HashingEmbedder
    from cortex_tui.engine.open import open_engine
    from cortex_tui.store.base import COLLECTIONS

    wanted = {value: needles(value) for value in values}
    engine = open_engine(load_settings(home), embedder=HashingEmbedder())
    found: dict[str, list[str]] = {}
    try:
        for collection in COLLECTIONS:
            for point in engine.store.points(collection):
                texts = list(_strings(point.payload))
                for value, parts in wanted.items():
                    if any(part in text for text in texts for part in parts):
                        found.setdefault(value, []).append(collection)
    finally:
        engine.close()
    return found


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _contents(root: Path) -> Iterable[tuple[str, bytes]]:
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        where = str(path.relative_to(root))
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                for member in archive.namelist():
                    yield f"{where}:{member}", archive.read(member)
        else:
            yield where, _data_of(path)


def _data_of(path: Path) -> bytes:
    """A file's bytes, its holes (space a sparse file never wrote) left out, each as one
    NUL: a hole holds nothing, and an embedded store's files are mostly holes."""
    parts = []
    with path.open("rb") as handle:
        end = os.fstat(handle.fileno()).st_size
        at = 0
        while at < end:
            try:
                start = os.lseek(handle.fileno(), at, os.SEEK_DATA)
            except OSError:  # no data after `at`
                break
            at = os.lseek(handle.fileno(), start, os.SEEK_HOLE)
            handle.seek(start)
            parts.append(handle.read(at - start))
    return b"\0".join(parts)
