"""Shared fixtures: real embedded stores, real embedders, the CLI as a real subprocess."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from cortex_tui.clock import frozen_clock
from cortex_tui.config import load_settings
from cortex_tui.embed.base import Embedder
from cortex_tui.embed.catalogue import DEFAULT_MODEL, resolve
from cortex_tui.embed.hashing import HashingEmbedder
from cortex_tui.embed.onnx import OnnxEmbedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.paths import ram_folder
from cortex_tui.spool.durable import Spool

# `configure`: settings for a home on either backend, for the engine, write and
# maintenance tests alike
pytest_plugins = ["tests.store.backend_settings"]

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)
SUITE_RAM_MIN_FREE = 1 << 30
"""Room a run needs in RAM: at most 540 MB at once was measured (a passing test's folder
goes as it ends, pyproject's tmp_path_retention_policy), twice that for a margin."""


def pytest_configure(config: pytest.Config) -> None:
    """Every temporary file of the run (the tests', and those of the CLIs, services and
    apps they start, which inherit TMPDIR) goes to a RAM folder when there is one with
    room and TMPDIR is not set. The stores' disk syncs were most of the suite's time on
    disk (tests/engine/test_recall.py alone: 60 s on disk, 9 s in RAM), and they prove
    nothing the tests check: a process killed halfway leaves the same files in RAM."""
    folder = ram_folder(SUITE_RAM_MIN_FREE)
    if folder is not None:
        os.environ["TMPDIR"] = folder
        tempfile.tempdir = None  # read TMPDIR again


@pytest.fixture(scope="session", autouse=True)
def _no_service_outlives_the_suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Fail the run when a `cortex-tui serve` started by a test is still alive at the end
    (each xdist worker checks its own). A leaked service would idle for an hour on a CI
    runner; the ones found are stopped before failing."""
    base = tmp_path_factory.getbasetemp().resolve()
    yield
    leaked = _services_under(base)
    deadline = time.monotonic() + 3
    while leaked and time.monotonic() < deadline:  # one that is shutting down may finish
        time.sleep(0.2)
        leaked = _services_under(base)
    for pid in leaked:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    if leaked:
        pytest.fail(
            f"{len(leaked)} cortex-tui service(s) started by the tests outlived them: "
            f"{', '.join(sorted(leaked.values()))}; stop every service a test starts",
            pytrace=False,
        )


def _services_under(base: Path) -> dict[int, str]:
    """pid → home of each `cortex_tui serve --home HOME` process whose home is in `base`."""
    found: dict[int, str] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [os.fsdecode(word) for word in argv]
        if "cortex_tui" not in words or "serve" not in words or "--home" not in words:
            continue
        home = Path(words[words.index("--home") + 1]).resolve()
        if home.is_relative_to(base) and int(entry.name) != os.getpid():
            found[int(entry.name)] = str(home)
    return found


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """One worker more than the cores `-n auto` is given: about a fifth of a worker's time
    goes to waiting (a service starting, a Textual frame, an agent's turn), which the
    extra worker fills."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) + 1


MODELS_ENV = "CORTEX_EMBEDDER__MODELS_DIR"


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One models folder for the whole run, every xdist worker included, with the default
    model made once (each home would otherwise make its own, seconds each)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / "models"
    resolve(DEFAULT_MODEL, folder)
    return folder


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, models_dir: Path) -> None:
    """No test reads the developer's own store, config or models."""
    for key in list(os.environ):
        if key.startswith("CORTEX_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("CORTEX_HOME", str(tmp_path / "default-home"))
    monkeypatch.setenv(MODELS_ENV, str(models_dir))
    # In-process unless a test starts the service on purpose (tests/server).
    monkeypatch.setenv("CORTEX_DAEMON", "0")


@pytest.fixture(scope="session")
def onnx_embedder(models_dir: Path) -> OnnxEmbedder:
    """The default model, as a store made today gets it."""
    return OnnxEmbedder(resolve(DEFAULT_MODEL, models_dir))


@pytest.fixture(scope="session")
def hashing_embedder() -> Embedder:
    return HashingEmbedder()


def spool_waiting_turn(home: Path, waited_seconds: float) -> None:
    """A captured turn left in `home`'s spool `waited_seconds` ago (wall clock), as if
    nothing had drained it since."""
    entry = {"key": f"waiting-{waited_seconds}", "text": "a turn", "session_id": "s"}
    entry |= {"project": None, "at": time.time() - waited_seconds}
    Spool(home / "spool", logging.getLogger("tests")).append(entry)


def copy_home(source: Path, target: Path) -> Path:
    """A test's own copy of a home filled once for its module: sparse, as an embedded
    store's files are (mostly holes: 800 MB apparent for 2 MB written), so it costs a
    few milliseconds where filling the home again costs seconds of CLI runs."""
    subprocess.run(["cp", "-a", "--sparse=always", str(source), str(target)], check=True)
    return target


def make_engine(home: Path, embedder: Embedder, now: datetime = NOW) -> LocalEngine:
    return open_engine(load_settings(home), clock=frozen_clock(now), embedder=embedder)


@pytest.fixture
def engine(tmp_path: Path, hashing_embedder: Embedder) -> Iterator[LocalEngine]:
    """An in-process engine on a real Qdrant Edge store with the fast hashing embedder."""
    eng = make_engine(tmp_path / "home", hashing_embedder)
    yield eng
    eng.close()


@pytest.fixture
def onnx_engine(tmp_path: Path, onnx_embedder: Embedder) -> Iterator[LocalEngine]:
    """An in-process engine on a real Qdrant Edge store with the real embedded model."""
    eng = make_engine(tmp_path / "home", onnx_embedder)
    yield eng
    eng.close()


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@dataclass
class Cli:
    home: Path
    embedder: str | None = "hashing"

    def __call__(
        self,
        *args: str,
        stdin: str | None = None,
        env: dict[str, str] | None = None,
        home: bool = True,
        stdin_bytes: bytes | None = None,
    ) -> CliResult:
        full_env = {
            k: v for k, v in os.environ.items() if not k.startswith("CORTEX_") or k == MODELS_ENV
        }
        full_env["CORTEX_DAEMON"] = "0"
        if self.embedder:
            full_env["CORTEX_EMBEDDER__KIND"] = self.embedder
        full_env.update(env or {})
        prefix = ["--home", str(self.home)] if home else []
        proc = subprocess.run(
            [sys.executable, "-m", "cortex_tui", *prefix, *args],
            input=stdin.encode() if stdin is not None else stdin_bytes,
            check=False,
            capture_output=True,
            env=full_env,
            timeout=300,
        )
        return CliResult(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """`cortex-tui` in a subprocess on a fresh home, hashing embedder unless changed."""
    return Cli(tmp_path / "cli-home")
