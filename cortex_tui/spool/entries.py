"""What the spool's lines hold, as types for mypy: a conversation turn, a memory an MCP
client asked to remember, or the operations file sync found in a notes file; and the
progress recorded while one is captured.

Imported for type checking only where the hook runs (`spool/durable.py` and the modules the
hook imports guard it with `TYPE_CHECKING`): a `TypedDict` is a plain dict at run time,
so the lines are read and written as JSON with nothing converted. A line read back is
one of these once `durable.py`'s checks (`_as_entry`, `_as_progress`) accept it.

An entry is a tagged union: `kind` says which, and `match entry["kind"]` is how code
tells them apart (mypy narrows the entry by it). Entries spooled by earlier versions,
without the tag, get it when they are read.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, final

DraftFields = dict[str, Any]
"""A `MemoryDraft` as JSON (`model_dump(mode="json")`): the link does not load pydantic."""
CandidateFields = dict[str, Any]
"""An extracted `Candidate` as JSON."""


class TurnEntry(TypedDict):
    """A conversation turn to capture; `source` names where it was read when not a hook
    (file sync's transcripts), and `said_at` when it was said where that was long before
    it was spooled (a transcript's line, in seconds since the epoch). A team server's
    spool leaves out the fields a member did not send."""

    kind: Literal["turn"]
    key: str
    text: str
    project: NotRequired[str | None]
    session_id: NotRequired[str | None]
    at: float
    source: NotRequired[str]
    said_at: NotRequired[float]


class DraftEntry(TypedDict):
    """A memory to remember as it is: an MCP `remember` while the store was out of
    reach."""

    kind: Literal["draft"]
    key: str
    draft: DraftFields
    at: float


class FileOperation(TypedDict):
    """One statement of a notes file: added or edited (`draft`), or retired (`was`: the
    source of the memory it read before)."""

    op: str
    was: NotRequired[str]
    draft: NotRequired[DraftFields]


class FileChanges(TypedDict):
    file: str
    ops: list[FileOperation]


class ChangesEntry(TypedDict):
    """What file sync found in one notes file, applied in batches."""

    kind: Literal["changes"]
    key: str
    changes: FileChanges
    at: float


SpoolEntry = TurnEntry | DraftEntry | ChangesEntry


def entry_size(entry: SpoolEntry) -> int:
    """The work in a spooled entry: a file's statements, else one turn or draft."""
    match entry["kind"]:
        case "changes":
            return len(entry["changes"]["ops"]) or 1
        case "turn" | "draft":
            return 1


@final  # so that `"candidates" in record` tells the two apart for mypy
class CandidatesRecord(TypedDict):
    """A turn's extracted candidates, kept once so a replay does not extract again."""

    key: str
    candidates: list[CandidateFields]


@final
class WrittenRecord(TypedDict):
    """One candidate (or, for a file's changes, one batch) of a turn written."""

    key: str
    written: int


ProgressRecord = CandidatesRecord | WrittenRecord
