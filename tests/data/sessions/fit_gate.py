"""Fit the relevance gate (`cortex_tui/recall/gate.py`) and its cosine pair set, on the
development part only.

    cortex-tui --home KEEP eval tests/data/sessions/corpus.json --only dev --transcripts DIR
    python tests/data/sessions/fit_gate.py KEEP/eval/claude-code-sessions/base \\
        --locomo locomo10.json --longmemeval longmemeval_s_cleaned.json

Needed: each development probe's label, among the memories recall ranks for it in the
replayed store (what the gate decides on); and LoCoMo's and LongMemEval's development
questions' evidence turns in their stores. Not needed: every memory ranked for a prompt
about nothing — the development part's unrelated prompts in its stores, and everyday
prompts (`generic-prompts.json`) in the public stores. Each of the two kinds weighs as
much as the other, and within each the sessions as much as the public data.

Writes `cortex_tui/recall/data/gate-pairs.json` (the probes and prompts against the
labels of their repository, with the reference model's cosines at each percentile) and
`cortex_tui/recall/data/gate.json` (weights; the floor such that at most FALSE_RATE of
the development part's unrelated prompts get a block; the companion floor at even
odds), then prints what the fit gives each part.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cortex_tui.clock import frozen_clock
from cortex_tui.config import Settings, load_settings
from cortex_tui.embed.factory import make_embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.eval.claude_replay import in_home
from cortex_tui.eval.dataset import Dataset, expand_only, load_datasets
from cortex_tui.eval.runner import ingest
from cortex_tui.eval.sessions_dataset import SessionsDataset, load_sessions
from cortex_tui.eval.vector_cache import CachedEmbedder
from cortex_tui.recall.gate import GateModel, GateWeights, gate_evidence
from cortex_tui.recall.gate_calibration import PairGroup, percentiles
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[2] / "cortex_tui" / "recall" / "data"
FALSE_RATE = 0.08
"""Share of the development part's prompts about nothing the floor lets through (the
goal is at most 10 %: a margin for prompts the fit did not see)."""
LME_QUESTIONS = 40
"""LongMemEval development questions used (every other one): each is a store of its own."""
L2 = 1.0


@dataclass
class Candidate:
    """One ranked memory for one prompt: its evidence, and whether the prompt needed it."""

    cosine: float
    lexical: float
    entity: bool
    needed: bool
    source: str
    prompt: int
    """Which prompt (a running number across sources)."""
    unrelated: bool
    """The prompt is about nothing this store holds."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kept", type=Path, help="the kept replay of the development part")
    parser.add_argument("--locomo", type=Path, help="locomo10.json")
    parser.add_argument("--longmemeval", type=Path, help="longmemeval_s_cleaned.json")
    args = parser.parse_args()
    settings = load_settings()
    corpus = HERE / "corpus.json"
    dataset = load_sessions(json.loads(corpus.read_text()), corpus, None)
    dev = SessionsDataset(
        dataset.corpus, [s for s in dataset.sessions if s.source.split == "dev"], dataset.probes
    )
    write_pairs(dev, settings)
    counter = iter(range(10**9))
    candidates = list(session_candidates(dev, args.kept, settings, counter))
    generic = json.loads((HERE / "generic-prompts.json").read_text())["prompts"]
    if args.locomo:
        candidates += public_candidates(
            args.locomo, _locomo_dev(), "locomo", settings, generic, counter
        )
    if args.longmemeval:
        questions = _lme_dev()[::2][:LME_QUESTIONS]
        candidates += public_candidates(
            args.longmemeval, questions, "longmemeval", settings, generic[::8], counter
        )
    model = fit(candidates)
    (DATA / "gate.json").write_text(model.model_dump_json(indent=2) + "\n")
    report(candidates, model)
    return 0


