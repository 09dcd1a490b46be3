"""The turn archive as a recall channel (`cortex_tui/archive/`): the archived messages
that bear on a query, each quoted by its sentences nearest it.

It ranks messages, not memories, so it runs beside the memory channels rather than among
them (`CHANNELS`): a quote never moves a memory's score. Its messages are searched as
memories are — their own vectors and BM25 over their words, each completed for what the
other found, and read by their best sentence — and each is weighed on the gate's
absolute evidence (`recall/gate.py`) with its length besides: a quote is given only when
it clears `archive.min_relevance` by itself, higher than a memory's floor, since an
archive holds far more than the memories and more of it looks close by chance.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
from rapidfuzz import fuzz

from cortex_tui.config import ArchiveConfig
from cortex_tui.embed.base import Matrix
from cortex_tui.models import GateEvidence, Memory, Quote, RecallResult
from cortex_tui.recall.gate import gate_evidence, logistic
from cortex_tui.recall.gate_calibration import CosineScale
from cortex_tui.store.base import MemoryFilter, Store

LENGTH_WEIGHT = 0.5
LENGTH_REFERENCE = 100
"""A message's length weighs in its evidence (`_with_length`): on the development probes,
at a floor that gives 9 of 173 unrelated prompts a quote, 55 needed labels were quoted
against 47 without it, more in 4 of the 6 repositories and fewer in none (the floors'
curve: `tests/data/sessions/archive_probe.py`)."""
MIN_LENGTH = 10
MAX_LENGTH = 100_000
"""A message's length is read between these (a longer one counts as `MAX_LENGTH`, which
bounds what length can add, as `_ranked` reads it)."""
DERIVED_SIMILARITY = 85.0
"""A given memory this close to a quote (rapidfuzz's ratio of the two texts, 0–100) was
taken from that sentence: the memory wins over its own quote. A memory of one sentence
of a longer quote is not: the quote says more."""


@dataclass(frozen=True, slots=True)
class ArchiveQuery:
    text: str
    vector: Matrix
    filter: MemoryFilter
    floor: float
    """The relevance the request asks of what it is given (a quote also needs the
    archive's own `min_relevance`)."""


class ArchiveChannel:
    def __init__(
        self,
        config: ArchiveConfig,
        scale: Callable[[], CosineScale],
        part_texts: Callable[[str], list[str]],
        shown: Callable[[Memory], Memory] = lambda record: record,
    ) -> None:
        """`shown`: the privacy step's read guard, as for memories (an archive written
        before a secret's kind was known is quoted without it)."""
        self._config = config
        self._scale = scale
        self._part_texts = part_texts
        self._shown = shown

    def quotes(
        self, store: Store, query: ArchiveQuery, given: Sequence[RecallResult]
    ) -> list[Quote]:
        """The archive's messages that bear on the query, best first, each quoted by its
        sentences nearest the query: at most `max_quotes`, none a given memory was
        taken from."""
        floor = max(query.floor, self._config.min_relevance)
        ranked = self._ranked(store, query, floor)
        over = [(i, gate) for i, gate in ranked if gate.relevance >= floor]
        wanted = self._config.max_quotes
        chosen: list[Quote] = []
        # Read in steps of the quotes still wanted: a given memory drops few of them.
        start = 0
        while len(chosen) < wanted and start < len(over):
            step = over[start : start + wanted - len(chosen)]
            start += len(step)
            for quote in self._quoted(store, step, query.vector):
                if not any(_derived(result.memory, quote.text) for result in given):
                    chosen.append(quote)
        return chosen

    def search(self, store: Store, query: ArchiveQuery, limit: int) -> list[Quote]:
        """The archive's messages for the query, best first, whatever they bear (a person
        searching asks for the closest, not only for what clears the gate)."""
        return self._quoted(store, self._ranked(store, query, 0.0)[:limit], query.vector)

    def _ranked(
        self, store: Store, query: ArchiveQuery, floor: float
    ) -> list[tuple[str, GateEvidence]]:
        """The candidates of both searches, each completed for what the other found,
        by relevance; those that cannot reach `floor` whatever their length are left
        out before any text is read (most of a prompt about nothing's)."""
        archive = store.archive
        wanted = self._config.candidates
        cosines = dict(archive.search_ids(query.vector, query.filter, wanted))
        lexical = dict(archive.search_lexical_ids(query.text, query.filter, wanted))
        ids = list(dict.fromkeys([*cosines, *lexical]))
        if not ids:
            return []
        cosines.update(archive.cosines(query.vector, [i for i in ids if i not in cosines]))
        lexical.update(archive.lexical_scores(query.text, [i for i in ids if i not in lexical]))
        # A quote is its sentences, so its best sentence counts in full (a memory's
        # counts `part_weight`, as it stands for the whole memory).
        parts = archive.part_cosines(query.vector, ids) if store.indexes_parts else {}
        scale = self._scale()
        reachable = _logit(floor) - LENGTH_WEIGHT * math.log(MAX_LENGTH / LENGTH_REFERENCE)
        found: list[tuple[str, GateEvidence]] = []
        for record_id in ids:
            cosine = max(cosines.get(record_id, 0.0), parts.get(record_id, -1.0))
            gate = gate_evidence(cosine, scale(cosine), lexical.get(record_id), None)
            if sum(gate.parts.values()) >= reachable:
                found.append((record_id, gate))
        lengths = {row["id"]: len(row["content"]) for row in _contents(archive, found)}
        evidence = [(i, _with_length(gate, lengths.get(i, 0))) for i, gate in found]
        evidence.sort(key=lambda pair: (-pair[1].relevance, pair[0]))
        return evidence

    def _quoted(
        self, store: Store, ranked: Sequence[tuple[str, GateEvidence]], vector: Matrix
    ) -> list[Quote]:
        archive = store.archive
        records = {m.id: self._shown(m) for m in archive.get_memories([i for i, _ in ranked])}
        excerpts = self._excerpts(archive, list(records.values()), vector)
        quotes: list[Quote] = []
        for rank, (record_id, gate) in enumerate(ranked, 1):
            record = records.get(record_id)
            if record is not None:
                text = excerpts.get(record_id) or _cut(record.content, self._config.quote_chars)
                quotes.append(_quote(record, text, rank, gate))
        return quotes

    def _excerpts(self, archive: Store, records: list[Memory], vector: Matrix) -> dict[str, str]:
        """Each record's sentences nearest the query, as many as `quote_chars` holds, in
        the order they were said (records of one sentence have no parts: they are
        quoted whole)."""
        query = np.asarray(vector, dtype=np.float32)
        found: dict[str, str] = {}
        by_id = {record.id: record for record in records}
        for record_id, parts in archive.get_parts(list(by_id)).items():
            texts = self._part_texts(by_id[record_id].content)
            if len(texts) == len(parts):  # else split by other settings: quoted whole
                nearest = np.argsort(-(np.asarray(parts, np.float32) @ query), kind="stable")
                found[record_id] = _excerpt(texts, [int(i) for i in nearest], self._config)
        return found


def _excerpt(texts: list[str], nearest: list[int], config: ArchiveConfig) -> str:
    """The sentences taken nearest first while they fit, in their order; " … " where
    some were left out between two."""
    budget = config.quote_chars
    chosen: list[int] = []
    used = 0
    for index in nearest:
        length = len(texts[index]) + 1
        if chosen and used + length > budget:
            continue
        chosen.append(index)
        used += length
    chosen.sort()
    pieces = [_cut(texts[chosen[0]], budget)]
    for before, index in pairwise(chosen):
        pieces.append(" " if index == before + 1 else " … ")
        pieces.append(texts[index])
    return "".join(pieces)


def _contents(archive: Store, found: Sequence[tuple[str, GateEvidence]]) -> list[Mapping[str, Any]]:
    """The candidates' texts alone (a page of payload fields, no models)."""
    if not found:
        return []
    flt = MemoryFilter(ids=[i for i, _ in found], current_only=False, statuses=None)
    return list(archive.scan_memories(flt, ("id", "content")))


def _logit(share: float) -> float:
    """The log-odds of a relevance (−inf for none)."""
    if share <= 0.0:
        return -math.inf
    return math.log(share / (1.0 - share)) if share < 1.0 else math.inf


def _with_length(gate: GateEvidence, chars: int) -> GateEvidence:
    """The evidence with the message's length as one more piece of it: of two messages
    as close to the prompt, the one with more to say is the likelier to hold what it
    needs (`LENGTH_WEIGHT` × ln(characters / `LENGTH_REFERENCE`))."""
    length = LENGTH_WEIGHT * math.log(min(max(chars, MIN_LENGTH), MAX_LENGTH) / LENGTH_REFERENCE)
    parts = {**gate.parts, "length": length}
    return gate.model_copy(update={"parts": parts, "relevance": logistic(sum(parts.values()))})


def _quote(record: Memory, text: str, rank: int, gate: GateEvidence) -> Quote:
    return Quote(
        id=record.id,
        text=text,
        speaker=record.speaker,
        session_id=record.session_id,
        turn=record.turn,
        project=record.project,
        said_at=record.created_at,
        rank=rank,
        gate=gate,
    )


def _derived(memory: Memory, quote: str) -> bool:
    return fuzz.ratio(memory.content.lower(), quote.lower()) >= DERIVED_SIMILARITY


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0] + "…"
