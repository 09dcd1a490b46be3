"""Fixtures for the TUI tests: the demo data on a frozen clock, and an app factory.

Every TUI test runs on its own CORTEX_HOME (config.toml writes such as the chosen theme or
a saved weight profile land there), on the demo data set, with the engine's clock frozen
at the demo's "now" so ages and recency never change between runs. `NO_COLOR` is cleared
so snapshot tests render the same colours everywhere.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from cortex_tui.clock import frozen_clock
from cortex_tui.config import load_settings
from cortex_tui.demo.loader import demo_now, load_demo
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine

if TYPE_CHECKING:
    from cortex_tui.tui.app import CortexApp

AppFactory = Callable[..., "CortexApp"]


@pytest.fixture(autouse=True)
def _tui_env(monkeypatch: pytest.MonkeyPatch, tui_home: Path) -> None:
    """Colours on, and the test's own home as CORTEX_HOME."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("CORTEX_HOME", str(tui_home))


@pytest.fixture
def tui_home(tmp_path: Path) -> Path:
    home = tmp_path / "tui-home"
    home.mkdir()
    return home


def open_demo_engine(home: Path, embedder: Embedder) -> LocalEngine:
    """An in-process engine on `home` holding the demo data, its clock at the demo's now."""
    engine = open_engine(load_settings(home), clock=frozen_clock(demo_now()), embedder=embedder)
    load_demo(engine)
    return engine


@pytest.fixture(scope="session")
def demo_home_template(
    tmp_path_factory: pytest.TempPathFactory, hashing_embedder: Embedder
) -> Path:
    """A home holding the demo data, loaded once a worker: a test's `demo_engine` opens
    a copy of it (a few milliseconds) instead of loading the demo again."""
    home = tmp_path_factory.mktemp("demo-home-template")
    open_demo_engine(home, hashing_embedder).close()
    return home


@pytest.fixture
def demo_engine(
    tui_home: Path, demo_home_template: Path, hashing_embedder: Embedder
) -> Iterator[LocalEngine]:
    """The demo data with the fast hashing embedder (enough for everything but ranking)."""
    subprocess.run(
        ["cp", "-a", "--sparse=always", f"{demo_home_template}/.", str(tui_home)], check=True
    )
    engine = open_engine(
        load_settings(tui_home), clock=frozen_clock(demo_now()), embedder=hashing_embedder
    )
    yield engine
    engine.close()


@pytest.fixture
def empty_engine(tui_home: Path, hashing_embedder: Embedder) -> Iterator[LocalEngine]:
    """A new store with nothing in it: what a first run opens."""
    engine = open_engine(load_settings(tui_home), embedder=hashing_embedder)
    yield engine
    engine.close()


@pytest.fixture
def onnx_demo_engine(tui_home: Path, onnx_embedder: Embedder) -> Iterator[LocalEngine]:
    """The demo data with the real embedded model, for tests about what recall ranks."""
    engine = open_demo_engine(tui_home, onnx_embedder)
    yield engine
    engine.close()


@pytest.fixture
def make_app(tui_home: Path, request: pytest.FixtureRequest) -> AppFactory:
    """Build a `CortexApp` on the demo engine (or `engine=...`), its config in `tui_home`.

    Call it inside the test: `app = make_app()`, then `async with app.run_test(size=...)`,
    or hand it to `snap_compare`. Keyword arguments go to `CortexApp`. Without `engine`,
    the `demo_engine` fixture is used (opened only then: one store, one owner).
    """

    def factory(engine: LocalEngine | None = None, **kwargs: Any) -> CortexApp:
        from cortex_tui.tui.app import CortexApp

        kwargs.setdefault("home", tui_home)
        kwargs.setdefault("demo", True)
        chosen = engine or request.getfixturevalue("demo_engine")
        return CortexApp(chosen, **kwargs)

    return factory


@pytest.fixture
def anyio_backend() -> str:
    """Textual runs on asyncio; async tests marked `anyio` run there only."""
    return "asyncio"
