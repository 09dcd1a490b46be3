"""The records on disk: newest first, filtered, bounded by age and size, private, never
holding a secret, and whole after a crash cut a write short."""

from __future__ import annotations

import gzip
import os
import stat
from datetime import datetime, timedelta
from pathlib import Path

from cortex_tui.config import InjectionsConfig, load_settings
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.open import open_engine
from cortex_tui.given.log import GivenLog
from cortex_tui.given.record import GivenRecord, LeftOut
from cortex_tui.models import MemoryType
from tests.conftest import NOW

GITHUB_TOKEN = "ghp_R8mQ2vXk9LtY4wZp7NcB3sHd6FjA1uE5gK0o"


class MovingClock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


def _record(
    at: datetime, session: str = "session-a", *, agent: str = "claude", pad: int = 0
) -> GivenRecord:
    # Padding that does not compress, as score breakdowns barely do between records.
    context = "<cortex_memories>\n" + os.urandom(pad // 2).hex() + "\n</cortex_memories>"
    return GivenRecord(
        at=at,
        agent=agent,
        trigger="prompt",
        session=session,
        prompt=f"prompt at {at.isoformat()}",
        context=context,
        budget_tokens=2000,
        used_tokens=len(context) // 4,
    )


def _log(folder: Path, clock: MovingClock, **config: float | bool) -> GivenLog:
    return GivenLog(folder, InjectionsConfig.model_validate(config), clock)


def test_records_come_back_newest_first_filtered_and_paged(tmp_path: Path) -> None:
    clock = MovingClock(NOW)
    log = _log(tmp_path / "injections", clock)
    for minute in range(6):
        session = "session-a" if minute % 2 == 0 else "session-b"
        agent = "mcp" if minute == 5 else "claude"
        log.append(_record(NOW + timedelta(minutes=minute), session, agent=agent))

    newest = log.newest()
    assert [record.at.minute for record in newest] == [5, 4, 3, 2, 1, 0]
    assert [r.at.minute for r in log.newest(session="session-a")] == [4, 2, 0]
    assert [r.at.minute for r in log.newest(session="session-b", agent="claude")] == [3, 1]
    assert [r.at.minute for r in log.newest(limit=2)] == [5, 4]
    assert [r.at.minute for r in log.newest(before=newest[1].at, limit=2)] == [3, 2]
    assert newest[0] == _record(NOW + timedelta(minutes=5), "session-b", agent="mcp").model_copy(
        update={"id": newest[0].id}
    )


def test_records_past_the_age_limit_are_neither_read_nor_kept(tmp_path: Path) -> None:
    clock = MovingClock(NOW)
    folder = tmp_path / "injections"
    # Small segments, so old records sit in segments of their own.
    log = _log(folder, clock, keep_days=2, max_mb=0.5)
    for _ in range(40):
        log.append(_record(clock(), pad=2000))
    old_segments = sorted(folder.glob("*.jsonl*"))
    assert len(old_segments) > 1

    clock.at = NOW + timedelta(days=3)
    assert log.newest() == [], "an expired record is not read"
    log = _log(folder, clock, keep_days=2, max_mb=0.5)  # a new process prunes at once
    log.append(_record(clock()))

    assert [record.at for record in log.newest()] == [clock.at]
    assert not any(path.exists() for path in old_segments[:-1])


def test_the_records_stay_within_the_size_limit_dropping_the_oldest(tmp_path: Path) -> None:
    clock = MovingClock(NOW)
    log = _log(tmp_path / "injections", clock, max_mb=0.5)
    appended = 0
    while appended < 600:  # ~1.2 MB of records against a 0.5 MB limit
        clock.at = NOW + timedelta(seconds=appended)
        log.append(_record(clock(), pad=2000))
        appended += 1
        assert log.size() <= log.max_bytes

    kept = log.newest(limit=1000)
    assert kept[0].at == clock.at, "the newest is kept"
    assert 100 < len(kept) < appended, "the oldest went, most of a limit's worth stayed"
    seconds = [int((record.at - NOW).total_seconds()) for record in kept]
    assert seconds == list(range(appended - 1, appended - 1 - len(kept), -1)), "no gap"


def test_a_write_cut_short_loses_that_record_alone(tmp_path: Path) -> None:
    clock = MovingClock(NOW)
    folder = tmp_path / "injections"
    log = _log(folder, clock)
    log.append(_record(NOW))
    segment = next(folder.glob("*.jsonl"))
    torn = _record(NOW + timedelta(minutes=1)).model_dump_json()
    with segment.open("a") as out:
        out.write(torn[: len(torn) // 2])  # a crash halfway through a line

    log.append(_record(NOW + timedelta(minutes=2)))

    assert [record.at.minute for record in log.newest()] == [2, 0]


def test_records_are_private_and_can_be_turned_off(tmp_path: Path) -> None:
    clock = MovingClock(NOW)
    folder = tmp_path / "injections"
    _log(folder, clock).append(_record(NOW))
    segment = next(folder.glob("*.jsonl*"))
    assert stat.S_IMODE(segment.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700

    off = _log(tmp_path / "off", clock, enabled=False)
    off.append(_record(NOW))
    assert not (tmp_path / "off").exists()


def test_a_record_never_holds_a_secret(tmp_path: Path, hashing_embedder: Embedder) -> None:
    """The engine's guard runs on every text of a record, whoever sent it: a prompt
    pasted with a token, a block written before that kind of secret was known."""
    engine = open_engine(load_settings(tmp_path / "home"), embedder=hashing_embedder)
    try:
        record = _record(engine.now()).model_copy(
            update={
                "prompt": f"why does {GITHUB_TOKEN} fail",
                "context": f"<cortex_memories>\n- [fact · 1d · abcdef12] token {GITHUB_TOKEN}\n",
                "left_out": [
                    LeftOut(
                        id="abcdef12-0000",
                        rank=2,
                        score=0.4,
                        type=MemoryType.FACT,
                        text=f"the CI token is {GITHUB_TOKEN}",
                        chars=60,
                    )
                ],
            }
        )
        engine.given.record(record)
        [kept] = engine.given.records()
    finally:
        engine.close()

    assert GITHUB_TOKEN not in kept.prompt and "[secret: GitHub token]" in kept.prompt
    assert "[secret: GitHub token]" in kept.context
    assert kept.left_out[0].text == "the CI token is [secret: GitHub token]"
    for path in (tmp_path / "home" / "injections").iterdir():
        assert GITHUB_TOKEN.encode() not in path.read_bytes()


def test_closed_segments_are_compressed_and_read_back_once(tmp_path: Path) -> None:
    clock = MovingClock(NOW)
    folder = tmp_path / "injections"
    log = _log(folder, clock, max_mb=0.5)
    for second in range(100):
        clock.at = NOW + timedelta(seconds=second)
        log.append(_record(clock(), pad=1000))
    compressed = sorted(folder.glob("*.jsonl.gz"))
    assert compressed and len(list(folder.glob("*.jsonl"))) == 1
    # A crash between the compressed copy's rename and the plain file's removal.
    leftover = compressed[0].with_name(compressed[0].name.removesuffix(".gz"))
    leftover.write_bytes(gzip.decompress(compressed[0].read_bytes()))

    seconds = [int((record.at - NOW).total_seconds()) for record in log.newest(limit=1000)]
    assert seconds == list(range(99, -1, -1))
