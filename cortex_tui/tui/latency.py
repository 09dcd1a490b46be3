"""`python -m cortex_tui.tui.latency`: the TUI's latency budgets, measured.

- first frame (`first-frame RUNS`, run by `cortex-tui bench --first-frame-runs`):
  `cortex-tui --demo`, and `cortex-tui` on an empty store with no service running,
  spawned in a pseudo-terminal until their first frame (budget: 0.5 s), and until the
  Recall pane's keys (demo) or the first-run guide (empty store) are drawn;
- first paint: `cortex-tui --demo` spawned in a pseudo-terminal until its first frame
  has been written to it, timed from outside, so interpreter start and imports count
  (budget: 0.5 s); then, typed at once, a first query: enter to its results' status line
  on the terminal. The demo's store is built and the embedding model loaded behind the
  first frame (`DemoApp`), so this first query may wait for the rest of both;
- recall refresh: enter in the Recall pane's query box until the results table and the
  breakdown are rebuilt with the new ranking, through the worker, plus one frame for the
  paint, on a 10k-memory store (budget: 150 ms);
- overview views (`views SIZE...`, run by `cortex-tui bench --views`): the key that
  shows the Map, Words, Days or Health pane until its data is drawn, the first time
  (computed) and after (kept by the engine), on stores of those sizes (budget: 300 ms
  at 10k, 2 s at 100k). The store is synthetic: texts from the
  engine benchmark's corpus, vectors from the real model's embeddings of a sample plus
  noise, like `cortex_tui.bench`.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import random
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import Any

import numpy as np

from cortex_tui.bench.corpus import synthetic_memory, synthetic_texts
from cortex_tui.clients import local_service
from cortex_tui.clock import frozen_clock
from cortex_tui.config import load_settings
from cortex_tui.demo.loader import demo_now
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.tui.run import MODELS_ENV

PAINT_SIZE = (120, 36)
"""The terminal the first paint is measured in: columns, rows."""
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


def first_paint(runs: int = 5) -> dict[str, float]:
    """`cortex-tui --demo` as a user starts it, in a terminal: from spawning the process to
    its first frame on the terminal, then from enter on a query typed at once to the
    Recall pane's status line of its results (worst case: the model may still be loading).
    """
    paints, queries = [], []
    for _ in range(runs):
        paint, query = _demo_session()
        paints.append(paint)
        queries.append(query)
    return {
        "median_s": round(statistics.median(paints), 3),
        "max_s": round(max(paints), 3),
        "first_query_median_ms": round(statistics.median(queries) * 1000, 1),
        "first_query_max_ms": round(max(queries) * 1000, 1),
    }


class PseudoTerminal:
    """A pseudo-terminal of `PAINT_SIZE` around a child process, read as it writes."""

    def __init__(self, command: list[str], env: dict[str, str] | None = None) -> None:
        """`command` in the terminal, in this environment without its `CORTEX_`
        variables (a user's shell has none) plus `env`. `COLUMNS` and `LINES` go too
        (pytest sets 80 x 24): the terminal's own size is the one to use."""
        columns, rows = PAINT_SIZE
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        inherited = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("CORTEX_") and k not in ("COLUMNS", "LINES")
        }
        env = inherited | (env or {})
        env["TERM"] = "xterm-256color"
        self.child = subprocess.Popen(
            command, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
        )
        os.close(slave)
        self.output = b""

    def wait_for(self, marker: bytes, start: int = 0, timeout: float = 60) -> float:
        """Read until `marker` is in the output past `start`; the perf_counter then."""
        deadline = time.perf_counter() + timeout
        while marker not in self.output[start:]:
            if not self._read(deadline - time.perf_counter()):
                tail = self.output[-300:]
                raise RuntimeError(f"no {marker!r} from the demo (last output {tail!r})")
        return time.perf_counter()

    def _read(self, timeout: float) -> bool:
        if timeout <= 0 or not select.select([self.master], [], [], timeout)[0]:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:  # the child closed the terminal
            return False
        self.output += data
        return bool(data)

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def type_query(self, query: str) -> None:
        """Focus the Recall pane's query box and type `query` into it, not yet entered.
        The box must hold the focus before the first letter: unfocused, letters are the
        pane's keys (w is "Why not?", c is Compare) and the query never reaches the box.
        """
        start = len(self.output)
        self.send("/")
        # Focused, its placeholder's first letter is the cursor, styled apart from the rest
        # (the unfocused placeholder, redrawn after any key, reads "what would..." whole).
        self.wait_for(b"mhat would the agent recall", start=start)
        start = len(self.output)
        self.send(query)
        self.wait_for(query.rsplit(maxsplit=1)[-1].encode(), start=start)

    def close(self) -> None:
        """Quit like a user (ctrl+q, so the demo removes its folder), reading until it
        exits; killed if it does not."""
        self.send("\x11")
        deadline = time.perf_counter() + 30
        while self.child.poll() is None and time.perf_counter() < deadline:
            self._read(0.1)
        if self.child.poll() is None:
            os.killpg(self.child.pid, signal.SIGKILL)
        self.child.wait()
        os.close(self.master)


