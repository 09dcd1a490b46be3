"""`python -m cortex_tui.tui.screenshots`: regenerate `screenshots/*.svg` from the demo data.

Deterministic by construction: a fresh demo store in a temporary home, the real embedded
model (it is deterministic), the engine's clock frozen at the demo's "now", a fixed
terminal size and no timings on screen. Running it twice gives identical files.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

from cortex_tui.clock import frozen_clock
from cortex_tui.config import load_settings
from cortex_tui.demo.loader import demo_now, load_demo
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.tui.app import CortexApp
from cortex_tui.tui.scenes import SIZE, Scene, scenes, settle

OUT = Path(__file__).resolve().parents[2] / "screenshots"


def demo_app(engine: LocalEngine, home: Path, theme: str | None = None) -> CortexApp:
    """The app as screenshots and snapshot tests see it: demo title, stable."""
    app = CortexApp(engine, demo=True, home=home, stable=True)
    app.animation_level = "none"  # the tab underline slides; a frame mid-slide differs
    if theme:
        app.theme = theme
    return app


async def shoot(scene: Scene, engine: LocalEngine, home: Path) -> str:
    app = demo_app(engine, home, scene.theme)
    async with app.run_test(size=scene.size) as pilot:
        await scene.prepare(pilot)
        return app.export_screenshot(title=f"cortex-tui · {scene.name}")


async def shoot_first_run(engine: LocalEngine, home: Path) -> str:
    """The Recall pane of an empty store: the first-run guide."""
    app = CortexApp(engine, home=home, stable=True)
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        return app.export_screenshot(title="cortex-tui · first run")


def first_run(out: Path) -> None:
    """On a new, empty store whose home is the one commands find by themselves, as a new
    user's is (no `--home` in the guide's commands)."""
    with tempfile.TemporaryDirectory(prefix="cortex-shots-empty-") as folder:
        home = Path(folder)
        previous = os.environ.get("CORTEX_HOME")
        os.environ["CORTEX_HOME"] = folder
        engine = open_engine(load_settings(home), clock=frozen_clock(demo_now()))
        try:
            svg = asyncio.run(shoot_first_run(engine, home))
        finally:
            engine.close()
            if previous is None:
                os.environ.pop("CORTEX_HOME")
            else:
                os.environ["CORTEX_HOME"] = previous
    (out / "first-run.svg").write_text(svg, encoding="utf-8")
    print("screenshots/first-run.svg")


def main(out: Path = OUT) -> int:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cortex-shots-") as folder:
        home = Path(folder)
        engine = open_engine(load_settings(home), clock=frozen_clock(demo_now()))
        try:
            load_demo(engine)
            for scene in scenes():
                # Each scene starts from the remembered-theme-free home, like a new user.
                (home / "config.toml").unlink(missing_ok=True)
                svg = asyncio.run(shoot(scene, engine, home))
                (out / f"{scene.name}.svg").write_text(svg, encoding="utf-8")
                print(f"screenshots/{scene.name}.svg")
        finally:
            engine.close()
    first_run(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
