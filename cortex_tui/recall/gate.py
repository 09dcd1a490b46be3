"""The relevance gate: whether a memory bears on a prompt at all, on absolute evidence.

Ranking orders a store's memories against each other, so something always comes first:
with max-normalised channels the best candidate of a prompt about nothing reads as a
perfect match. The gate asks another question — does this memory bear on the prompt? —
from evidence that does not depend on what else the store holds:

- the cosine the dense channel read, put on the reference model's scale
  (`gate_calibration.py`: cosines of two models do not line up);
- the words the two share, weighted by how rare they are (raw BM25, as log(1 + BM25));
- a name in common (an entity or speaker the query names, mentioned by the memory).

They add up to log-odds that the memory is needed, fitted on prompts that needed a
memory and prompts about nothing (`data/gate.json`, fitted by
`tests/data/sessions/fit_gate.py`); the relevance is their logistic, 0 to 1. A prompt
gets a block only when its best memory clears the floor; other memories join it when
they clear the companion floor, lower (a memory at least as likely needed as not). A
prompt nothing bears on gets no block at all.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

from pydantic import BaseModel, ConfigDict, Field

from cortex_tui.config import HooksConfig, RecallConfig
from cortex_tui.models import GateEvidence, HeldBack, RecallResult

GATE_FILE = "gate.json"
HELD_TEXT_CHARS = 160
ENTITY_HOPS = 1
"""A memory this near a name the query gives names it itself (or was said by it)."""
POOL_FACTOR = 3
"""The gate reads three times the results it may give (`gate_pool`). End to end on the
development probes, 30 for 10 gave the needed memory to 48 against 45 (session start
counted), at 11 unrelated prompts given anything against 10 (docs/measurements.md,
"What later sessions are given")."""


class GateWeights(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    cosine: float
    lexical: float
    entity: float
    base: float


class GateModel(BaseModel):
    """The fitted gate: its weights on the reference model's cosines, and its floors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    reference: str = Field(description="the embedder whose cosines the weights were fitted on")
    weights: GateWeights
    floor: float = Field(gt=0, lt=1, description="the relevance a prompt's best memory needs")
    companion_floor: float = Field(
        gt=0, lt=1, description="the relevance other memories need to join it"
    )
    fitted_on: dict[str, int] = Field(
        default_factory=dict, description="what the fit saw: prompts of each kind"
    )


@lru_cache(maxsize=1)
def gate_model() -> GateModel:
    text = files("cortex_tui.recall").joinpath("data", GATE_FILE).read_text()
    return GateModel.model_validate(json.loads(text))


@dataclass(frozen=True, slots=True)
class Floors:
    """The relevance a prompt's best memory needs, and what the others need to join."""

    floor: float
    companion: float

    @classmethod
    def of(cls, floor: float | None, companion: float | None) -> Floors:
        """The configured floors, the fitted ones where none is set; a companion floor
        never above the floor."""
        model = gate_model()
        chosen = model.floor if floor is None else floor
        joined = model.companion_floor if companion is None else companion
        return cls(chosen, min(joined, chosen))


def prompt_floor(recall: RecallConfig, hooks: HooksConfig) -> float | None:
    """The floor an agent's prompt is gated at (None: the gate is off, every prompt gets
    its top memories)."""
    return Floors.of(recall.gate_floor, None).floor if hooks.relevance_gate else None


def gate_evidence(
    cosine: float,
    calibrated_cosine: float,
    bm25: float | None,
    graph_hops: int | None,
    model: GateModel | None = None,
) -> GateEvidence:
    """The evidence that a memory bears on the query, part by part."""
    weights = (model or gate_model()).weights
    lexical = math.log1p(max(0.0, bm25 or 0.0))
    entity = graph_hops is not None and graph_hops <= ENTITY_HOPS
    parts = {
        "cosine": weights.cosine * calibrated_cosine,
        "words": weights.lexical * lexical,
        "entity": weights.entity if entity else 0.0,
        "base": weights.base,
    }
    return GateEvidence(
        relevance=logistic(sum(parts.values())),
        cosine=cosine,
        calibrated_cosine=calibrated_cosine,
        lexical=lexical,
        entity=entity,
        parts=parts,
    )


@dataclass(frozen=True, slots=True)
class Gated:
    given: list[RecallResult]
    held_back: list[HeldBack]


def gate_pool(limit: int) -> int:
    """Ranked results the gate reads to give at most `limit`: a memory that bears on the
    prompt below the first `limit` takes the place of one above it that does not."""
    return limit * POOL_FACTOR


def gate_reads(relevance: Sequence[float], floors: Floors, limit: int) -> list[int]:
    """The positions of a ranked pool `apply_gate` can give or hold back on the record:
    the first `limit`, the first `limit` over the companion floor, and the best. Only
    those need a full result (a breakdown each); the gate decides on them exactly as on
    the whole pool."""
    joining = [i for i, value in enumerate(relevance) if value >= floors.companion][:limit]
    chosen = set(range(min(limit, len(relevance)))) | set(joining)
    if relevance:
        chosen.add(max(range(len(relevance)), key=relevance.__getitem__))
    return sorted(chosen)


def apply_gate(results: Sequence[RecallResult], floors: Floors, limit: int) -> Gated:
    """The first `limit` results that bear on the query, in their order, and the others
    of the first `limit` ranks with why: none when the best of them all is under the
    floor, else those over the companion floor."""
    relevance = [_relevance(result) for result in results]
    best = max(relevance, default=0.0)
    opened = best >= floors.floor
    given: list[RecallResult] = []
    held: list[HeldBack] = []
    for result, value in zip(results, relevance, strict=True):
        if opened and value >= floors.companion:
            if len(given) < limit:
                given.append(result)
        elif result.rank <= limit:
            needed = floors.companion if opened else floors.floor
            held.append(_held(result, value, needed, opened, best))
    return Gated(given, held)


def _held(result: RecallResult, value: float, needed: float, opened: bool, best: float) -> HeldBack:
    evidence = result.breakdown.gate
    said = evidence.describe() if evidence is not None else "no evidence measured"
    if opened:
        reason = f"under the companion floor {needed:.2f}: {value:.2f} ({said})"
    else:
        reason = (
            f"nothing bore on the prompt: the best memory's relevance {best:.2f} is under "
            f"the floor {needed:.2f}; this one {value:.2f} ({said})"
        )
    memory = result.memory
    return HeldBack(
        id=memory.id,
        rank=result.rank,
        type=memory.type,
        text=memory.content[:HELD_TEXT_CHARS],
        relevance=value,
        floor=needed,
        reason=reason,
    )


def _relevance(result: RecallResult) -> float:
    evidence = result.breakdown.gate
    return evidence.relevance if evidence is not None else 0.0


def logistic(value: float) -> float:
    """Log-odds as a share, 0 to 1 (no overflow far out)."""
    if value < -60:
        return 0.0
    return 1.0 / (1.0 + math.exp(-value))