def _demo_session(query: str = QUERIES[0]) -> tuple[float, float]:
    """(seconds to the first frame, seconds from enter to the first query's results)."""
    t0 = time.perf_counter()
    terminal = PseudoTerminal([sys.executable, "-m", "cortex_tui", "--demo"])
    try:
        painted = terminal.wait_for(LAST_ROW) - t0
        # Keys work once the Recall pane holds the focus: its bindings are in the footer.
        terminal.wait_for(b"Query")
        terminal.type_query(query)
        start = len(terminal.output)
        t1 = time.perf_counter()
        terminal.send("\r")
        answered = terminal.wait_for(b" candidates", start=start) - t1
    finally:
        terminal.close()
    return painted, answered


LAST_ROW = f"\x1b[{PAINT_SIZE[1]};1H".encode()
"""Textual writes a full frame row by row, each row after a cursor move to its start:
the move to the last row is the end of the first frame."""


def first_frame(runs: int = 5) -> dict[str, dict[str, float]]:
    """From spawning the process to its first frame in a terminal, and to what the user
    waits for after it: `cortex-tui --demo` until the Recall pane's keys are in the
    footer; `cortex-tui` on an empty store with no service running (a fresh home each
    run: the app starts the service) until the first-run guide is drawn, the service
    up and the store seen empty. The service's models are this installation's."""
    demo = _frame_times([sys.executable, "-m", "cortex_tui", "--demo"], b"Query", runs)
    models = {MODELS_ENV: str(load_settings().models_path)}
    guide_marker = b"Nothing in memory yet"
    empty = [_empty_store_session(models, guide_marker) for _ in range(runs)]
    return {
        "demo": _seconds([paint for paint, _ in demo], [ready for _, ready in demo]),
        "empty_store_no_service": _seconds(
            [paint for paint, _ in empty], [ready for _, ready in empty]
        ),
    }


def _frame_times(command: list[str], ready: bytes, runs: int) -> list[tuple[float, float]]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        terminal = PseudoTerminal(command)
        try:
            painted = terminal.wait_for(LAST_ROW) - t0
            times.append((painted, terminal.wait_for(ready) - t0))
        finally:
            terminal.close()
    return times


def _empty_store_session(env: dict[str, str], ready: bytes) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="cortex-bench-first-run-") as home:
        command = [sys.executable, "-m", "cortex_tui", "--tui", "--home", home]
        t0 = time.perf_counter()
        terminal = PseudoTerminal(command, env=env)
        try:
            painted = terminal.wait_for(LAST_ROW) - t0
            return painted, terminal.wait_for(ready) - t0
        finally:
            terminal.close()
            local_service.stop(home, wait=30)


def _seconds(paints: list[float], ready: list[float]) -> dict[str, float]:
    return {
        "first_frame_median_s": round(statistics.median(paints), 3),
        "first_frame_max_s": round(max(paints), 3),
        "ready_median_s": round(statistics.median(ready), 3),
        "ready_max_s": round(max(ready), 3),
    }