def write_pairs(dev: SessionsDataset, settings: Settings) -> None:
    """The pair set: per repository, its probes and unrelated prompts against its
    labels; the reference model's cosines at each percentile."""
    prompts: list[str] = []
    texts: list[str] = []
    groups: list[PairGroup] = []
    for repo, probes in dev.probes.items():
        sessions = [s for s in dev.sessions if s.source.repo == repo]
        if not sessions:
            continue
        first_prompt, first_text = len(prompts), len(texts)
        prompts += [p.prompt for p in probes.probes] + [u.prompt for u in probes.unrelated]
        texts += [label.text for s in sessions for label in s.labels.labels]
        groups.append(
            PairGroup(
                prompts=list(range(first_prompt, len(prompts))),
                texts=list(range(first_text, len(texts))),
            )
        )
    embedder = make_embedder(settings.embedder, settings.models_path)
    vectors_p = np.asarray([embedder.embed_query(p) for p in prompts], dtype=np.float32)
    vectors_t = np.asarray(embedder.embed(texts), dtype=np.float32)
    cosines = [
        float(x) for g in groups for x in (vectors_p[g.prompts] @ vectors_t[g.texts].T).ravel()
    ]
    pairs = {
        "reference": embedder.name,
        "prompts": prompts,
        "texts": texts,
        "groups": [g.model_dump() for g in groups],
        "reference_percentiles": percentiles(cosines),
    }
    (DATA / "gate-pairs.json").write_text(json.dumps(pairs, ensure_ascii=False) + "\n")


def _features(
    engine: LocalEngine, query: str, project: str | None
) -> list[tuple[float, float, bool, str]]:
    """Each memory recall ranks for `query` (as a hook asks it): the gate's evidence and
    its id."""
    response = engine.recall(
        RecallRequest(query=query[:2000], project=project, update_access=False)
    )
    found = []
    for result in response.results:
        gate = result.breakdown.gate
        assert gate is not None
        found.append((gate.calibrated_cosine, gate.lexical, gate.entity, result.memory.content))
    return found


def session_candidates(
    dev: SessionsDataset, kept: Path, settings: Settings, counter: Iterator[int]
) -> Iterator[Candidate]:
    labels = {(s.name, label.id): label for s in dev.sessions for label in s.labels.labels}
    repos = {s.source.repo for s in dev.sessions}
    for repo, probes in dev.probes.items():
        if repo not in repos:
            continue
        home = kept / repo.replace("/", "-").lower() / "home"
        if not home.is_dir():
            print(f"{repo}: no kept replay in {home}", file=sys.stderr)
            continue
        with closing(open_engine(in_home(settings, home))) as engine:
            memories = list(engine.store.iter_memories(MemoryFilter()))
            project = next((m.project for m in memories if m.project), None)
            asked = [(labels[(p.session, p.label)], p.prompt) for p in probes.probes]
            asked += [(None, u.prompt) for u in probes.unrelated]
            for label, prompt in asked:
                number = next(counter)
                for cosine, lexical, entity, content in _features(engine, prompt, project):
                    yield Candidate(
                        cosine,
                        lexical,
                        entity,
                        label is not None and label.matches(content),
                        "sessions",
                        number,
                        label is None,
                    )


def public_candidates(
    path: Path,
    only: list[str],
    source: str,
    settings: Settings,
    generic: list[str],
    counter: Iterator[int],
) -> list[Candidate]:
    found: list[Candidate] = []
    for dataset in load_datasets([path], only=only):
        assert isinstance(dataset, Dataset)
        found += _dataset_candidates(dataset, source, settings, generic, counter)
        print(f"{source} {dataset.name}: {len(found)} candidates", file=sys.stderr)
    return found


def _dataset_candidates(
    dataset: Dataset, source: str, settings: Settings, generic: list[str], counter: Iterator[int]
) -> list[Candidate]:
    inner = make_embedder(settings.embedder, settings.models_path)
    cached = CachedEmbedder(inner, settings.home / "cache")
    found: list[Candidate] = []
    with tempfile.TemporaryDirectory(prefix="fit-gate-") as tmp:
        engine = open_engine(
            settings.model_copy(update={"home": Path(tmp)}),
            clock=frozen_clock(dataset.now),
            embedder=cached,
            store_path=Path(tmp) / "store",
        )
        with closing(engine):
            labels = ingest(engine, dataset)
            asked = [(set(q.relevant), q.query) for q in dataset.queries if q.relevant]
            asked += [(set(), prompt) for prompt in generic]
            for relevant, query in asked:
                wanted = {labels[label] for label in relevant if label in labels}
                number = next(counter)
                response = engine.recall(RecallRequest(query=query, update_access=False))
                for result in response.results:
                    gate = result.breakdown.gate
                    assert gate is not None
                    found.append(
                        Candidate(
                            gate.calibrated_cosine,
                            gate.lexical,
                            gate.entity,
                            result.memory.id in wanted,
                            source,
                            number,
                            not relevant,
                        )
                    )
    cached.close()
    return found


