"""Shared fixtures: real embedded stores, real embedders, the CLI as a real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from cortex_tui.clock import frozen_clock
from cortex_tui.config import load_settings
from cortex_tui.embed.base import Embedder
from cortex_tui.embed.hashing import HashingEmbedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's own store or config."""
    for key in list(os.environ):
        if key.startswith("CORTEX_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("CORTEX_HOME", str(tmp_path / "default-home"))
    # In-process unless a test starts the service on purpose (tests/server).
    monkeypatch.setenv("CORTEX_DAEMON", "0")


@pytest.fixture(scope="session")
def onnx_embedder() -> Embedder:
    from cortex_tui.embed.onnx import OnnxMiniLMEmbedder

    return OnnxMiniLMEmbedder()


@pytest.fixture(scope="session")
def hashing_embedder() -> Embedder:
    return HashingEmbedder()


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
    ) -> CliResult:
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
        full_env["CORTEX_DAEMON"] = "0"
        if self.embedder:
            full_env["CORTEX_EMBEDDER__KIND"] = self.embedder
        full_env.update(env or {})
        prefix = ["--home", str(self.home)] if home else []
        proc = subprocess.run(
            [sys.executable, "-m", "cortex_tui", *prefix, *args],
            input=stdin,
            check=False,
            capture_output=True,
            text=True,
            env=full_env,
            timeout=300,
        )
        return CliResult(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """`cortex-tui` in a subprocess on a fresh home, hashing embedder unless changed."""
    return Cli(tmp_path / "cli-home")
