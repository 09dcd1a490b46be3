"""Many turns captured together, holding the store only for the writes.

A busy machine's agent sessions end turns faster than one-at-a-time capture stores them
(each turn paid a model call and a flush per write). Here every turn of the batch is
extracted and all their candidates embedded in one model call before the store is
touched. The writes then run in slices: a slice ends after `HOLD_BUDGET`, or after one
memory when someone waits for the engine (an agent's pre hook), so a reader never waits
for more than about one write (a turn of many statements goes on in the next slice,
where it stopped). Other writers stay out until the batch is made durable,
with one flush per collection at its end (after `BATCH_BUDGET` at most): the flush is
most of a small write's cost, and paying it per slice would let readers throttle
capture to a crawl.

A turn is reported done only once its batch is durable; a crash before that leaves it
pending, and its replay skips what the crash left stored (`LocalEngine.write_capture`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Protocol, TypeVar

from cortex_tui.write.turn_capture import CaptureProgress, CaptureReport, PreparedTurn, turn_vectors

if TYPE_CHECKING:
    from cortex_tui.embed.base import Matrix
    from cortex_tui.engine.local import LocalEngine

T = TypeVar("T")
HOLD_BUDGET = 0.15
"""Seconds one slice of writes may hold the engine (it ends at the turn that crosses it)."""
BATCH_BUDGET = 1.0
"""Seconds of writing before a batch is made durable and other writers get their turn."""


class Hold(Protocol):
    """Access to the engine's store: run work while holding it, ask whether someone is
    waiting for it, and keep other writers out across several holds; and run the
    batch's preparation, which needs no store, where it slows no one (`aside`)."""

    def __call__(self, work: Callable[[], T]) -> T: ...

    def contended(self) -> bool: ...

    def writing(self) -> AbstractContextManager[object]: ...

    def aside(self, work: Callable[[], T]) -> T: ...


class Unshared:
    """The store of a process that has no one else to let in (a hook, a CLI drain)."""

    def __call__(self, work: Callable[[], T]) -> T:
        return work()

    def contended(self) -> bool:
        return False

    def writing(self) -> AbstractContextManager[object]:
        return nullcontext()

    def aside(self, work: Callable[[], T]) -> T:
        return work()


@dataclass(frozen=True, slots=True)
class TurnToCapture:
    text: str
    project: str | None
    session_id: str | None
    source: str
    progress: CaptureProgress
    said_at: datetime | None = None
    """When the turn was said, where its source tells (a synced transcript)."""


def capture_turns(
    engine: LocalEngine,
    turns: Sequence[TurnToCapture],
    hold: Hold,
    budget: float = HOLD_BUDGET,
) -> Iterator[list[tuple[int, CaptureReport | Exception]]]:
    """Capture `turns` in order; yields (position, report or the failure) for the
    turns each batch finished, once that batch is durable. One turn failing does not
    stop the others."""
    failed, ready, rows = hold.aside(partial(_prepared, engine, turns))
    if failed:
        yield failed
    start = 0
    while start < len(ready):
        done: list[tuple[int, CaptureReport | Exception]] = []
        with hold.writing(), ExitStack() as durable:
            hold(lambda: durable.enter_context(engine.store.deferred_commits()))
            try:
                began = time.perf_counter()
                while start + len(done) < len(ready) and time.perf_counter() - began < BATCH_BUDGET:
                    at = start + len(done)
                    done += hold(partial(_write_slice, engine, ready, rows, at, hold, budget))
            finally:
                hold(durable.close)  # the flush, under the engine like any write
        yield done
        start += len(done)


def _prepared(
    engine: LocalEngine, turns: Sequence[TurnToCapture]
) -> tuple[
    list[tuple[int, CaptureReport | Exception]],
    list[tuple[int, PreparedTurn]],
    list[Matrix | None],
]:
    """The turns that failed to prepare; the others prepared, with their vectors."""
    failed: list[tuple[int, CaptureReport | Exception]] = []
    ready: list[tuple[int, PreparedTurn]] = []
    for position, turn in enumerate(turns):
        try:
            prepared = engine.prepare_capture(
                turn.text,
                project=turn.project,
                session_id=turn.session_id,
                source=turn.source,
                progress=turn.progress,
                said_at=turn.said_at,
            )
        except Exception as exc:
            failed.append((position, exc))
            continue
        ready.append((position, prepared))
    return failed, ready, _vectors(engine, [prepared for _, prepared in ready])


def _vectors(engine: LocalEngine, prepared: list[PreparedTurn]) -> list[Matrix | None]:
    return turn_vectors(prepared, engine.document_vectors, engine.settings.parts)


def _write_slice(
    engine: LocalEngine,
    ready: list[tuple[int, PreparedTurn]],
    rows: list[Matrix | None],
    start: int,
    hold: Hold,
    budget: float,
) -> list[tuple[int, CaptureReport | Exception]]:
    """Write from turn `start` on until the budget is spent or someone waits (at least
    one candidate); returns the turns finished. A turn cut short goes on in the next
    slice, where it stopped."""
    began = time.perf_counter()

    def enough() -> bool:
        return time.perf_counter() - began > budget or hold.contended()

    done: list[tuple[int, CaptureReport | Exception]] = []
    for index in range(start, len(ready)):
        position, prepared = ready[index]
        try:
            report = engine.write_capture(prepared, vectors=rows[index], enough=enough)
        except Exception as exc:
            done.append((position, exc))
        else:
            if report is None:
                break
            done.append((position, report))
        if enough():
            break
    return done
