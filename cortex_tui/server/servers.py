"""The web servers on the service's sockets: one on the Unix socket (and on TCP, when that
is plain HTTP), and, given a certificate and its key (`serve --tls-cert --tls-key`), one
speaking HTTPS on the TCP socket beside it, in the same event loop.

Two servers because uvicorn gives every socket of a server the same TLS setting, and the
hooks speak plain HTTP on the Unix socket. The first owns the process's signals; either
one stopping (a signal, `serve --stop`, the idle timeout) stops both, each finishing
its requests in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

from cortex_tui.errors import InvalidInputError

POLL = 0.1


def check_tls(cert: Path, key: Path) -> None:
    """Load the pair once before serving, so a wrong file is one clear line."""
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise InvalidInputError(
            f"cannot use {cert} with {key} for TLS ({exc}); give a PEM certificate and its "
            "private key"
        ) from None


class Servers:
    def __init__(
        self,
        app: ASGIApp,
        plain: list[socket.socket],
        secure: socket.socket | None = None,
        tls: tuple[Path, Path] | None = None,
        *,
        graceful: int,
    ) -> None:
        """`graceful`: seconds the requests in flight get to finish when stopping."""
        self._plain = plain
        self._secure = secure
        self.main = uvicorn.Server(_config(app, graceful))
        self.companion: uvicorn.Server | None = None
        if secure is not None and tls is not None:
            cert, key = tls
            self.companion = _Companion(
                _config(app, graceful, ssl_certfile=str(cert), ssl_keyfile=str(key))
            )

    @property
    def should_exit(self) -> bool:
        return self.main.should_exit or bool(self.companion and self.companion.should_exit)

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        self.main.should_exit = value
        if self.companion is not None:
            self.companion.should_exit = value

    def run(self) -> None:
        if self.companion is None:
            self.main.run(sockets=self._plain)
            return
        asyncio.run(self._both(self.companion))

    async def _both(self, companion: uvicorn.Server) -> None:
        async def follow() -> None:
            while not self.should_exit:
                await asyncio.sleep(POLL)
            self.should_exit = True

        secure = [self._secure] if self._secure is not None else []
        await asyncio.gather(
            self.main.serve(sockets=self._plain), companion.serve(sockets=secure), follow()
        )


class _Companion(uvicorn.Server):
    """The HTTPS server beside the main one: the main one owns the signals."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _config(app: ASGIApp, graceful: int, **tls: str) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=graceful,
        **tls,  # type: ignore[arg-type]
    )
