"""`python -m cortex_tui.tui.screenshots`: regenerate `screenshots/*.svg` from the demo data.

Deterministic by construction: a fresh demo store in a temporary home, the real embedded
model (it is deterministic), the engine's clock frozen at the demo's "now", a fixed
terminal size and no timings on screen. Running it twice gives identical files.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from cortex_tui.clock import frozen_clock
from cortex_tui.config import load_settings
from cortex_tui.demo.loader import demo_now, load_demo
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.tui.app import CortexApp
from cortex_tui.tui.scenes import Scene, scenes

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
    return 0


if __name__ == "__main__":
    sys.exit(main())
