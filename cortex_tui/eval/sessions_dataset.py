"""Sessions datasets: real agent sessions, and the memories a careful reader would keep.

A corpus file (`"kind": "sessions"`) lists sessions with where each came from (repository,
path, commit, licence) and which part of the corpus it is in (development or held out);
each session's labels are in `labels/<id>.json` beside it, its transcript (Claude Code's
JSONL) in `transcripts/<id>.jsonl` when its licence lets it ship, else in the folder
given with `--transcripts`. The labelling guide: `tests/data/sessions/LABELLING.md`.
"""

from __future__ import annotations

import json
import re
from functools import cached_property
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from cortex_tui.errors import InvalidInputError
from cortex_tui.eval.probes_dataset import PROBES_FOLDER, RepositoryProbes
from cortex_tui.untrusted.files import MIB, read_whole

LabelType = Literal[
    "decision", "rule", "preference", "fact", "environment", "procedure", "lesson", "episode"
]
LABEL_TYPES: tuple[LabelType, ...] = (
    "decision",
    "rule",
    "preference",
    "fact",
    "environment",
    "procedure",
    "lesson",
    "episode",
)
Split = Literal["dev", "held-out"]
Model = TypeVar("Model", bound=BaseModel)
TRANSCRIPT_LIMIT = 64 * MIB
LABELS_LIMIT = 4 * MIB


class SessionLabel(BaseModel):
    """One durable memory the session holds, and the words a memory stating it has."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    type: LabelType
    core: bool
    turn: int = Field(ge=1)
    text: str = Field(min_length=1)
    english: str | None = Field(
        default=None, description="the label in English, when the session is in another language"
    )
    match: list[list[str]] = Field(min_length=1)

    @field_validator("match")
    @classmethod
    def _groups(cls, groups: list[list[str]]) -> list[list[str]]:
        if any(not group or any(not alt.strip() for alt in group) for group in groups):
            raise ValueError("every keyword group needs at least one non-empty word")
        return groups

    @model_validator(mode="after")
    def _matches_itself(self) -> SessionLabel:
        """A memory that says what the label says, in the label's words, must match."""
        if not self.matches(self.text):
            raise ValueError(f"label {self.id}: its keyword groups do not match its own text")
        return self

    @cached_property
    def _patterns(self) -> list[re.Pattern[str]]:
        return [
            re.compile("|".join(_word_start(alt.strip()) for alt in group), re.I)
            for group in self.match
        ]

    def matches(self, text: str) -> bool:
        """Every keyword group has one of its words in `text`, where a word starts."""
        return all(pattern.search(text) for pattern in self._patterns)


class CandidateLabel(BaseModel):
    """A sentence as capture would see it, marked keep or drop by the reader."""

    model_config = ConfigDict(extra="forbid")

    turn: int = Field(ge=1)
    role: Literal["user", "assistant"]
    text: str = Field(min_length=1)
    keep: bool
    label: str | None = None
    why: str | None = None


