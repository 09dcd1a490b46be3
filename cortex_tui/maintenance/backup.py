"""Backups: a whole store in one file, and reading it back.

A backup is a zip archive, so any zip tool can list it and every member carries a CRC
that reading checks:

    manifest.json           `BackupInfo`: when and why it was taken, which embedder
                            made the vectors, how many points of each collection
    memories.jsonl          one point per line, deflated:
                            {"payload": {...}, "vectors": ["context", "dense"], "parts": 3}
    memories.dense.f32      the points' vectors of that name, one row of little-endian
    memories.context.f32    float32 per point that lists the name, in line order; stored
                            as they are (vectors do not compress; deflating them doubled
                            the time of a backup for 3 % of its size)
    memories.parts.f32      a memory's part vectors, as many rows as its line's "parts"
                            says (none when absent: a memory of one sentence, or a
                            backup from before parts)
    entities.jsonl, entities.dense.f32, relations.jsonl, journal.jsonl

Payloads are kept exactly as the store holds them (a journal entry's order and a
memory's index context included), vectors bit for bit, so a restore embeds nothing and
gets back the same scores. Lexical vectors are left out: they derive from the payload
and are made anew by the version that restores. Since every payload keeps its text, a
backup also survives a change of model: restore it, then `cortex-tui reembed`.

A backup is consistent when nothing writes while it is taken: the service runs it as a
write, so captures and curation wait for it. It is written to a hidden file beside the
target, fsynced and renamed into place, so a crash leaves no partial backup.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Literal, Protocol

import numpy as np
from pydantic import BaseModel, ValidationError

from cortex_tui.errors import InvalidInputError
from cortex_tui.private import open_private, private_dir
from cortex_tui.store.base import COLLECTIONS, StoredPoint, StoreMeta

SUFFIX = ".cortex-backup"
MANIFEST = "manifest.json"
MANUAL = "manual"
ROWS = ".f32"
PARTS_ROWS = "parts"
_BROKEN = (zipfile.BadZipFile, OSError, EOFError, zlib.error)
"""What reading a damaged member raises (a CRC mismatch, a cut deflate stream)."""
Progress = Callable[[int, int], None]


class BackupInfo(BaseModel):
    format: Literal["cortex-backup"] = "cortex-backup"
    version: Literal[1] = 1
    created_at: datetime
    reason: str
    """"manual", or what an automatic backup was taken before ("before lifecycle")."""
    store: str
    embedder: str
    dimension: int
    counts: dict[str, int]

    @property
    def automatic(self) -> bool:
        return self.reason != MANUAL


class BackupReport(BaseModel):
    path: str
    info: BackupInfo
    bytes: int
    seconds: float


def file_name(created_at: datetime, reason: str, suffix: str = SUFFIX) -> str:
    """Sortable by time, saying why: `20261125T190203123456Z-before-lifecycle.cortex-backup`."""
    slug = re.sub(r"[^a-z0-9]+", "-", reason.lower()).strip("-") or MANUAL
    return f"{created_at.strftime('%Y%m%dT%H%M%S%fZ')}-{slug}{suffix}"


class PointSource(Protocol):
    """What a backup is taken from: a store, or what is readable of a damaged one."""

    @property
    def location(self) -> str: ...

    @property
    def meta(self) -> StoreMeta: ...

    def points(self, collection: str) -> Iterator[StoredPoint]: ...


def write_backup(store: PointSource, target: Path, *, reason: str, now: datetime) -> BackupReport:
    """Write every point of `store` to `target` (replaced if it exists)."""
    started = time.perf_counter()
    folder = target.parent
    if not folder.is_dir():
        raise InvalidInputError(
            f"folder {folder} does not exist; create it or give a path in an existing folder"
        )
    temp = folder / f".{target.name}.partial"
    counts: dict[str, int] = {}
    try:
        with (
            open_private(temp, "wb") as raw,
            zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as out,
        ):
            for collection in COLLECTIONS:
                counts[collection] = _write_collection(
                    out, collection, store.points(collection), folder
                )
            info = BackupInfo(
                created_at=now,
                reason=reason,
                store=store.location,
                embedder=store.meta.embedder,
                dimension=store.meta.dimension,
                counts=counts,
            )
            out.writestr(MANIFEST, info.model_dump_json(indent=2))
        _sync(temp)
        os.replace(temp, target)
        _sync(folder)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    seconds = round(time.perf_counter() - started, 3)
    return BackupReport(path=str(target), info=info, bytes=target.stat().st_size, seconds=seconds)


def read_info(path: Path) -> BackupInfo:
    """The manifest of the backup at `path`, refusing anything that is not one."""
    with _open(path) as archive:
        return _info(archive, path)


def read_points(path: Path, progress: Progress | None = None) -> Iterator[tuple[str, StoredPoint]]:
    """(collection, point) for every point of the backup, checking each member's CRC
    and that it holds as many points as the manifest says."""
    with _open(path) as archive:
        info = _info(archive, path)
        total, done = sum(info.counts.values()), 0
        for collection in COLLECTIONS:
            if collection not in info.counts:
                continue  # a backup made before the store had it (the turn archive)
            found = 0
            for point in _collection_points(archive, collection, info.dimension * 4, path):
                yield collection, point
                found += 1
                done += 1
                if progress and done % 256 == 0:
                    progress(done, total)
            expected = info.counts.get(collection, 0)
            if found != expected:
                raise InvalidInputError(
                    f"backup {path} is damaged: {collection}.jsonl holds {found} points where "
                    f"its manifest says {expected}"
                )
        if progress:
            progress(done, total)


def list_backups(folder: Path) -> list[tuple[Path, BackupInfo]]:
    """The readable backups in `folder`, oldest first (unreadable files are skipped)."""
    found = []
    for path in folder.glob(f"*{SUFFIX}"):
        try:
            found.append((path, read_info(path)))
        except InvalidInputError:
            continue
    return sorted(found, key=lambda item: item[1].created_at)


def prune_automatic(folder: Path, keep: int, *, spare: Path | None = None) -> list[Path]:
    """Remove all but the newest `keep` automatic backups in `folder`, and never `spare`
    (a backup being restored); manual backups stay until their owner removes them."""
    kept = spare.resolve() if spare is not None else None
    automatic = [
        path for path, info in list_backups(folder) if info.automatic and path.resolve() != kept
    ]
    removed = automatic[: max(0, len(automatic) - keep)]
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def default_target(folder: Path, now: datetime, reason: str) -> Path:
    return private_dir(folder) / file_name(now, reason)


# --- the archive ------------------------------------------------------------------------


def _write_collection(
    out: zipfile.ZipFile, collection: str, points: Iterator[StoredPoint], folder: Path
) -> int:
    """The collection's JSONL member, then one member per vector name. A zip takes one
    member at a time, so the rows wait in unnamed temporary files (created 0600) beside
    the backup."""
    rows: dict[str, IO[bytes]] = {}
    count = 0
    with contextlib.ExitStack() as held:
        with out.open(f"{collection}.jsonl", "w", force_zip64=True) as member:
            for point in points:
                names = sorted(point.vectors)
                written = [(name, [point.vectors[name]]) for name in names]
                if point.parts:
                    written.append((PARTS_ROWS, point.parts))
                for name, vectors in written:
                    if name not in rows:
                        rows[name] = held.enter_context(tempfile.TemporaryFile(dir=folder))
                    rows[name].write(np.asarray(vectors, dtype="<f4").tobytes())
                record: dict[str, Any] = {"payload": point.payload, "vectors": names}
                if point.parts:
                    record[PARTS_ROWS] = len(point.parts)
                member.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
                count += 1
        for name, kept in rows.items():
            kept.seek(0)
            entry = zipfile.ZipInfo(f"{collection}.{name}{ROWS}")
            entry.compress_type = zipfile.ZIP_STORED
            with out.open(entry, "w", force_zip64=True) as member:
                shutil.copyfileobj(kept, member, 1 << 20)
    return count


def _collection_points(
    archive: zipfile.ZipFile, collection: str, width: int, path: Path
) -> Iterator[StoredPoint]:
    """The points of one collection, each line's vectors read from the rows members in
    step with the lines."""
    rows: dict[str, IO[bytes]] = {}
    with contextlib.ExitStack() as held:
        for number, line in enumerate(_member_lines(archive, collection, path), 1):
            where = f"{path}: {collection}.jsonl line {number}"
            payload, names, part_count = _record(line, where)
            read: dict[str, list[list[float]]] = {}
            wanted = [(name, 1) for name in names]
            if part_count:
                wanted.append((PARTS_ROWS, part_count))
            for name, count in wanted:
                if name not in rows:
                    member = _member(archive, f"{collection}.{name}{ROWS}", path)
                    rows[name] = held.enter_context(member)
                block = _read(rows[name], width * count, path)
                if len(block) != width * count:
                    raise InvalidInputError(f"{where}: its {name} vector is missing (damaged)")
                read[name] = np.frombuffer(block, dtype="<f4").reshape(count, -1).tolist()
            vectors = {name: read[name][0] for name in names}
            yield StoredPoint(payload, vectors, read.get(PARTS_ROWS, []))
        for name, stream in rows.items():  # reading to the end checks the member's CRC
            if _read(stream, 1, path):
                raise InvalidInputError(
                    f"backup {path} is damaged: {collection}.{name}{ROWS} holds more rows "
                    "than its points"
                )


def _record(line: bytes, where: str) -> tuple[dict[str, Any], list[str], int]:
    """A line's payload, its vector names and how many part vectors it has."""
    try:
        record = json.loads(line)
        payload, names = record["payload"], record["vectors"]
        parts = record.get(PARTS_ROWS, 0)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InvalidInputError(f"{where} is damaged ({type(exc).__name__}: {exc})") from None
    if not isinstance(payload, dict) or not isinstance(names, list):
        raise InvalidInputError(f"{where} is damaged (not a point)")
    if type(parts) is not int or parts < 0 or PARTS_ROWS in names:
        raise InvalidInputError(f"{where} is damaged (its part count)")
    return payload, [str(name) for name in names], parts


