"""Running sessions datasets: each repository's sessions replayed under every variant,
scored on what capture kept, then asked what a later session would and scored on what
it was given.

Unlike retrieval datasets, a variant cannot share a store with the base run: what it
changes (capture, the write path, the hooks, the gate) decides what the store holds and
gives, so each variant replays each repository into a store of its own.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cortex_tui.eval.claude_replay import ClaudeCodeProject
from cortex_tui.eval.probes_dataset import RepositoryProbes
from cortex_tui.eval.probes_score import GivenTotals, ProbeScore, score_probe
from cortex_tui.eval.report import VariantInfo
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
    asked: dict[str, list[ProbeScore]] = field(default_factory=dict)
    """Each variant's probes and unrelated prompts, repository by repository."""

    def totals(self, variant: str, part: str | None) -> Totals:
        """`part`'s sessions pooled (None: all of them)."""
        totals = Totals()
        for score in self.scores[variant]:
            if part is None or score.split == part:
                totals.add(score)
        return totals

    def given(
        self, variant: str, keep: Callable[[ProbeScore], bool] = lambda _: True
    ) -> GivenTotals:
        """What the prompts `keep` chooses were given, pooled."""
        totals = GivenTotals()
        for score in self.asked.get(variant, []):
            if keep(score):
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
    asked: dict[str, list[ProbeScore]] = {}
    for variant in variants:
        scores[variant.name], asked[variant.name] = [], []
        for repo, sessions in _by_repository(runnable).items():
            replay = _Repository(repo, sessions, dataset.probes.get(repo), variant, progress)
            session_scores, probe_scores = replay.run(keep_under, dataset.name)
            scores[variant.name] += session_scores
            asked[variant.name] += probe_scores
        order = {s.name: n for n, s in enumerate(runnable)}
        scores[variant.name].sort(key=lambda score: order[score.session])
    return SessionsRun(
        corpus=dataset.name,
        variants=[VariantInfo(name=v.name, changes=v.changes) for v in variants],
        scores=scores,
        not_run=[_where_to_get(s) for s in dataset.missing()],
        seconds=time.perf_counter() - started,
        asked=asked,
    )


def _by_repository(sessions: list[Session]) -> dict[str, list[Session]]:
    """Sessions grouped by repository, each group in corpus order."""
    grouped: dict[str, list[Session]] = {}
    for session in sessions:
        grouped.setdefault(session.source.repo, []).append(session)
    return grouped


class _Repository:
    """One repository's replay under one variant: its sessions, then its probes."""

    def __init__(
        self,
        repo: str,
        sessions: list[Session],
        probes: RepositoryProbes | None,
        variant: Variant,
        progress: Progress | None,
    ) -> None:
        self.repo = repo
        self.sessions = sessions
        self.probes = probes
        self.variant = variant
        self.progress = progress

    def run(
        self, keep_under: Path | None, corpus: str
    ) -> tuple[list[SessionScore], list[ProbeScore]]:
        # Replayed in a short temporary path whatever `keep_under` is: the service's
        # socket lives in its home, and a socket's path has at most 107 bytes.
        with tempfile.TemporaryDirectory(prefix="cortex-sessions-") as tmp:
            project = ClaudeCodeProject(Path(tmp), self.repo, self.variant.settings)
            scores = []
            for session in self.sessions:
                replayed = project.replay(session, self._advance(session.name))
                scores.append(score_session(session, replayed))
            asked = self._ask(project)
            if keep_under is not None:
                kept = keep_under / "eval" / corpus / self.variant.name / _folder_name(self.repo)
                if kept.exists():
                    shutil.rmtree(kept)
                shutil.copytree(tmp, kept, ignore=shutil.ignore_patterns("*.sock", "*.lock"))
        return scores, asked

    def _ask(self, project: ClaudeCodeProject) -> list[ProbeScore]:
        """Each probe of a replayed session's label, then each unrelated prompt, in a new
        session of its own; then what the store and the service's records say."""
        if self.probes is None:
            return []
        part = self.sessions[0].source.split
        labels = {(s.name, label.id): label for s in self.sessions for label in s.labels.labels}
        wanted = [
            (ProbeScore(self.repo, part, p.prompt, labels[(p.session, p.label)], p.session))
            for p in self.probes.probes
            if (p.session, p.label) in labels
        ]
        wanted += [ProbeScore(self.repo, part, u.prompt) for u in self.probes.unrelated]
        advance = self._advance("probes")
        answers = []
        try:
            for n, score in enumerate(wanted, 1):
                answers.append(project.ask(_probe_session(n), score.prompt))
                advance(n, len(wanted))
        finally:
            project.stop()
        current, versions = project.kept()
        for n, (score, answer) in enumerate(zip(wanted, answers, strict=True), 1):
            score.hook_failures = answer.hook_failures
            records = project.given(_probe_session(n))
            score_probe(score, answer.start, answer.block, current, versions, records)
        return wanted

    def _advance(self, what: str) -> Callable[[int, int], None]:
        label = f"{self.variant.name} · {what}"

        def advance(done: int, total: int) -> None:
            if self.progress is not None:
                self.progress(done, total, label)

        return advance


def _probe_session(n: int) -> str:
    return f"probe-{n:04d}"


def _folder_name(repo: str) -> str:
    return repo.replace("/", "-").lower()


def _where_to_get(session: Session) -> str:
    s = session.source
    return (
        f"{s.id}: `git show {s.commit}:{s.path}` in a clone of https://github.com/{s.repo} "
        f"({s.licence}), saved as {s.id}.jsonl in the folder given with --transcripts"
    )
