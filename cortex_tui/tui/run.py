"""`cortex-tui` (the user's store) and `cortex-tui --demo` (a throwaway copy of the demo).

Arguments are parsed before anything heavy is imported; textual loads only once we know
the app will run. Opening the user's store can fail in ordinary ways (another process
owns it, a broken config): those are one line on stderr and exit 1, never a traceback.
The demo lives in a temporary CORTEX_HOME, removed on exit, so it never touches the
user's store or config, and its clock is the demo data's "now".
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from cortex_tui.errors import CortexError


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
    open while the agent's hooks keep reading and writing the same store."""
    from cortex_tui.config import load_settings
    from cortex_tui.engine.connect import connect_engine

    try:
        settings = load_settings(home)
        engine = connect_engine(settings, daemon=daemon)
    except CortexError as exc:
        print(f"cortex-tui: {exc}", file=sys.stderr)
        return 1
    try:
        from cortex_tui.tui.app import CortexApp

        CortexApp(engine, home=settings.home).run()
    finally:
        engine.close()
    return 0


def _run_demo() -> int:
    from cortex_tui.clock import frozen_clock
    from cortex_tui.config import load_settings
    from cortex_tui.demo.loader import demo_now, load_demo
    from cortex_tui.engine.open import open_engine

    with tempfile.TemporaryDirectory(prefix="cortex-demo-") as folder:
        home = Path(folder)
        previous = os.environ.get("CORTEX_HOME")
        os.environ["CORTEX_HOME"] = folder  # the demo's config writes stay in the folder
        try:
            engine = open_engine(load_settings(home), clock=frozen_clock(demo_now()))
        except CortexError as exc:
            print(f"cortex-tui: {exc}", file=sys.stderr)
            return 1
        try:
            load_demo(engine)
            from cortex_tui.tui.app import CortexApp

            CortexApp(engine, demo=True, home=home).run()
        finally:
            engine.close()
            _restore_env("CORTEX_HOME", previous)
    return 0


def _restore_env(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
