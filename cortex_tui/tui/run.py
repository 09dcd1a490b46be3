"""`cortex-tui` (the user's store) and `cortex-tui --demo` (a throwaway copy of the demo).

Arguments are parsed before anything heavy is imported; textual loads only once we know
the app will run. Opening the user's store can fail in ordinary ways (another process
owns it, a broken config): those are one line on stderr and exit 1, never a traceback.
The demo lives in a temporary CORTEX_HOME, removed on exit, so it never touches the
user's store or config, and its clock is the demo data's "now". Its first frame waits
for neither the store nor the model: both are made ready behind it (see `DemoApp`).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from cortex_tui.paths import default_home, ram_folder

if TYPE_CHECKING:
    from cortex_tui.engine.local import LocalEngine
    from cortex_tui.engine.protocol import Engine

MODELS_ENV = "CORTEX_EMBEDDER__MODELS_DIR"
DEMO_MIN_FREE = 256 * 1024 * 1024
"""Room the demo's folder needs in RAM (its store holds 116 memories)."""


def parse(args: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="cortex-tui",
        description="Inspect and curate the memory store in a terminal UI.",
    )
    parser.add_argument(
        "--demo", action="store_true", help="open a fresh copy of the demo data (temporary)"
    )
    parser.add_argument("--home", type=Path, help="CORTEX_HOME to open (default: $CORTEX_HOME)")
    parser.add_argument(
        "--no-daemon",
        action="store_true",
        help="open the store in this process instead of using the local service",
    )
    return parser.parse_args(args)


def main(args: list[str]) -> int:
    options = parse(args)
    if options.demo:
        return _run_demo()
    return _run_user(options.home, daemon=False if options.no_daemon else None)


def _run_user(home: Path | None, daemon: bool | None) -> int:
    """Through the local service by default (started when needed), so the TUI can stay
    open while the agent's hooks keep reading and writing the same store.

    The app is on screen before the engine: starting the service (model load, store
    open) takes seconds, and the settings alone cost a first frame ~0.1 s of imports.
    Both happen on a thread behind the first frame (`DeferredEngine`); the app says it
    is starting, and if it fails, why and the ways out, printed again on exit.
    """
    from cortex_tui.engine.deferred import DeferredEngine
    from cortex_tui.quick_settings import remote_server

    home = (home or default_home()).expanduser()
    server = remote_server(home) if daemon is not False else None
    through_service = server is None and uses_service(home, daemon)
    if through_service:
        start_service_now(home)
    engine = DeferredEngine(lambda: open_user_engine(home, daemon))
    try:
        from cortex_tui.tui.app import CortexApp

        starting = starting_line(through_service, server[0] if server else None)
        app = CortexApp(engine, home=home, starting=starting)
        app.run()
    finally:
        engine.close(wait=False)
    if app.failure is not None:
        print(f"cortex-tui: {app.failure}", file=sys.stderr)
        return 1
    return 0


def open_user_engine(home: Path, daemon: bool | None) -> Engine:
    from cortex_tui.config import load_settings
    from cortex_tui.engine.connect import connect_engine

    return connect_engine(load_settings(home), daemon=daemon)


def uses_service(home: Path, daemon: bool | None) -> bool:
    """`--no-daemon`, else `CORTEX_DAEMON` or config.toml (read without pydantic)."""
    from cortex_tui.quick_settings import daemon_on

    return daemon is True or (daemon is None and daemon_on(home))


def start_service_now(home: Path) -> None:
    """Spawn the service unless it runs (or refused to start a moment ago: the engine's
    opening then says why), without waiting: it loads its model and store while the app
    starts, and the engine's opening finds it on its way. ~10 ms before the first frame
    for 0.4 s less to wait after it."""
    from cortex_tui.clients import local_service
    from cortex_tui.errors import CortexError

    try:
        if local_service.start_refusal(home) is None:
            local_service.start(home, wait=0.0)
    except (OSError, CortexError):
        pass  # the engine's opening starts it again, and says why it cannot


def starting_line(through_service: bool, server: str | None = None) -> str:
    """What the first frame waits for: the service (the default), a team server, or the
    store itself."""
    if server is not None:
        return f"Connecting to the team server at {server}… the panes fill once it answers."
    if through_service:
        return (
            "Connecting to the local service (started if needed)… the panes fill once it answers."
        )
    return "Opening the store… the panes fill as soon as it is ready."


def _run_demo() -> int:
    from cortex_tui.engine.deferred import DeferredEngine

    with demo_home() as home:
        engine = DeferredEngine(lambda: open_demo_engine(home))
        try:
            from cortex_tui.tui.demo_app import DemoApp

            app = DemoApp(engine, home)
            app.run()
        finally:
            engine.close()
    if app.failure is not None:
        print(f"cortex-tui: {app.failure}", file=sys.stderr)
        return 1
    return 0


@contextmanager
def demo_home() -> Iterator[Path]:
    """A fresh temporary CORTEX_HOME (removed on exit), so the demo's config writes stay
    out of the user's."""
    models = os.environ.get(MODELS_ENV) or str(default_home() / "models")
    # The demo's store is thrown away at exit: it needs no durability, and in RAM its
    # creation skips the disk syncs that are most of its cost.
    parent = ram_folder(DEMO_MIN_FREE)
    with tempfile.TemporaryDirectory(prefix="cortex-demo-", dir=parent) as folder:
        previous = os.environ.get("CORTEX_HOME"), os.environ.get(MODELS_ENV)
        os.environ["CORTEX_HOME"] = folder
        # The models stay the user's: the default one is made once, not per demo.
        os.environ[MODELS_ENV] = models
        try:
            yield Path(folder)
        finally:
            _restore_env("CORTEX_HOME", previous[0])
            _restore_env(MODELS_ENV, previous[1])


def open_demo_engine(home: Path) -> LocalEngine:
    """An engine on `home` holding the demo data and its weight profiles (so Compare
    has a second profile to offer), its clock at the demo's "now".

    The data comes with its vectors (`cortex_tui.demo.vectors`) and the embedding model
    is only located, not loaded (`DemoApp` loads it next), so this embeds nothing.
    """
    from cortex_tui.clock import frozen_clock
    from cortex_tui.config import load_settings
    from cortex_tui.demo.loader import demo_now, demo_profiles, load_demo
    from cortex_tui.embed.factory import make_embedder
    from cortex_tui.engine.open import open_engine

    settings = load_settings(home)
    embedder = make_embedder(settings.embedder, settings.models_path, lazy=True)
    engine = open_engine(settings, clock=frozen_clock(demo_now()), embedder=embedder)
    try:
        load_demo(engine)
        for name, weights in demo_profiles().items():
            engine.save_weight_profile(name, weights)  # into the demo's own config.toml
    except BaseException:
        engine.close()
        raise
    return engine


def _restore_env(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