def fit(candidates: list[Candidate]) -> GateModel:
    """Class- and source-balanced logistic regression, then the floors."""
    rows = [c for c in candidates if c.needed or c.unrelated]
    x = np.array([[c.cosine, c.lexical, float(c.entity)] for c in rows])
    y = np.array([float(c.needed) for c in rows])
    weight = _balanced_weights(rows)
    mean, spread = x.mean(0), x.std(0) + 1e-9
    scaled = (x - mean) / spread
    w, b = np.zeros(3), 0.0
    for _ in range(6000):
        p = 1 / (1 + np.exp(-(scaled @ w + b)))
        g = (p - y) * weight
        w -= 0.2 * (scaled.T @ g + L2 * w / len(y))
        b -= 0.2 * g.sum()
    raw = w / spread
    base = b - float((mean / spread) @ w)
    weights = GateWeights(
        cosine=round(float(raw[0]), 4),
        lexical=round(float(raw[1]), 4),
        entity=round(float(raw[2]), 4),
        base=round(base, 4),
    )
    draft = GateModel(reference=_reference(), weights=weights, floor=0.5, companion_floor=0.5)
    tops = sorted(
        max(_relevance(draft, c) for c in group)
        for group in _prompts(candidates, "sessions", unrelated=True)
    )
    floor = tops[min(len(tops) - 1, math.floor((1 - FALSE_RATE) * len(tops)))] + 1e-4
    kinds = {
        f"{source} {'unrelated' if unrelated else 'needed'}": len(
            _prompts(candidates, source, unrelated=unrelated)
        )
        for source in ("sessions", "locomo", "longmemeval")
        for unrelated in (False, True)
    }
    return draft.model_copy(
        update={
            "floor": round(floor, 4),
            "companion_floor": 0.5,
            "fitted_on": {k: v for k, v in kinds.items() if v},
        }
    )


def _balanced_weights(rows: list[Candidate]) -> np.ndarray:
    """Needed and not needed weigh the same; within each, the sessions as much as the
    public data; within each of those, every candidate alike."""
    weights = np.zeros(len(rows))
    for needed in (True, False):
        kinds = [(c.source == "sessions") for c in rows if c.needed == needed]
        public = len(kinds) - sum(kinds)
        for i, c in enumerate(rows):
            if c.needed != needed:
                continue
            share = 0.5 if public else 1.0
            if c.source == "sessions":
                weights[i] = share / sum(kinds) if sum(kinds) else 0.0
            else:
                weights[i] = (1 - share) / public
    return weights / 2


def _prompts(candidates: list[Candidate], source: str, *, unrelated: bool) -> list[list[Candidate]]:
    grouped: dict[int, list[Candidate]] = {}
    for c in candidates:
        if c.source == source and c.unrelated == unrelated:
            grouped.setdefault(c.prompt, []).append(c)
    return list(grouped.values())


def _relevance(model: GateModel, c: Candidate) -> float:
    return gate_evidence(
        c.cosine, c.cosine, math.expm1(c.lexical), 1 if c.entity else None, model
    ).relevance


def report(candidates: list[Candidate], model: GateModel) -> None:
    print(f"weights {model.weights}, floor {model.floor}, companion {model.companion_floor}")
    for source in ("sessions", "locomo", "longmemeval"):
        needed = _prompts(candidates, source, unrelated=False)
        nothing = _prompts(candidates, source, unrelated=True)
        if not needed and not nothing:
            continue
        given = sum(_given(model, group) for group in needed)
        ranked = sum(any(c.needed for c in group) for group in needed)
        opened = sum(_opens(model, group) for group in nothing)
        print(
            f"{source}: needed memory ranked {ranked}/{len(needed)}, given {given}/{len(needed)}"
            f" ({100 * given / max(1, len(needed)):.1f} %); prompts about nothing given any"
            f" {opened}/{len(nothing)} ({100 * opened / max(1, len(nothing)):.1f} %)"
        )


def _opens(model: GateModel, group: list[Candidate]) -> bool:
    return max(_relevance(model, c) for c in group) >= model.floor


def _given(model: GateModel, group: list[Candidate]) -> bool:
    return _opens(model, group) and any(
        c.needed and _relevance(model, c) >= model.companion_floor for c in group
    )


def _reference() -> str:
    return json.loads((DATA / "gate-pairs.json").read_text())["reference"]


def _locomo_dev() -> list[str]:
    return ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43"]


def _lme_dev() -> list[str]:
    return expand_only([str(HERE.parent / "longmemeval" / "dev-questions.txt")])


if __name__ == "__main__":
    sys.exit(main())
