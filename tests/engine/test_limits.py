"""Size limits (`limits.*`): over them the engine refuses with one line naming the limit
and the fix; the spool's turns are trimmed instead (a hook never fails a turn)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cortex_tui.agent_turn.drain import batch_capture, capture_turn, drain_spool
from cortex_tui.agent_turn.spooling import spool_draft, turn_entry
from cortex_tui.config import load_settings
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.capture_batch import Unshared
from cortex_tui.engine.limits import fit_turn
from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import InvalidInputError, TooLargeError
from cortex_tui.models import MemoryDraft
from cortex_tui.recall.request import RecallRequest
from cortex_tui.spool.durable import Spool, TurnProgress
from cortex_tui.store.base import MemoryFilter
from tests.conftest import make_engine

log = logging.getLogger("test.limits")


@pytest.fixture
def small(
    tmp_path: Path, hashing_embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> Iterator[LocalEngine]:
    monkeypatch.setenv("CORTEX_LIMITS__CONTENT_CHARS", "200")
    monkeypatch.setenv("CORTEX_LIMITS__QUERY_CHARS", "100")
    monkeypatch.setenv("CORTEX_LIMITS__CAPTURE_CHARS", "1000")
    engine = make_engine(tmp_path / "home", hashing_embedder)
    yield engine
    engine.close()


def test_the_defaults_are_far_above_real_notes_and_prompts() -> None:
    limits = load_settings().limits
    assert limits.content_chars == 65_536 and limits.query_chars == 8_192
    assert limits.capture_chars >= 256 * 1024


def test_content_over_the_limit_is_refused_in_one_line(small: LocalEngine) -> None:
    stored = small.remember(MemoryDraft(content="x" * 200))
    with pytest.raises(TooLargeError) as refused:
        small.remember(MemoryDraft(content="y" * 201))
    message = str(refused.value)
    assert "\n" not in message
    assert "201 characters" in message and "limits.content_chars (200)" in message
    assert isinstance(refused.value, InvalidInputError)
    with pytest.raises(TooLargeError):
        small.update(stored.memory.id, content="z" * 300)
    assert small.get(stored.memory.id).is_current  # nothing changed


def test_a_query_is_measured_after_trimming(small: LocalEngine) -> None:
    small.remember(MemoryDraft(content="The atlas API listens on port 8443"))
    padded = "   which port does atlas use   " + " " * 500
    assert small.recall(RecallRequest(query=padded)).results
    with pytest.raises(TooLargeError, match=r"limits\.query_chars \(100\)"):
        small.recall(RecallRequest(query="atlas " * 30))


def test_capture_refuses_a_turn_over_the_limit(small: LocalEngine) -> None:
    with pytest.raises(TooLargeError, match=r"limits\.capture_chars \(1000\)"):
        small.capture("User: " + "word " * 400)


def test_a_spooled_turn_over_the_limit_is_trimmed_and_captured(
    small: LocalEngine, tmp_path: Path
) -> None:
    spool = Spool(tmp_path / "spool", log)
    text = (
        "User: From now on we deploy atlas with Fly.io.\n\n"
        + "Assistant: "
        + "log line. " * 300
        + "\n\nUser: Always run `make lint` before opening a pull request."
    )
    spool.append(turn_entry(text, "s1", None))
    assert drain_spool(spool, lambda *_: "unused", log, batch_capture(small, Unshared())) == 1
    contents = [m.content for m in small.list_memories(MemoryFilter(), 50).memories]
    assert any("Fly.io" in c for c in contents)  # the head is kept
    assert any("make lint" in c for c in contents)  # and so is the end


def test_fit_turn_keeps_the_start_and_the_end() -> None:
    text = "A" * 600 + "B" * 600
    fitted = fit_turn(text, 1000)
    assert len(fitted) <= 1000
    assert fitted.startswith("A" * 400) and fitted.endswith("B" * 400)
    assert "characters left out" in fitted
    assert fit_turn("short", 1000) == "short"


def test_a_spooled_draft_that_can_never_be_stored_is_set_aside(
    small: LocalEngine, tmp_path: Path
) -> None:
    """A memory queued while the store was away, too large for the limit set since:
    kept in the spool's quarantine, not retried for ever, and the rest still stored."""
    home = tmp_path / "spool-home"
    spool_draft({"content": "q" * 300}, home, log)
    spool_draft({"content": "The harbor API listens on port 9000"}, home, log)
    spool = Spool(home / "spool", log)
    captured = drain_spool(
        spool,
        lambda item, progress: capture_one(small, item, progress),
        log,
        batch_capture(small, Unshared()),
    )
    assert captured == 1 and spool.pending() == []
    assert spool.quarantined() == 1
    assert "q" * 300 in (home / "spool" / "quarantine" / "refused.jsonl").read_text()
    assert small.recall(RecallRequest(query="harbor API port")).results


def capture_one(engine: LocalEngine, item: dict[str, Any], progress: TurnProgress) -> str:
    return capture_turn(engine, item, progress)
