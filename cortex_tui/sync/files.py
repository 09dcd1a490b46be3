"""Which files sync reads, and reading one without letting it hurt.

Under a folder: notes (`.md`, `.markdown`), transcripts (`.jsonl`, Claude Code's and
OpenClaw's before 2026.9) and OpenClaw's session stores (`openclaw-agent.sqlite`),
hidden and dependency folders not walked. A file named on the command line may also be
a `.txt` of notes. A file that cannot be taken in (unreadable, binary, too large,
another kind) is skipped with one line saying why and what to do; nothing stored from
it is touched.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from cortex_tui.errors import InvalidInputError
from cortex_tui.indexer.sources import SKIPPED_FOLDERS
from cortex_tui.untrusted.files import MIB, read_regular, read_whole

Kind = Literal["notes", "transcript", "openclaw"]

NOTES_SUFFIXES = frozenset({".md", ".markdown"})
NAMED_NOTES_SUFFIXES = NOTES_SUFFIXES | {".txt"}
TRANSCRIPT_SUFFIXES = frozenset({".jsonl"})
OPENCLAW_STORE = "openclaw-agent.sqlite"
"""The file OpenClaw (2026.9 on) keeps an agent's sessions in."""
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")
"""Files SQLite writes beside a database: a change to one is a change to it."""
NOTES_LIMIT = 16 * MIB
"""Largest notes file taken in: notes are KBs; a file this big is generated output."""
_SNIFF = 8192


@dataclass(frozen=True, slots=True)
class Skipped(Exception):
    """A file left out, and why (one line, with the way out)."""

    path: Path
    why: str

    def __str__(self) -> str:
        return f"skipped {self.path}: {self.why}"


def kind_of(path: Path, *, named: bool) -> Kind | None:
    """What a file is to sync by its name; `named` when the user gave it explicitly."""
    if path.name == OPENCLAW_STORE:
        return "openclaw"
    suffix = path.suffix.lower()
    if suffix in TRANSCRIPT_SUFFIXES:
        return "transcript"
    if suffix in (NAMED_NOTES_SUFFIXES if named else NOTES_SUFFIXES):
        return "notes"
    return None


def database_of(path: Path) -> Path:
    """The database a SQLite companion file belongs to; any other path as it is."""
    for companion in SQLITE_COMPANIONS:
        if path.name.endswith(companion):
            return path.with_name(path.name.removesuffix(companion))
    return path


def walk(folder: Path) -> list[tuple[Path, Kind]]:
    """Notes, transcripts and session stores under `folder`, in path order."""
    found: list[tuple[Path, Kind]] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS)
        for name in sorted(files):
            path = Path(root, name)
            kind = None if name.startswith(".") else kind_of(path, named=False)
            if kind is not None:
                found.append((path, kind))
    return found


def read_notes(path: Path) -> bytes:
    """The whole notes file; `Skipped` when it is unreadable, too large or binary."""
    try:
        data = read_whole(path, limit=NOTES_LIMIT, what="notes file", fix="split it to sync it")
    except InvalidInputError as exc:
        raise Skipped(path, _reason(str(exc), path)) from None
    if b"\0" in data[:_SNIFF]:
        raise Skipped(path, "a binary file, not notes; leave it out of the synced paths")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Skipped(
            path, f"not UTF-8 text (byte {exc.start}); save it as UTF-8 to sync it"
        ) from None
    return data


def check_transcript(path: Path) -> None:
    """`Skipped` when a transcript cannot be read or is not text."""
    try:
        head = read_regular(path, limit=_SNIFF, what="transcript").data
    except InvalidInputError as exc:
        raise Skipped(path, _reason(str(exc), path)) from None
    if b"\0" in head:
        raise Skipped(path, "a binary file, not a JSONL transcript")


def _reason(message: str, path: Path) -> str:
    """The reader's message without the path it starts with (the caller names it)."""
    for what in ("notes file", "transcript"):
        for lead in (f"{what} {path} ", f"cannot read {what} {path}: "):
            if message.startswith(lead):
                return message[len(lead) :]
    return message
