"""`python -m cortex_tui.tui.bench`: the TUI's two latency budgets, measured.

- first paint: a fresh process opening the demo (real model, demo data loaded) until the
  app's first screen is composed and painted, timed from outside the process, so imports
  count (budget: 1 s);
- recall refresh: enter in the Recall pane's query box until the results table and the
  breakdown are rebuilt with the new ranking, through the worker, plus one frame for the
  paint, on a 10k-memory store (budget: 150 ms). The store is synthetic: texts from the
  engine benchmark's corpus, vectors from the real model's embeddings of a sample plus
  noise, like `cortex_tui.bench`.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from cortex_tui.bench.corpus import synthetic_texts
from cortex_tui.clock import frozen_clock
from cortex_tui.config import load_settings
from cortex_tui.demo.loader import demo_now
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.models import Memory, MemoryType, Scope

FRAME = 1 / 60
"""Textual paints changed widgets on its next frame: at most this long after an update."""
QUERIES = [
    "how do we deploy to production",
    "database migration rules",
    "who reviews infrastructure changes",
    "ci pipeline failures on main",
    "frontend build settings",
    "on-call handover steps",
    "which postgres version runs in prod",
    "secrets and vault paths",
    "release freeze dates",
    "kafka consumer lag alerts",
]


def first_paint(runs: int = 3) -> dict[str, float]:
    """Seconds from spawning `cortex-tui --demo` (headless) to its first painted screen."""
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "cortex_tui.tui.bench", "--child"],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        line = child.stdout.readline()
        samples.append(time.perf_counter() - t0)
        child.wait(timeout=60)
        if not line.startswith("painted"):
            raise RuntimeError(f"the app did not paint: {line!r}")
    return {"median_s": round(statistics.median(samples), 3), "max_s": round(max(samples), 3)}


def _child() -> None:
    """The measured process: open the demo like `cortex-tui --demo`, report first paint."""
    from cortex_tui.demo.loader import load_demo
    from cortex_tui.tui.app import CortexApp

    with tempfile.TemporaryDirectory(prefix="cortex-bench-paint-") as folder:
        home = Path(folder)
        engine = open_engine(load_settings(home), clock=frozen_clock(demo_now()))
        load_demo(engine)
        app = CortexApp(engine, demo=True, home=home)

        async def pilot(pilot: Any) -> None:
            await pilot.pause()
            print("painted", flush=True)
            app.exit()

        app.run(headless=True, size=(120, 36), auto_pilot=pilot)
        engine.close()


def _synthetic_store(engine: LocalEngine, size: int) -> None:
    rng = random.Random(size)
    noise = np.random.default_rng(size)
    base = np.asarray(engine.embedder.embed(synthetic_texts(256, seed=1)), np.float32)
    now = engine.now()
    for start in range(0, size, 1024):
        count = min(1024, size - start)
        memories = []
        for text in synthetic_texts(count, seed=size + start):
            created = now - timedelta(hours=rng.uniform(1, 24 * 300))
            project = rng.choice(["atlas", "harbor", "lighthouse", None])
            memories.append(
                Memory(
                    content=text,
                    type=rng.choice(list(MemoryType)),
                    scope=Scope.PROJECT if project else Scope.PERMANENT,
                    project=project,
                    tags=rng.sample(["ops", "db", "ci", "review", "frontend", "infra"], k=2),
                    created_at=created,
                    updated_at=created,
                    valid_from=created,
                    access_count=rng.randint(0, 20),
                )
            )
        vectors = base[noise.integers(0, len(base), count)]
        vectors = (vectors + noise.normal(0, 0.02, vectors.shape)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        engine.store.upsert_memories(memories, list(vectors.astype(np.float32)))


async def _refresh_times(engine: LocalEngine) -> list[float]:
    from textual.widgets import Input

    from cortex_tui.tui.app import CortexApp
    from cortex_tui.tui.panes.recall import RecallPane

    app = CortexApp(engine, stable=True)
    samples = []
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        pane = app.query_one(RecallPane)
        field = app.query_one("#recall-query", Input)
        shown = pane._show_outcome
        done: list[float] = []

        def timed(outcome: Any) -> None:
            shown(outcome)  # the tables and the breakdown are rebuilt here
            done.append(time.perf_counter())

        pane._show_outcome = timed  # type: ignore[method-assign]
        for query in ["warm up", *QUERIES]:
            field.focus()
            field.value = query
            count = len(done)
            t0 = time.perf_counter()
            await pilot.press("enter")
            while len(done) == count:
                await asyncio.sleep(0.001)
            samples.append(done[-1] - t0 + FRAME)
            await pilot.pause()
    return samples[1:]


def recall_refresh(size: int = 10_000) -> dict[str, float]:
    """Enter-to-repainted-table latency in the Recall pane over a `size`-memory store."""
    with tempfile.TemporaryDirectory(prefix="cortex-bench-refresh-") as folder:
        engine = open_engine(load_settings(Path(folder)), clock=frozen_clock(demo_now()))
        try:
            _synthetic_store(engine, size)
            samples = asyncio.run(_refresh_times(engine))
        finally:
            engine.close()
    ms = sorted(s * 1000 for s in samples)
    return {
        "memories": size,
        "median_ms": round(statistics.median(ms), 1),
        "p90_ms": round(ms[int(0.9 * (len(ms) - 1))], 1),
        "max_ms": round(ms[-1], 1),
    }


def main(args: list[str]) -> int:
    if args == ["--child"]:
        _child()
        return 0
    report = {"first_paint": first_paint(), "recall_refresh": recall_refresh()}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
