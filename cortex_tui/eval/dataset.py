"""Loading eval datasets (format: shared eval FORMAT.md) with errors that name the spot.

A dataset that cannot be read is a user error with exit code 2 and a message naming the
file, the line (for JSON syntax and JSONL) and the field.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from cortex_tui.errors import InvalidInputError
from cortex_tui.eval.locomo import is_locomo, locomo_datasets
from cortex_tui.eval.longmemeval import is_longmemeval, longmemeval_datasets, question_ids
from cortex_tui.eval.pairs_dataset import PairsDataset
from cortex_tui.eval.sessions_dataset import (
    SessionsDataset,
    first_error,
    is_sessions_corpus,
    load_sessions,
    names_in,
    pick_sessions,
)
from cortex_tui.models import MemoryType, Scope, UtcDatetime
from cortex_tui.untrusted.files import MIB, read_whole

DATASET_LIMIT = 512 * MIB
"""Largest dataset file read (LoCoMo's ten conversations are 2.8 MB, LongMemEval-S's 500
haystacks 277 MB)."""


class DatasetMemory(BaseModel):
    model_config = ConfigDict(extra="ignore")

    label: str = Field(min_length=1)
    content: str = Field(min_length=1)
    type: MemoryType | None = None
    scope: Scope | None = None
    project: str | None = None
    tags: list[str] = Field(default_factory=list)
    confidence: float | None = Field(default=None, ge=0, le=1)
    created_at: UtcDatetime | None = None
    last_accessed: UtcDatetime | None = None
    access_count: int = Field(default=0, ge=0)
    reinforced_count: int = Field(default=0, ge=0)
    importance: float | None = Field(default=None, ge=0, le=1)
    session_id: str | None = None
    turn: int | None = Field(default=None, ge=0)
    speaker: str | None = None
    ttl_hours: float | None = Field(default=None, gt=0)
    source: str = "eval"


class DatasetQuery(BaseModel):
    model_config = ConfigDict(extra="ignore")

    query: str = Field(min_length=1)
    project: str | None = None
    type: list[MemoryType] | None = None
    tags: list[str] | None = None
    k: int = Field(default=5, ge=1)
    relevant: list[str] = Field(default_factory=list)
    first: str | None = None
    forbidden: list[str] = Field(default_factory=list)
    category: str | None = Field(default=None, min_length=1)

    @field_validator("type", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class DatasetExpect(BaseModel):
    model_config = ConfigDict(extra="forbid")

    superseded: list[tuple[str, str]] = Field(default_factory=list)
    conflicts: list[list[str]] = Field(default_factory=list)
    duplicates: list[tuple[str, str]] = Field(default_factory=list)
    reinforced: list[str] = Field(default_factory=list)
    independent: list[tuple[str, str]] = Field(default_factory=list)


class Dataset(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str = Field(min_length=1)
    description: str = ""
    now: UtcDatetime
    ingest: Literal["write", "raw", "capture"] = "write"
    memories: list[DatasetMemory]
    queries: list[DatasetQuery] = Field(default_factory=list)
    expect: DatasetExpect = Field(default_factory=DatasetExpect)
    cutoffs: list[Annotated[int, Field(ge=1)]] = Field(
        default_factory=list, description="cut-offs reported when --k is not given"
    )
    apart: list[str] = Field(
        default_factory=list, description="query categories reported apart from the overall"
    )
    explain_misses: bool = Field(
        default=True, description="list each miss with its breakdown (slow on big benchmarks)"
    )
    notes: list[str] = Field(
        default_factory=list, description="what the loader changed or left out"
    )

    def check_labels(self) -> None:
        labels = [m.label for m in self.memories]
        seen: set[str] = set()
        for label in labels:
            if label in seen:
                raise InvalidInputError(f"dataset {self.name}: label {label!r} is used twice")
            seen.add(label)
        referenced = self._referenced_labels()
        unknown = sorted(referenced - seen)
        if unknown:
            raise InvalidInputError(
                f"dataset {self.name}: unknown label(s) {', '.join(unknown)} in queries/expect"
            )

    def _referenced_labels(self) -> set[str]:
        refs: set[str] = set()
        for q in self.queries:
            refs.update(q.relevant, q.forbidden)
            if q.first:
                refs.add(q.first)
        e = self.expect
        for pair in (*e.superseded, *e.duplicates, *e.independent):
            refs.update(pair)
        for group in e.conflicts:
            refs.update(group)
        refs.update(e.reinforced)
        return refs


AnyDataset = Dataset | PairsDataset | SessionsDataset


def load_datasets(
    paths: list[Path], only: Sequence[str] = (), transcripts: Path | None = None
) -> list[AnyDataset]:
    """Every dataset in the files and folders given; with `only`, just those names (for
    a sessions corpus also its sessions' ids and parts; an entry that is a file stands
    for the names it lists, one a line). `transcripts`: where a sessions corpus finds
    the transcripts it does not ship."""
    picked = expand_only(only) if only else None
    loaded = _Loaded()
    for path in paths:
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix in (".json", ".jsonl"))
            if not files:
                raise InvalidInputError(f"{path} holds no .json or .jsonl dataset files")
            for file in files:
                _load_file(file, loaded, transcripts, picked)
        elif path.exists():
            _load_file(path, loaded, transcripts, picked)
        else:
            raise InvalidInputError(f"{path} does not exist; give a dataset file or folder")
    return _pick(loaded, picked) if picked is not None else loaded.datasets


def expand_only(only: Sequence[str]) -> list[str]:
    """`--only`'s names, each entry that is an existing file replaced by the names it
    lists: the first word of each line, blank lines and `#` comments skipped (the shape
    of `longmemeval-dev-questions.txt`, ids followed by their type)."""
    names: list[str] = []
    for entry in only:
        path = Path(entry).expanduser()
        if not path.is_file():
            names.append(entry)
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInputError(f"--only {entry}: cannot read it ({exc})") from None
        listed = [line.split()[0] for line in text.splitlines() if line.strip() and line[0] != "#"]
        if not listed:
            raise InvalidInputError(f"--only {entry}: the file lists no names, one a line")
        names.extend(listed)
    return list(dict.fromkeys(names))


class _Loaded:
    """Datasets read so far, and every name `--only` may pick (a LongMemEval file's
    questions are converted only when picked, but all of them are names)."""

    def __init__(self) -> None:
        self.datasets: list[AnyDataset] = []
        self.names: set[str] = set()

    def add(self, datasets: list[AnyDataset]) -> None:
        self.datasets.extend(datasets)
        for d in datasets:
            self.names.add(d.name)
            if isinstance(d, SessionsDataset):
                self.names |= names_in(d)


def _pick(loaded: _Loaded, only: Sequence[str]) -> list[AnyDataset]:
    unknown = [name for name in only if name not in loaded.names]
    if unknown:
        names = sorted(loaded.names)
        shown = ", ".join(names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20 else "")
        raise InvalidInputError(
            f"--only names no dataset called {', '.join(unknown[:10])}"
            f"{' …' if len(unknown) > 10 else ''}; these are: {shown}"
        )
    picked: list[AnyDataset] = []
    for d in loaded.datasets:
        if d.name in only:
            picked.append(d)
        elif isinstance(d, SessionsDataset):
            sessions = pick_sessions(d, set(only))
            if sessions is not None:
                picked.append(sessions)
    return picked


def _load_file(
    path: Path, loaded: _Loaded, transcripts: Path | None, only: Sequence[str] | None
) -> None:
    data = read_whole(
        path, limit=DATASET_LIMIT, what="dataset", fix="split it into several dataset files"
    )
    try:
        text = data.decode("utf-8-sig")  # tolerate a byte-order mark
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{path} is not UTF-8 text (byte {exc.start})") from None
    if path.suffix == ".jsonl":
        # Lines end at \n only: str.splitlines() would also split inside JSON strings at
        # U+2028/U+2029 and other separators that chat exports carry unescaped.
        loaded.add(
            [
                _validate(_decode(line, path, number), f"{path}:{number}")
                for number, line in enumerate(text.split("\n"), 1)
                if line.strip()
            ]
        )
        return
    raw = _decode(text, path, None)
    del text, data  # LongMemEval-S: 277 MB of bytes and again as text, not needed now
    if is_sessions_corpus(raw):
        loaded.add([load_sessions(raw, path, transcripts)])
    elif is_locomo(raw):
        loaded.add([_validate(d, f"{path} ({d['name']})") for d in locomo_datasets(raw, path)])
    elif is_longmemeval(raw):
        loaded.names.update(question_ids(raw))
        converted = longmemeval_datasets(raw, path, None if only is None else set(only))
        loaded.add([_validate(d, f"{path} ({d['name']})") for d in converted])
    elif isinstance(raw, list):
        raise InvalidInputError(
            f"{path} holds a JSON list; a dataset file holds one dataset object "
            "(or LoCoMo's locomo10.json: a list of conversations with qa; or a LongMemEval "
            "file: a list of questions with haystack_sessions)"
        )
    else:
        loaded.add([_validate(raw, str(path))])


def _decode(text: str, path: Path, line: int | None) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"{path}:{line}" if line else f"{path}:{exc.lineno}"
        raise InvalidInputError(f"{where}: invalid JSON ({exc.msg}, column {exc.colno})") from None


def _validate(raw: Any, where: str) -> AnyDataset:
    """A retrieval dataset, or a pairs dataset when it says `"kind": "pairs"`."""
    pairs = isinstance(raw, dict) and raw.get("kind") == "pairs"
    try:
        if pairs:
            return PairsDataset.model_validate(raw)
        dataset = Dataset.model_validate(raw)
    except ValidationError as exc:
        raise InvalidInputError(f"{where}: {first_error(exc, 'dataset')}") from None
    dataset.check_labels()
    return dataset
