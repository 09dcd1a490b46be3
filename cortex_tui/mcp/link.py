"""The MCP server's way to the engine, which may come and go while the server runs.

An MCP client starts the server once and keeps it for hours, while the local service
exits after an idle hour and may be restarted or killed. So the engine is connected on
first use, and a call that found nothing listening (the request was never sent) is
sent once more after reconnecting, which starts the service again. An engine in this
process is not safe for concurrent calls, so those are taken one at a time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TypeVar

from cortex_tui.engine.protocol import Engine
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.errors import ServiceUnreachableError

T = TypeVar("T")


class EngineLink:
    def __init__(self, connect: Callable[[], Engine]) -> None:
        self._connect = connect
        self._engine: Engine | None = None
        self._connecting = threading.Lock()
        self._in_process = threading.Lock()

    def run(self, work: Callable[[Engine], T]) -> T:
        engine = self._current()
        try:
            with self._serialised(engine):
                return work(engine)
        except ServiceUnreachableError:
            self._drop(engine)
            engine = self._current()
            with self._serialised(engine):
                return work(engine)

    def close(self) -> None:
        with self._connecting:
            if self._engine is not None:
                self._engine.close()
                self._engine = None

    def _current(self) -> Engine:
        with self._connecting:
            if self._engine is None:
                self._engine = self._connect()
            return self._engine

    def _drop(self, engine: Engine) -> None:
        with self._connecting:
            if self._engine is engine:
                self._engine = None
                engine.close()

    def _serialised(self, engine: Engine) -> AbstractContextManager[object]:
        return nullcontext() if isinstance(engine, RemoteEngine) else self._in_process
