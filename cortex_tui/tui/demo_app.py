"""`DemoApp`: the app over `cortex-tui --demo`, on screen before the demo's store exists.

Building the demo's store and loading the embedding model took two thirds of the time to
the first frame, which shows the Recall pane waiting for a query and needs neither. So
the app gets a `DeferredEngine` and, once its first frame is displayed, a worker thread
opens the store and then loads the model. Panes call the engine from workers, which wait
for the opening; a failed opening ends the app with the reason in `failure`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from cortex_tui.engine.deferred import DeferredEngine, OpeningAbandoned
from cortex_tui.errors import CortexError
from cortex_tui.tui.app import CortexApp

if TYPE_CHECKING:  # numpy and the engine: not before the first frame
    from cortex_tui.embed.base import Embedder
    from cortex_tui.engine.local import LocalEngine
    from cortex_tui.engine.protocol import Engine


class DemoApp(CortexApp):
    def __init__(self, engine: DeferredEngine[LocalEngine], home: Path) -> None:
        # A DeferredEngine delegates every Engine method to the engine it opens.
        super().__init__(
            cast("Engine", engine),
            demo=True,
            home=home,
            starting="Building the demo store… the panes fill as soon as it is ready.",
        )
        self._deferred = engine

    async def on_ready(self) -> None:
        """The first frame is on screen (Textual then runs `CortexApp.on_ready` too)."""
        self.run_worker(self._open_demo, name="open-demo", thread=True)

    def _open_demo(self) -> None:
        try:
            embedder = self._deferred.result().embedder
        except OpeningAbandoned:
            return  # quit while the store was still being built
        except CortexError as exc:
            self.failure = exc
            self.call_from_thread(self.call_later, self.exit_when_mounted)
            return
        self._load_model(embedder)

    def _load_model(self, embedder: Embedder) -> None:
        """Now rather than on the first query, which then finds the model loaded (or
        waits for the rest of this load, never for a second one)."""
        from cortex_tui.embed.factory import Loadable

        if not isinstance(embedder, Loadable):
            return
        try:
            embedder.load()
        except CortexError as exc:  # each query reports it again; say it now as well
            self.call_from_thread(self.notify, str(exc), severity="error", title="embedding model")
