"""File sync through a real service: how fast a large notes file is taken in, and how
long a saved line takes to become recallable while `watch` runs.

The notes file is synthetic (the bench corpus as bullets, fifty to a heading), so most
statements have close neighbours and the write path judges them as it would real notes.
The watch is the foreground one (`cortex-tui watch`): the real watcher, a sync pass per
batch, the spool, the service's drain; latency runs from the save to the first recall
that returns the line.
"""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from cortex_tui.bench.corpus import distinct_statements, synthetic_texts
from cortex_tui.bench.hooks import served_home
from cortex_tui.bench.timing import Timing
from cortex_tui.config import load_settings
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.recall.request import RecallRequest
from cortex_tui.sync.deliver import deliver
from cortex_tui.sync.run import sync_paths
from cortex_tui.sync.watch import watch_paths

PER_HEADING = 50
RECALL_POLL = 0.02
SAVE_TIMEOUT = 60.0


def bench_sync(embedder_kind: str, lines: int, saves: int) -> dict[str, Any]:
    with (
        served_home(lambda _home: None, embedder_kind) as (home, _env, _cold),
        tempfile.TemporaryDirectory(prefix="cortex-bench-notes-") as tmp,
    ):
        report: dict[str, Any] = {}
        if lines:
            report["import"] = _time_import(home, Path(tmp) / "big", lines)
        if saves:
            report["watch"] = _time_watch(home, Path(tmp) / "watched", saves)
        return report


def _time_import(home: Path, folder: Path, lines: int) -> dict[str, Any]:
    folder.mkdir()
    notes = folder / "MEMORY.md"
    texts = synthetic_texts(lines, seed=11)
    with notes.open("w") as out:
        for start in range(0, lines, PER_HEADING):
            out.write(f"## Section {start // PER_HEADING}\n")
            out.writelines(f"- {text}\n" for text in texts[start : start + PER_HEADING])
    settings = load_settings(home)
    t0 = time.perf_counter()
    report = sync_paths([notes], home)
    spooled = time.perf_counter() - t0
    delivery = deliver(settings, daemon=True)
    total = time.perf_counter() - t0
    if not delivery.stored:
        raise RuntimeError(f"the sync was not stored: {delivery.note}")
    t1 = time.perf_counter()
    again = sync_paths([notes], home)
    return {
        "lines": lines,
        "statements": report.operations,
        "seconds": round(total, 1),
        "lines_per_second": round(lines / total, 1),
        "read_and_spool_ms": round(spooled * 1000, 1),
        "unchanged_pass_ms": round((time.perf_counter() - t1) * 1000, 1),
        "unchanged_pass_spooled": len(again.keys),
    }


def _time_watch(home: Path, folder: Path, saves: int) -> dict[str, Any]:
    folder.mkdir()
    notes = folder / "MEMORY.md"
    notes.write_text("# Notes\n")
    settings = load_settings(home)
    stop, ready = threading.Event(), threading.Event()

    def on_batch() -> None:
        sync_paths([folder], home)
        deliver(settings, daemon=True)

    watcher = threading.Thread(
        target=watch_paths, args=([folder], on_batch), kwargs={"stop": stop, "ready": ready.set}
    )
    watcher.start()
    remote = RemoteEngine.over_socket(home)
    timing = Timing()
    try:
        if not ready.wait(SAVE_TIMEOUT):
            raise RuntimeError("the watch did not start")
        for line in distinct_statements(saves, seed=17):
            t0 = time.perf_counter()
            with notes.open("a") as out:
                out.write(f"- {line}\n")
            while not _recalled(remote, line):
                if time.perf_counter() - t0 > SAVE_TIMEOUT:
                    raise RuntimeError(f"{line!r} was not recallable within {SAVE_TIMEOUT} s")
                time.sleep(RECALL_POLL)
            timing.samples.append(time.perf_counter() - t0)
    finally:
        stop.set()
        watcher.join(timeout=10)
        remote.close()
    return {"saves": saves, "save_to_recallable": timing.summary()}


def _recalled(remote: RemoteEngine, line: str) -> bool:
    answer = remote.recall(RecallRequest(query=line, limit=3, update_access=False))
    return any(r.memory.content == line for r in answer.results)