def _member(archive: zipfile.ZipFile, name: str, path: Path) -> IO[bytes]:
    try:
        return archive.open(name)
    except KeyError:
        raise InvalidInputError(f"backup {path} is damaged: {name} is missing") from None


def _read(stream: IO[bytes], size: int, path: Path) -> bytes:
    try:
        return stream.read(size)
    except _BROKEN as exc:
        raise InvalidInputError(f"backup {path} is damaged: {exc}") from None


def _member_lines(archive: zipfile.ZipFile, collection: str, path: Path) -> Iterator[bytes]:
    name = f"{collection}.jsonl"
    try:
        with archive.open(name) as member:
            for line in member:
                if line.strip():
                    yield line
    except KeyError:
        raise InvalidInputError(f"backup {path} is damaged: {name} is missing") from None
    except _BROKEN as exc:
        raise InvalidInputError(f"backup {path} is damaged: {name}: {exc}") from None


def _open(path: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError:
        raise InvalidInputError(
            f"no backup at {path}; `cortex-tui backup --list` shows them"
        ) from None
    except IsADirectoryError:
        raise InvalidInputError(f"{path} is a folder; give a backup file") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise InvalidInputError(f"{path} is not a cortex-tui backup ({exc})") from None


def _info(archive: zipfile.ZipFile, path: Path) -> BackupInfo:
    try:
        return BackupInfo.model_validate_json(archive.read(MANIFEST))
    except KeyError:
        raise InvalidInputError(f"{path} is not a cortex-tui backup (no {MANIFEST})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or MANIFEST
        raise InvalidInputError(
            f"{path} is not a backup this version reads ({MANIFEST} {where}: {first['msg']})"
        ) from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise InvalidInputError(f"backup {path} is damaged: {MANIFEST}: {exc}") from None


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
