"""The relevance gate: a query nothing bears on gets no memory, one that a memory bears on
gets it; every memory held back says why; and each embedding model's cosines are put on
the reference model's scale, calibrated once and kept."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.models import (
    GateEvidence,
    Memory,
    MemoryDraft,
    MemoryType,
    RecallResult,
    ScoreBreakdown,
)
from cortex_tui.recall import gate_calibration
from cortex_tui.recall.gate import Floors, apply_gate, gate_model, gate_pool, gate_reads
from cortex_tui.recall.request import RecallRequest
from tests.conftest import Cli

FACTS = [
    "The atlas API server listens on port 8443 behind the nginx gateway.",
    "Deploys to staging go through the release workflow in GitHub Actions.",
    "The nightly backup of the billing database runs at 02:00 UTC.",
    "Use pnpm, never npm, in the web repository.",
]


def _store(engine: LocalEngine) -> None:
    for fact in FACTS:
        engine.remember(MemoryDraft(content=fact, type=MemoryType.FACT))


def _gated(engine: LocalEngine, query: str) -> tuple[list[str], list[str]]:
    floor = Floors.of(None, None).floor
    response = engine.recall(RecallRequest(query=query, min_relevance=floor, update_access=False))
    return [r.memory.content for r in response.results], [h.reason for h in response.held_back]


@pytest.mark.parametrize("engine_fixture", ["engine", "onnx_engine"])
def test_a_query_nothing_bears_on_gets_nothing_and_says_why(
    engine_fixture: str, request: pytest.FixtureRequest
) -> None:
    engine: LocalEngine = request.getfixturevalue(engine_fixture)
    _store(engine)
    given, held = _gated(engine, "what's the weather like in Lisbon this weekend?")
    assert given == []
    assert len(held) == len(FACTS)
    assert all(reason.startswith("nothing bore on the prompt") for reason in held)
    assert all("cosine" in reason and "floor" in reason for reason in held)
    # Without a floor, recall still ranks everything (a person searching wants the list).
    ranked = engine.recall(RecallRequest(query="weather in Lisbon", update_access=False))
    assert len(ranked.results) == len(FACTS)
    assert all(r.breakdown.gate is not None for r in ranked.results)


@pytest.mark.parametrize("engine_fixture", ["engine", "onnx_engine"])
def test_a_query_a_memory_bears_on_gets_it_first(
    engine_fixture: str, request: pytest.FixtureRequest
) -> None:
    engine: LocalEngine = request.getfixturevalue(engine_fixture)
    _store(engine)
    given, _ = _gated(engine, "which port does the atlas API server listen on?")
    assert given and given[0] == FACTS[0]
    given, _ = _gated(engine, "should I install the web dependencies with npm or pnpm?")
    assert given and given[0] == FACTS[3]


def test_the_evidence_adds_up_to_the_relevance(engine: LocalEngine) -> None:
    _store(engine)
    response = engine.recall(RecallRequest(query="atlas API port 8443", update_access=False))
    top = response.results[0].breakdown.gate
    assert top is not None
    assert math.isclose(top.relevance, 1 / (1 + math.exp(-sum(top.parts.values()))))
    assert top.lexical > 0 and set(top.parts) == {"cosine", "words", "entity", "base"}
    assert top.formula().startswith(f"{top.relevance:.3f} = logistic(cosine")


def test_the_reference_model_needs_no_calibration(onnx_embedder: Embedder, tmp_path: Path) -> None:
    assert gate_calibration.is_reference(onnx_embedder.name)
    scale = gate_calibration.cosine_scale(onnx_embedder, tmp_path)
    assert scale(0.37) == pytest.approx(0.37)
    assert not (tmp_path / gate_calibration.FOLDER).exists()


def test_a_second_model_is_calibrated_once_and_kept(
    hashing_embedder: Embedder, tmp_path: Path
) -> None:
    assert not gate_calibration.is_reference(hashing_embedder.name)
    scale = gate_calibration.cosine_scale(hashing_embedder, tmp_path)
    kept = gate_calibration.stored(tmp_path, hashing_embedder.name)
    assert kept is not None and kept.embedder == hashing_embedder.name
    reference = gate_calibration.gate_pairs().reference_percentiles
    assert kept.reference == reference and kept.mine != reference
    # Its cosines map onto the reference's by rank: its median to the reference's median.
    assert scale(kept.mine[50]) == pytest.approx(reference[50], abs=0.05)
    assert scale(0.9) > scale(0.3) > scale(0.0)
    # A calibration made on another pair set is made again.
    path = next((tmp_path / gate_calibration.FOLDER).iterdir())
    path.write_text(json.dumps({**json.loads(path.read_text()), "pairs": "another set"}))
    assert gate_calibration.stored(tmp_path, hashing_embedder.name) is None
    gate_calibration.cosine_scale(hashing_embedder, tmp_path)
    assert gate_calibration.stored(tmp_path, hashing_embedder.name) is not None


def test_the_fitted_gate_is_on_the_reference_models_scale() -> None:
    model = gate_model()
    assert model.reference == gate_calibration.gate_pairs().reference
    assert 0 < model.companion_floor <= model.floor < 1
    assert model.weights.cosine > 0 and model.weights.lexical > 0


def test_recall_min_relevance_on_the_command_line(cli: Cli) -> None:
    for fact in FACTS:
        assert cli("remember", fact).code == 0
    done = cli("recall", "zzqx florp quux", "--min-relevance", "--json")
    assert done.code == 0, done.err
    answer = json.loads(done.out)
    assert answer["results"] == [] and len(answer["held_back"]) == len(FACTS)
    text = cli("recall", "zzqx florp quux", "--min-relevance", "--explain")
    assert "held back by the relevance gate (4):" in text.out
    assert "nothing bore on the prompt" in text.out
    ranked = cli("recall", "zzqx florp quux", "--json")
    assert len(json.loads(ranked.out)["results"]) == len(FACTS)
    explained = cli("recall", "atlas API port", "--explain")
    assert "bears on it: " in explained.out
    bad = cli("recall", "atlas", "--min-relevance", "2")
    assert bad.code == 2 and "--min-relevance takes a relevance between 0 and 1" in bad.err
    assert len(bad.err.strip().splitlines()) == 1


def _ranked(rank: int, relevance: float) -> RecallResult:
    evidence = GateEvidence(
        relevance=relevance,
        cosine=relevance,
        calibrated_cosine=relevance,
        lexical=0.0,
        entity=False,
        parts={},
    )
    memory = Memory.model_construct(
        id=f"m{rank}", content=f"memory ranked {rank}", type=MemoryType.FACT
    )
    breakdown = ScoreBreakdown.model_construct(gate=evidence)
    return RecallResult.model_construct(
        memory=memory, rank=rank, score=1 / rank, breakdown=breakdown
    )


def test_the_gate_gives_at_most_the_limit_from_a_deeper_pool() -> None:
    """A memory that bears on the prompt below the limit takes the place of one above it
    that does not; held back are only those of the first ranks, each saying why."""
    floors = Floors(floor=0.9, companion=0.5)
    pool = [_ranked(1, 0.95), _ranked(2, 0.2), _ranked(3, 0.7), _ranked(4, 0.8), _ranked(5, 0.1)]
    kept = apply_gate(pool, floors, limit=2)
    assert [r.rank for r in kept.given] == [1, 3]
    assert [h.rank for h in kept.held_back] == [2]
    assert kept.held_back[0].reason.startswith("under the companion floor 0.50: 0.20")
    assert gate_pool(10) == 30
    # Nothing over the floor: nothing given, the first ranks held back as "nothing bore".
    closed = apply_gate([_ranked(1, 0.85), _ranked(2, 0.6), _ranked(3, 0.99)][:2], floors, 2)
    assert closed.given == [] and len(closed.held_back) == 2
    assert closed.held_back[0].reason.startswith("nothing bore on the prompt")


def _pools() -> list[list[float]]:
    """Random pools, and the two where the best is read only because it is the best:
    a closed pool whose best (quoted in every reason) is below the first ten, and an
    open one whose only memory over the floor is the eleventh over the companion."""
    rng = random.Random(73)
    drawn = [
        [rng.choice([0.05, 0.3, 0.55, 0.7, 0.92, 0.97, rng.random()]) for _ in range(30)]
        for _ in range(40)
    ]
    closed_best_deep = [0.1] * 14 + [0.4] + [0.05] * 15
    open_best_deep = [0.6] * 10 + [0.1] * 5 + [0.95] + [0.2] * 14
    return [*drawn, closed_best_deep, open_best_deep]


@pytest.mark.parametrize("relevance", _pools())
def test_the_gate_decides_on_the_results_it_reads_as_on_the_whole_pool(
    relevance: list[float],
) -> None:
    """Recall builds a full result only for the positions `gate_reads` names: what is
    given and what is held back, with its reason, are those of the whole pool."""
    floors = Floors(floor=0.9, companion=0.5)
    pool = [_ranked(rank, value) for rank, value in enumerate(relevance, 1)]
    read = [pool[i] for i in gate_reads(relevance, floors, 10)]
    whole, part = apply_gate(pool, floors, 10), apply_gate(read, floors, 10)
    assert [r.rank for r in part.given] == [r.rank for r in whole.given]
    assert part.held_back == whole.held_back
    assert len(read) <= 21
