"""`DeferredEngine`: an engine that opens on a background thread, for a UI that paints
before its store is ready.

`cortex-tui --demo` builds a fresh store on every start. Its first frame (the Recall pane
waiting for a query) needs no data, so the app is handed this stand-in and paints at
once; the opening starts when asked (`start`) and every use of the engine waits for it,
or raises the error it failed with. The TUI calls the engine only from worker threads,
so the wait never blocks the screen.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # importing the engine is a third of the demo's start-up: not here
    from cortex_tui.engine.local import LocalEngine


class DeferredEngine:
    """Delegates every attribute to the engine `opener` returns, once it has returned."""

    def __init__(self, opener: Callable[[], LocalEngine]) -> None:
        self._opener = opener
        self._future: Future[LocalEngine] = Future()
        self._started = False
        self._lock = threading.Lock()

    def start(self) -> None:
        """Begin opening on a daemon thread, unless that has begun."""
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._open, name="open-engine", daemon=True).start()

    def _open(self) -> None:
        try:
            self._future.set_result(self._opener())
        except BaseException as exc:  # handed to every caller by `result()`
            self._future.set_exception(exc)

    def result(self) -> LocalEngine:
        """The opened engine (opening it now if nobody started it); raises what the
        opening raised."""
        self.start()
        return self._future.result()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.result(), name)

    def close(self) -> None:
        """Close the engine if it was opened; an opening under way is waited for."""
        with self._lock:
            started = self._started
        if not started or self._future.exception() is not None:
            return
        self._future.result().close()
