"""Train capture's "worth remembering" score on the corpus's development part.

Every sentence capture could keep (`heuristic.readings`) of every development session is
an example: kept when it matches one of its session's labels, left out otherwise. A
logistic regression over `worth.FEATURE_NAMES` is fitted to them. Its threshold and how
many sentences a turn keeps at most are the pair whose neighbourhood (the thresholds
either side) gives the best F1 of label recall and precision, at no more than
`MOST_PER_PROMPT` sentences a prompt, when each
repository is scored by a model fitted on the others (so they are chosen on sentences
the model did not see). The held-out part is never read here.

    python tests/data/sessions/train_worth.py TRANSCRIPTS [--write]

`--write` replaces `cortex_tui/capture/worth.json`.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from cortex_tui.capture.heuristic import readings, said_outright
from cortex_tui.capture.worth import FEATURE_NAMES, WorthModel, features
from cortex_tui.eval.sessions_dataset import SessionLabel, load_sessions, pick_sessions

HERE = Path(__file__).parent
SHIPPED = Path(__file__).parents[3] / "cortex_tui" / "capture" / "worth.json"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
L2 = 1.0
"""Ridge penalty: a few thousand sentences from six repositories fit noise easily."""
CORE_WEIGHT = 2.0
"""A sentence stating a core label counts this much more than one stating an optional one."""
MOST_PER_PROMPT = 1.25
"""Sentences kept a prompt at most: the goal is one memory a prompt, and the write path
folds a sentence that repeats a memory into it."""
CAPS = (1, 2, 3, 4)
THRESHOLDS = np.arange(0.05, 0.95, 0.025)


@dataclass
class Example:
    repo: str
    session: str
    turn: int
    text: str
    x: list[float]
    labels: frozenset[str]
    """The ids of the labels it matches."""
    outright: bool
    """Kept whatever its score (`heuristic.said_outright`): no example for the score."""


def examples(
    transcripts: Path, part: str
) -> tuple[list[Example], dict[str, list[SessionLabel]], int]:
    """Conversation sentences of a part, their session's labels, and the part's prompts."""
    import sys

    sys.path.insert(0, str(HERE))
    from quick_capture import turn_texts  # the corpus tool beside this one

    corpus = HERE / "corpus.json"
    dataset = load_sessions(json.loads(corpus.read_text()), corpus, transcripts)
    picked = pick_sessions(dataset, {part})
    assert picked is not None
    found: list[Example] = []
    labels: dict[str, list[SessionLabel]] = {}
    prompts = 0
    for session in picked.sessions:
        labels[session.name] = session.labels.labels
        texts = turn_texts(session)
        prompts += len(texts)
        for n, text in enumerate(texts, 1):
            for reading in readings(text, now=NOW):
                if reading.unit.speaker == "unknown":
                    continue
                matched = frozenset(
                    label.id for label in session.labels.labels if label.matches(reading.sentence)
                )
                found.append(
                    Example(
                        session.source.repo,
                        session.name,
                        n,
                        reading.sentence,
                        features(reading.unit, reading.signals),
                        matched,
                        said_outright(reading),
                    )
                )
    return found, labels, prompts


def fit(
    x: NDArray[np.float64], y: NDArray[np.float64], w: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Weighted, L2-penalised logistic regression by Newton's method (bias last)."""
    design = np.hstack([x, np.ones((len(x), 1))])
    theta = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], L2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-design @ theta))
        gradient = design.T @ (w * (p - y)) + penalty * theta
        hessian = (design * (w * p * (1 - p))[:, None]).T @ design + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if np.abs(step).max() < 1e-8:
            break
    return theta