class SessionLabels(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    labels: list[SessionLabel] = Field(min_length=1)
    candidates: list[CandidateLabel] = Field(default_factory=list)


class SessionSource(BaseModel):
    """Where a session comes from: enough to fetch it again and to credit it."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    repo: str = Field(min_length=3)
    path: str = Field(min_length=1)
    commit: str = Field(pattern=r"^[0-9a-f]{40}$")
    licence: str = Field(min_length=1)
    split: Split
    kind_of_work: str = ""
    shipped: bool = Field(description="its transcript is in the corpus's transcripts/ folder")


class SessionsCorpus(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["sessions"]
    name: str = Field(min_length=1)
    description: str = ""
    sessions: list[SessionSource] = Field(min_length=1)


class Session:
    """One session of a corpus, its labels read, its transcript found (or why not)."""

    def __init__(self, source: SessionSource, labels: SessionLabels, transcript: Path | None):
        self.source = source
        self.labels = labels
        self.transcript = transcript

    @property
    def name(self) -> str:
        return self.source.id

    def transcript_lines(self) -> list[bytes]:
        if self.transcript is None:
            raise InvalidInputError(f"session {self.name}: no transcript")
        data = read_whole(
            self.transcript, limit=TRANSCRIPT_LIMIT, what="transcript", fix="use a shorter session"
        )
        return [line for line in data.split(b"\n") if line.strip()]


class SessionsDataset:
    """A corpus's sessions, those `--only` chose (by session id or part: dev, held-out)."""

    def __init__(
        self,
        corpus: SessionsCorpus,
        sessions: list[Session],
        probes: dict[str, RepositoryProbes] | None = None,
    ) -> None:
        self.corpus = corpus
        self.sessions = sessions
        self.probes = probes or {}
        """Each repository's probes, by repository (none when the corpus has none)."""

    @property
    def name(self) -> str:
        return self.corpus.name

    def missing(self) -> list[Session]:
        return [s for s in self.sessions if s.transcript is None]


def _word_start(word: str) -> str:
    """`word` where a word starts: after no letter or digit of the Latin alphabet (a
    keyword in Chinese or Korean matches inside a sentence, which has no spaces)."""
    return rf"(?<![A-Za-z0-9_]){re.escape(word)}"


def is_sessions_corpus(raw: object) -> bool:
    return isinstance(raw, dict) and raw.get("kind") == "sessions"


def load_sessions(raw: object, path: Path, transcripts: Path | None) -> SessionsDataset:
    """The corpus in `raw` (read from `path`), with each session's labels and transcript."""
    try:
        corpus = SessionsCorpus.model_validate(raw)
    except ValidationError as exc:
        raise InvalidInputError(f"{path}: {first_error(exc, 'corpus')}") from None
    ids = [s.id for s in corpus.sessions]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise InvalidInputError(f"{path}: session id(s) {', '.join(twice)} listed twice")
    folder = path.parent
    sessions = [
        Session(s, _labels(folder, s.id), _transcript(folder, s, transcripts))
        for s in corpus.sessions
    ]
    return SessionsDataset(corpus, sessions, _probes(folder / PROBES_FOLDER, sessions))


def pick_sessions(dataset: SessionsDataset, only: set[str]) -> SessionsDataset | None:
    """The sessions `only` names (by id, or a part: `dev`, `held-out`); None for none."""
    chosen = [s for s in dataset.sessions if s.name in only or s.source.split in only]
    return SessionsDataset(dataset.corpus, chosen, dataset.probes) if chosen else None


def names_in(dataset: SessionsDataset) -> set[str]:
    return {s.name for s in dataset.sessions} | {s.source.split for s in dataset.sessions}


def _read(path: Path, model: type[Model], what: str, *, fix: str) -> Model:
    """A labels or probes file, or one line naming what is wrong with it."""
    data = read_whole(path, limit=LABELS_LIMIT, what=what, fix=fix)
    try:
        return model.model_validate(json.loads(data.decode("utf-8")))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"{path}: not valid JSON ({exc})") from None
    except ValidationError as exc:
        raise InvalidInputError(f"{path}: {first_error(exc, what)}") from None


def _labels(folder: Path, session_id: str) -> SessionLabels:
    path = folder / "labels" / f"{session_id}.json"
    if not path.is_file():
        raise InvalidInputError(f"{path} is missing: every session of a corpus needs its labels")
    labels = _read(path, SessionLabels, "labels", fix="split the session")
    if labels.id != session_id:
        raise InvalidInputError(f"{path}: its id is {labels.id!r}, the corpus says {session_id!r}")
    known = [label.id for label in labels.labels]
    if len(set(known)) != len(known):
        raise InvalidInputError(f"{path}: a label id is used twice")
    unknown = {c.label for c in labels.candidates if c.label} - set(known)
    if unknown:
        raise InvalidInputError(f"{path}: candidates name unknown label(s) {sorted(unknown)}")
    return labels


def _probes(folder: Path, sessions: list[Session]) -> dict[str, RepositoryProbes]:
    """Each repository's probes; a probe must name a core label of one of its sessions,
    each label once."""
    if not folder.is_dir():
        return {}
    core = {(s.name, label.id) for s in sessions for label in s.labels.labels if label.core}
    repo_of = {s.name: s.source.repo for s in sessions}
    found: dict[str, RepositoryProbes] = {}
    for path in sorted(folder.glob("*.json")):
        probes = _read(path, RepositoryProbes, "probes", fix="split the file")
        if probes.repo not in repo_of.values():
            raise InvalidInputError(f"{path}: no session of the corpus is from {probes.repo}")
        if probes.repo in found:
            raise InvalidInputError(f"{path}: {probes.repo} has probes in two files")
        seen: set[tuple[str, str]] = set()
        for probe in probes.probes:
            key = (probe.session, probe.label)
            if repo_of.get(probe.session) != probes.repo:
                raise InvalidInputError(
                    f"{path}: probe for {probe.session} {probe.label}: not a session of "
                    f"{probes.repo}"
                )
            if key not in core:
                raise InvalidInputError(
                    f"{path}: probe for {probe.session} {probe.label}: not a core label"
                )
            if key in seen:
                raise InvalidInputError(f"{path}: {probe.session} {probe.label} probed twice")
            seen.add(key)
        found[probes.repo] = probes
    return found


def _transcript(folder: Path, source: SessionSource, elsewhere: Path | None) -> Path | None:
    for place in (folder / "transcripts", elsewhere):
        if place is not None and (place / f"{source.id}.jsonl").is_file():
            return place / f"{source.id}.jsonl"
    return None


def first_error(exc: ValidationError, whole: str) -> str:
    """The first problem pydantic found, naming its field (`whole` when it is the
    object itself)."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or whole
    return f"field {where}: {first['msg']}"