def _synthetic_store(engine: LocalEngine, size: int) -> None:
    rng = random.Random(size)
    noise = np.random.default_rng(size)
    base = np.asarray(engine.embedder.embed(synthetic_texts(256, seed=1)), np.float32)
    now = engine.now()
    for start in range(0, size, 1024):
        count = min(1024, size - start)
        memories = [
            synthetic_memory(text, rng, now, ["atlas", "harbor", "lighthouse", None])
            for text in synthetic_texts(count, seed=size + start)
        ]
        vectors = base[noise.integers(0, len(base), count)]
        vectors = (vectors + noise.normal(0, 0.02, vectors.shape)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        engine.store.upsert_memories(memories, list(vectors.astype(np.float32)))


async def _refresh_times(engine: LocalEngine) -> list[float]:
    from textual.widgets import Input

    from cortex_tui.tui.app import CortexApp
    from cortex_tui.tui.panes.recall import RecallPane
    from cortex_tui.tui.scenes import settle

    app = CortexApp(engine, stable=True)
    samples = []
    async with app.run_test(size=(120, 36)) as pilot:
        # Start-up work (the other panes' mounting, the Recall pane's options) is over
        # before a person could type a query: measure the refresh alone.
        await settle(pilot)
        pane = app.query_one(RecallPane)
        field = app.query_one("#recall-query", Input)
        shown = pane.show_outcome
        done: list[float] = []

        def timed(outcome: Any) -> None:
            shown(outcome)  # the tables and the breakdown are rebuilt here
            done.append(time.perf_counter())

        pane.show_outcome = timed  # type: ignore[method-assign]
        for query in ["warm up", *QUERIES]:
            field.focus()
            field.value = query
            await pilot.pause()  # the footer's redraw for the focus: typing time, not ours
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


VIEWS = ("map", "words", "timeline", "health")
VIEW_RUNS = 3


async def _view_times(engine: LocalEngine) -> dict[str, dict[str, float]]:
    """Per overview pane: from the key that shows it to its data drawn, plus a frame.
    The first showing computes (the engine's answer is not kept yet); the ones after
    find the answer kept, as a person coming back to the pane does."""
    from cortex_tui.tui.app import CortexApp
    from cortex_tui.tui.scenes import settle

    app = CortexApp(engine, stable=True)
    app.animation_level = "none"  # the tab underline's slide is not the pane's work
    found: dict[str, dict[str, float]] = {}
    async with app.run_test(size=PAINT_SIZE) as pilot:
        await settle(pilot)
        for pane_id in VIEWS:
            pane = app.pane(pane_id)
            assert pane is not None
            shown = pane.show  # type: ignore[attr-defined]
            done: list[float] = []

            def timed(view: Any, shown: Any = shown, done: list[float] = done) -> None:
                shown(view)
                done.append(time.perf_counter())

            pane.show = timed  # type: ignore[attr-defined]
            samples = []
            for _ in range(VIEW_RUNS):
                await app.run_action("show_pane('recall')")
                await settle(pilot)
                count = len(done)
                t0 = time.perf_counter()
                await app.run_action(f"show_pane('{pane_id}')")
                while len(done) == count:
                    await asyncio.sleep(0.001)
                samples.append((done[-1] - t0 + FRAME) * 1000)
                await settle(pilot)
            found[pane_id] = {
                "first_ms": round(samples[0], 1),
                "again_ms": round(statistics.median(samples[1:]), 1),
            }
    return found


def view_render(size: int) -> dict[str, Any]:
    """The Map, Words, Days and Health panes on a synthetic `size`-memory store."""
    with tempfile.TemporaryDirectory(prefix="cortex-bench-views-") as folder:
        engine = open_engine(load_settings(Path(folder)), clock=frozen_clock(demo_now()))
        try:
            _synthetic_store(engine, size)
            return {"memories": size, **asyncio.run(_view_times(engine))}
        finally:
            engine.close()


def main(args: list[str]) -> int:
    """No arguments: first paint and recall refresh. `views SIZE...`: the overview panes'
    render times on stores of those sizes; `first-frame RUNS`: the first frame of the
    demo and of an empty store (JSON on stdout, for `cortex-tui bench`)."""
    if args[:1] == ["views"]:
        print(json.dumps([view_render(int(size)) for size in args[1:]]))
        return 0
    if args[:1] == ["first-frame"]:
        print(json.dumps(first_frame(int(args[1]))))
        return 0
    report = {"first_paint": first_paint(), "recall_refresh": recall_refresh()}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
