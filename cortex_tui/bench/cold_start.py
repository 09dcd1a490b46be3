"""The first prompt of a session: what an agent waits for when no service is running.

After a reboot, the next morning or the service's idle exit, the first pre hook finds no
service and starts one. Two rows: the service alone, spawned to its first answer (a
pre hook's route, so the model and store are loaded and a recall ran); and the hook
process end to end, as the agent runs it, with whether its output carried memories. The
hook rows run on a quiet machine and again beside CPU-bound processes (a laptop
compiling or running tests), where the start was slowest.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cortex_tui.bench.hooks import run_hook, served_home
from cortex_tui.bench.timing import Timing
from cortex_tui.clients import local_service

COLD_PROMPT = "what do we deploy with, and who owns it?"


def bench_cold_start(
    seed_store: Callable[[Path], None], embedder_kind: str, runs: int
) -> dict[str, Any]:
    """`runs` cold starts of each kind on one seeded home, the service stopped before each."""
    with served_home(seed_store, embedder_kind) as (home, env, _first_start):
        local_service.stop(home, wait=60)
        spawn_to_answer = Timing()
        for _ in range(runs):
            spawn_to_answer.samples.append(_spawn_to_first_answer(home))
            local_service.stop(home, wait=60)
        quiet = _cold_hooks(home, env, runs)
        with busy_cores(os.cpu_count() or 2):
            busy = _cold_hooks(home, env, runs)
    return {
        "service_spawn_to_first_answer": spawn_to_answer.summary(),
        "cold_pre_hook": quiet,
        "cold_pre_hook_busy": busy,
    }


def _spawn_to_first_answer(home: Path) -> float:
    t0 = time.perf_counter()
    if not local_service.start(home, wait=120):
        raise RuntimeError(f"the service did not start; see {home}/logs/service.log")
    local_service.call_raw(home, "POST", local_service.PRE_HOOK_ROUTE, _event(), timeout=60)
    return time.perf_counter() - t0


def _cold_hooks(home: Path, env: dict[str, str], runs: int) -> dict[str, Any]:
    """The hook process end to end with no service running, and how many of its runs
    answered with memories."""
    timing, with_memories = Timing(), 0
    for _ in range(runs):
        output: list[str] = []
        timing.samples.append(run_hook("pre", _event().decode(), env, output))
        with_memories += "<cortex_memories>" in output[0]
        local_service.stop(home, wait=60)
    return {**timing.summary(), "with_memories": with_memories}


def _event() -> bytes:
    event = {"hook_event_name": "UserPromptSubmit", "prompt": COLD_PROMPT, "session_id": "cold"}
    return json.dumps(event).encode()


@contextmanager
def busy_cores(count: int) -> Iterator[None]:
    """`count` processes spinning on the CPU for as long as the block runs."""
    burners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(count)]
    for burner in burners:
        burner.start()
    try:
        yield
    finally:
        for burner in burners:
            burner.terminate()
            burner.join()


def _spin() -> None:
    while True:
        pass
