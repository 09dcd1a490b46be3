"""Work no one waits for, run at a lower CPU priority than the work agents wait for.

On a busy machine (several agent sessions on two cores) the CPU itself is what a pre hook
waits for: each turn's capture (extracting its statements and embedding them) competed
with the hooks and recalls of every session, and doubled their latency. The capture's
preparation holds no lock, so it can yield the CPU without holding anyone up: it runs on
one thread whose nice value is raised (Linux schedules each thread on its own, and the
model's worker threads it starts inherit the value). The capture's writes, which hold
the engine, stay at normal priority: a starved lock holder would keep a reader waiting.

Elsewhere, where `setpriority` on a thread id would mean a process id, the thread keeps
its priority.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
log = logging.getLogger("cortex_tui.server")
NICENESS = 10
"""How much lower than the service's own priority: under contention the thread gets
about a tenth of a core's share (the kernel's weights), and all of an idle machine."""


class Background:
    """One thread for background CPU work, at `NICENESS` below the service (Linux)."""

    def __init__(self) -> None:
        self._thread = ThreadPoolExecutor(
            1, thread_name_prefix="background", initializer=lower_this_thread
        )

    def run(self, work: Callable[[], T]) -> T:
        """`work`'s result (or its exception), computed on the background thread."""
        return self._thread.submit(work).result()

    def close(self) -> None:
        self._thread.shutdown(wait=True)


def lower_this_thread() -> None:
    """Raise the calling thread's nice value by `NICENESS` (Linux only). A thread may
    always lower its own priority; should a sandbox forbid even that, the work runs at
    normal priority, which costs latency, not correctness."""
    if not sys.platform.startswith("linux"):
        return
    thread = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, thread, os.getpriority(os.PRIO_PROCESS, thread) + NICENESS)
    except OSError as exc:
        log.warning("background work keeps normal priority: %s", exc)