def scores(theta: NDArray[np.float64], x: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray(1 / (1 + np.exp(-(x @ theta[:-1] + theta[-1]))), dtype=np.float64)


def outcome(
    kept: list[Example], labels: dict[str, list[SessionLabel]], prompts: int
) -> tuple[float, float, float]:
    """Recall of core labels, precision, memories per prompt, for the sentences kept."""
    core = {(s, lab.id) for s, labs in labels.items() for lab in labs if lab.core}
    found = {(e.session, i) for e in kept for i in e.labels} & core
    matched = sum(1 for e in kept if e.labels)
    return (
        len(found) / max(len(core), 1),
        matched / max(len(kept), 1),
        len(kept) / max(prompts, 1),
    )


def chosen(
    data: list[Example], score: NDArray[np.float64], threshold: float, cap: int
) -> list[Example]:
    """The sentences kept: those said outright, and of the others those at or above
    `threshold`, the `cap` best of each turn."""
    outright = [example for example in data if example.outright]
    turns: dict[tuple[str, int], list[tuple[float, Example]]] = {}
    for example, value in zip(data, score, strict=True):
        if not example.outright and value >= threshold:
            turns.setdefault((example.session, example.turn), []).append((value, example))
    best = [e for turn in turns.values() for _, e in sorted(turn, key=lambda t: -t[0])[:cap]]
    return outright + best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcripts", type=Path)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    data, labels, prompts = examples(args.transcripts, "dev")
    x = np.array([e.x for e in data])
    y = np.array([1.0 if e.labels else 0.0 for e in data])
    scored = np.array([not e.outright for e in data])
    core_ids = {(s, lab.id) for s, labs in labels.items() for lab in labs if lab.core}
    w = np.array(
        [CORE_WEIGHT if any((e.session, i) in core_ids for i in e.labels) else 1.0 for e in data]
    )
    repos = sorted({e.repo for e in data})
    held = np.zeros(len(data))
    for repo in repos:
        inside = np.array([e.repo == repo for e in data])
        train = ~inside & scored
        theta = fit(x[train], y[train], w[train])
        held[inside] = scores(theta, x[inside])
    print(
        f"{len(data)} sentences ({int((~scored).sum())} kept outright), {int(y.sum())} matching"
        f" a label, {len(repos)} repositories"
    )
    grid: dict[tuple[int, int], float] = {}
    for cap in CAPS:
        for step, threshold in enumerate(THRESHOLDS):
            kept = chosen(data, held, float(threshold), cap)
            recall, precision, rate = outcome(kept, labels, prompts)
            f1 = 2 * recall * precision / max(recall + precision, 1e-9)
            grid[cap, step] = f1 if rate <= MOST_PER_PROMPT else 0.0
    best = (0.0, 0.5, 1)
    for cap, step in grid:
        # A point is as good as its neighbourhood: one lucky threshold among a few
        # thousand sentences is noise, and the shipped weights must not follow it.
        around = [grid.get((cap, step + d), 0.0) for d in (-1, 0, 1)]
        best = max(best, (sum(around) / 3, float(THRESHOLDS[step]), cap))
    _, threshold, cap = best
    recall, precision, rate = outcome(chosen(data, held, threshold, cap), labels, prompts)
    f1 = 2 * recall * precision / max(recall + precision, 1e-9)
    print(
        f"cross-validated: threshold {threshold:.3f}, {cap} a turn: recall {recall:.1%},"
        f" precision {precision:.1%}, {rate:.2f} a prompt (f1 {f1:.3f})"
    )
    theta = fit(x[scored], y[scored], w[scored])
    model = WorthModel(
        {n: round(float(v), 4) for n, v in zip(FEATURE_NAMES, theta[:-1], strict=True)},
        round(float(theta[-1]), 4),
        round(threshold, 3),
        cap,
    )
    for name, value in sorted(model.weights.items(), key=lambda kv: -abs(kv[1]))[:20]:
        print(f"  {name:24} {value:+.3f}")
    if args.write:
        SHIPPED.write_text(model.to_json() + "\n")
        print(f"wrote {SHIPPED}")


if __name__ == "__main__":
    main()
