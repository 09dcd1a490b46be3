"""Running pairs datasets through the real write path.

Each pair is run through the same `remember` call a user's command makes, in a store of
its own per variant (one project scope per pair, so pairs never see each other), and the
action the write path took is compared with the pair's label.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from contextlib import closing
from datetime import timedelta
from pathlib import Path

from pydantic import BaseModel

from cortex_tui.clock import frozen_clock
from cortex_tui.config import StoreConfig
from cortex_tui.engine.open import open_engine
from cortex_tui.errors import InvalidInputError
from cortex_tui.eval.llm_replay import replay_client
from cortex_tui.eval.measured import MeasuredEmbedder
from cortex_tui.eval.pairs_dataset import PairsDataset
from cortex_tui.eval.runner import Progress
from cortex_tui.eval.variants import Variant
from cortex_tui.models import MemoryDraft, WriteAction, WriteLabel

ACTION_LABEL: dict[WriteAction, WriteLabel] = {
    WriteAction.DUPLICATE: "duplicate",
    WriteAction.REINFORCED: "reinforce",
    WriteAction.SUPERSEDED: "update",
    WriteAction.CONFLICT: "contradiction",
    WriteAction.CREATED: "new",
}
OLD_AGE = timedelta(days=7)
"""How long before the dataset's `now` the old memory was written, unless a pair says."""


class PairOutcome(BaseModel):
    id: str
    part: str
    expected: WriteLabel
    decided: WriteLabel
    reason: str
    judge: str
    close_call: bool


class PairsRun(BaseModel):
    """One dataset under one variant."""

    dataset: str
    variant: str
    outcomes: list[PairOutcome]
    seconds: float


def run_pairs(
    datasets: Sequence[PairsDataset],
    variants: Sequence[Variant],
    embedder: MeasuredEmbedder,
    progress: Progress | None = None,
) -> list[PairsRun]:
    """Every dataset under every variant, each in a fresh store (a variant may change the
    write path's thresholds, so a store cannot be shared); texts are embedded once."""
    runs = []
    for dataset in datasets:
        for variant in variants:
            runs.append(_run_one(dataset, variant, embedder, progress))
        embedder.forget_queries()
    return runs


def _run_one(
    dataset: PairsDataset,
    variant: Variant,
    embedder: MeasuredEmbedder,
    progress: Progress | None,
) -> PairsRun:
    started = time.perf_counter()
    settings = variant.settings.model_copy(update={"store": StoreConfig()})
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="cortex-pairs-") as tmp:
        engine = open_engine(
            settings,
            clock=frozen_clock(dataset.now),
            embedder=embedder,
            store_path=Path(tmp) / "store",
            llm=replay_client(dataset, variant.llm_replay) if variant.llm_replay else None,
        )
        # The store is thrown away after the run: no write needs its own flush to disk
        # (a flush is most of a small write's cost; the decisions are the same).
        with closing(engine), engine.store.deferred_commits():
            for done, pair in enumerate(dataset.pairs, 1):
                scope = f"pair-{pair.id}"
                old_at = pair.old_at or dataset.now - OLD_AGE
                engine.remember(MemoryDraft(content=pair.old, project=scope, created_at=old_at))
                result = engine.remember(
                    MemoryDraft(content=pair.new, project=scope, created_at=pair.new_at)
                )
                outcomes.append(
                    PairOutcome(
                        id=pair.id,
                        part=pair.part,
                        expected=pair.label,
                        decided=ACTION_LABEL[result.action],
                        reason=result.reason,
                        judge=result.judge,
                        close_call=result.close_call is not None,
                    )
                )
                if progress is not None:
                    progress(done, len(dataset.pairs), f"{variant.name} · {dataset.name}")
    return PairsRun(
        dataset=dataset.name,
        variant=variant.name,
        outcomes=outcomes,
        seconds=time.perf_counter() - started,
    )


def check_variants_fit(retrieval_datasets: int, variants: Sequence[Variant]) -> None:
    """A variant that changes the write path re-ingests; retrieval datasets share one
    ingested store across variants, so such a variant only makes sense for pairs."""
    if not retrieval_datasets:
        return
    for variant in variants[1:]:
        if variant.llm_replay:
            raise InvalidInputError(
                "--llm-replay replays the write-path judge's answers: run pairs datasets alone"
            )
        changed = [key for key in variant.changes if key.split(".")[0] == "write"]
        if changed:
            raise InvalidInputError(
                f"--variant {variant.name}: {changed[0]} changes the write path, which "
                "retrieval datasets ingest once for every variant; run pairs datasets "
                "alone, or change it for the whole run with --set"
            )
