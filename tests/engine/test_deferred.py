"""`DeferredEngine`: opened once, on demand or in the background; failures reach callers."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cortex_tui.embed.base import Embedder
from cortex_tui.engine.deferred import DeferredEngine, OpeningAbandoned
from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import StoreError
from cortex_tui.models import MemoryDraft
from tests.conftest import make_engine


def test_uses_wait_for_one_opening_and_reach_the_engine(
    tmp_path: Path, hashing_embedder: Embedder
) -> None:
    release = threading.Event()
    opened: list[LocalEngine] = []

    def opener() -> LocalEngine:
        release.wait()
        opened.append(make_engine(tmp_path / "home", hashing_embedder))
        return opened[-1]

    deferred = DeferredEngine(opener)
    deferred.start()
    with ThreadPoolExecutor(4) as pool:
        counts = [pool.submit(lambda: deferred.overview.stats().total) for _ in range(4)]
        release.set()
        assert [c.result() for c in counts] == [0] * 4
    deferred.remember(MemoryDraft(content="The staging database is pg-staging."))
    assert len(opened) == 1
    assert opened[0].overview.stats().total == 1
    deferred.close()
    make_engine(tmp_path / "home", hashing_embedder).close()  # closed: the lock is free


def test_a_failed_opening_is_raised_to_every_caller_and_close_is_quiet() -> None:
    calls = []

    def opener() -> LocalEngine:
        calls.append(1)
        raise StoreError("the store at /x is damaged; restore it")

    deferred = DeferredEngine(opener)
    for _ in range(2):
        with pytest.raises(StoreError, match="damaged"):
            deferred.overview.stats()
    assert len(calls) == 1
    deferred.close()


def test_closing_an_engine_never_used_opens_nothing() -> None:
    def opener() -> LocalEngine:
        raise AssertionError("opened")

    DeferredEngine(opener).close()


def test_an_abandoned_wait_lets_callers_go_and_the_engine_is_closed_when_it_arrives(
    tmp_path: Path, hashing_embedder: Embedder
) -> None:
    """An app closing while its service still starts: its waiting workers give up now,
    and the engine opened later is closed, never left holding the store."""
    release = threading.Event()

    def opener() -> LocalEngine:
        release.wait()
        return make_engine(tmp_path / "home", hashing_embedder)

    deferred = DeferredEngine(opener)
    deferred.start()
    with ThreadPoolExecutor(1) as pool:
        # Not `deferred.stats`: looking the attribute up is what waits for the opening.
        waiting = pool.submit(lambda: deferred.overview.stats())  # noqa: PLW0108
        deferred.abandon()
        with pytest.raises(OpeningAbandoned):
            waiting.result(timeout=5)
    assert isinstance(deferred.wait(), OpeningAbandoned)
    deferred.close(wait=False)  # returns at once
    release.set()
    for _ in range(100):  # closed on the opener's thread once it is done
        try:
            make_engine(tmp_path / "home", hashing_embedder).close()
            break
        except StoreError:
            threading.Event().wait(0.05)
    else:
        raise AssertionError("the store was never released")
