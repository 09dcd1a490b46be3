"""`DeferredEngine`: an engine that opens on a background thread, for a UI that paints
before its store is ready.

`cortex-tui --demo` builds a fresh store on every start, and `cortex-tui` may have to
start the local service first (seconds). The first frame needs no data, so the app is
handed this stand-in and paints at once; the opening starts when asked (`start`) and
every use of the engine waits for it, or raises the error it failed with. The TUI calls
the engine only from worker threads, so the wait never blocks the screen. An app that
closes first abandons the wait (`abandon`): its workers give up at once rather than
hold the exit until a slow service has started.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Generic, Protocol, TypeVar


class Closable(Protocol):
    def close(self) -> None: ...


E = TypeVar("E", bound=Closable)
"""The engine opened: a `LocalEngine` (the demo), or any `Engine` (`cortex-tui`)."""


class OpeningAbandoned(Exception):
    """Raised to a caller still waiting for the opening when its app closes."""

    def __init__(self) -> None:
        super().__init__("the engine was still opening when the app closed")


class DeferredEngine(Generic[E]):
    """Delegates every attribute to the engine `opener` returns, once it has returned."""

    def __init__(self, opener: Callable[[], E]) -> None:
        self._opener = opener
        self._future: Future[E] = Future()
        self._started = False
        self._lock = threading.Lock()
        self._woken = threading.Event()
        """Set when the opening is over, or abandoned: what every waiter waits for."""
        self._future.add_done_callback(lambda _: self._woken.set())

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

    def ready(self) -> bool:
        """Whether the opening is over (done or failed): nothing would wait now."""
        return self._future.done()

    def wait(self) -> BaseException | None:
        """Wait for the opening (starting it if nobody did); what it failed with, if it
        failed (`OpeningAbandoned` if the wait was abandoned)."""
        self.start()
        self._woken.wait()
        if not self._future.done():
            return OpeningAbandoned()
        return self._future.exception()

    def result(self) -> E:
        """The opened engine (opening it now if nobody started it); raises what the
        opening raised, or `OpeningAbandoned`."""
        self.start()
        self._woken.wait()
        if not self._future.done():
            raise OpeningAbandoned()
        return self._future.result()

    def failure(self) -> BaseException | None:
        """What the opening failed with, if it is over and failed; never waits."""
        return self._future.exception() if self._future.done() else None

    def abandon(self) -> None:
        """Let every caller waiting for the opening go (`OpeningAbandoned`); the opening
        itself goes on."""
        self._woken.set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.result(), name)

    def close(self, *, wait: bool = True) -> None:
        """Close the engine if it was opened. An opening under way is waited for; with
        `wait=False` (a service that may take its time to start, which nothing needs
        once the app has closed) the engine is closed whenever it arrives instead."""
        with self._lock:
            started = self._started
        if not started:
            return
        if not wait and not self._future.done():
            self._future.add_done_callback(_close_opened)
            return
        if self._future.exception() is None:
            self._future.result().close()


def _close_opened(future: Future[E]) -> None:
    if future.exception() is None:
        future.result().close()
