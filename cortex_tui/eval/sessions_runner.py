"""Running sessions datasets: every session replayed under every variant, then scored.

Unlike retrieval datasets, a variant cannot share a store with the base run: what it
changes (capture, the write path, the hooks) decides what the store holds, so each
variant replays each session into a store of its own.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cortex_tui.eval.report import VariantInfo
from cortex_tui.eval.session_replay import replay_session
from cortex_tui.eval.sessions_dataset import Session, SessionsDataset
from cortex_tui.eval.sessions_score import SessionScore, Totals, score_session
from cortex_tui.eval.variants import Variant

Progress = Callable[[int, int, str], None]
PARTS = ("dev", "held-out")


@dataclass
class SessionsRun:
    corpus: str
    variants: list[VariantInfo]
    scores: dict[str, list[SessionScore]]
    """Each variant's sessions, in corpus order."""
    not_run: list[str]
    """Sessions whose transcript is not here, each with where to get it."""
    seconds: float

    def totals(self, variant: str, part: str | None) -> Totals:
        """`part`'s sessions pooled (None: all of them)."""
        totals = Totals()
        for score in self.scores[variant]:
            if part is None or score.split == part:
                totals.add(score)
        return totals


def run_sessions(
    datasets: Sequence[SessionsDataset],
    variants: Sequence[Variant],
    keep_under: Path | None = None,
    progress: Progress | None = None,
) -> list[SessionsRun]:
    return [_run(dataset, variants, keep_under, progress) for dataset in datasets]


def _run(
    dataset: SessionsDataset,
    variants: Sequence[Variant],
    keep_under: Path | None,
    progress: Progress | None,
) -> SessionsRun:
    started = time.perf_counter()
    runnable = [s for s in dataset.sessions if s.transcript is not None]
    scores: dict[str, list[SessionScore]] = {}
    for variant in variants:
        scores[variant.name] = [
            _replayed(session, variant, keep_under, dataset.name, progress) for session in runnable
        ]
    return SessionsRun(
        corpus=dataset.name,
        variants=[VariantInfo(name=v.name, changes=v.changes) for v in variants],
        scores=scores,
        not_run=[_where_to_get(s) for s in dataset.missing()],
        seconds=time.perf_counter() - started,
    )


def _replayed(
    session: Session,
    variant: Variant,
    keep_under: Path | None,
    corpus: str,
    progress: Progress | None,
) -> SessionScore:
    what = f"{variant.name} · {session.name}"

    def advance(done: int, total: int) -> None:
        if progress is not None:
            progress(done, total, what)

    # Replayed in a short temporary path whatever `keep_under` is: the service's socket
    # lives in its home, and a socket's path has at most 107 bytes.
    with tempfile.TemporaryDirectory(prefix="cortex-sessions-") as tmp:
        replayed = replay_session(session, variant.settings, Path(tmp), advance)
        if keep_under is not None:
            kept = keep_under / "eval" / corpus / variant.name / session.name
            if kept.exists():
                shutil.rmtree(kept)
            shutil.copytree(tmp, kept, ignore=shutil.ignore_patterns("*.sock", "*.lock"))
    return score_session(session, replayed)


def _where_to_get(session: Session) -> str:
    s = session.source
    return (
        f"{s.id}: `git show {s.commit}:{s.path}` in a clone of https://github.com/{s.repo} "
        f"({s.licence}), saved as {s.id}.jsonl in the folder given with --transcripts"
    )
