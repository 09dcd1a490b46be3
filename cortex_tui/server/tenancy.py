"""A team server's tenants (`serve --tcp --tenants`): each request over TCP is let in by its
API key and answered by that key's tenant's own service — its own store, spool, backups
and capture — so no route can reach another tenant's data: there is no request that
names one. The Unix socket still serves the home's owner, as without tenants.

A tenant's service is opened at its first request and kept until the server stops; all
of them share the one embedding model the server loaded.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from cortex_tui.config import Settings
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.open import open_engine
from cortex_tui.server.service import Service
from cortex_tui.tenants.keyring import Keyring
from cortex_tui.tenants.registry import TenantRecord, TenantRegistry
from cortex_tui.tenants.settings import tenant_settings

log = logging.getLogger("cortex_tui.server")
_REFUSAL = json.dumps({"error": "Unauthorised", "message": "missing or wrong API key"}).encode()


def over_tcp(scope: Scope) -> bool:
    """Whether the request came over TCP (a Unix socket's peer has no address)."""
    client = scope.get("client")
    return bool(client and client[0])


class Tenancy:
    def __init__(
        self, settings: Settings, embedder: Embedder, build_app: Callable[[Service], ASGIApp]
    ) -> None:
        self.settings = settings
        self.registry = TenantRegistry(settings.home)
        self.keyring = Keyring(self.registry)
        self._embedder = embedder
        self._build_app = build_app
        self._served: dict[str, tuple[Service, ASGIApp]] = {}
        self._opening = threading.Lock()

    def app_for(self, tenant: TenantRecord) -> ASGIApp:
        """The tenant's API, its store opened on first use."""
        with self._opening:
            served = self._served.get(tenant.name)
            if served is None:
                served = self._open(tenant)
                self._served[tenant.name] = served
            return served[1]

    def _open(self, tenant: TenantRecord) -> tuple[Service, ASGIApp]:
        settings = tenant_settings(self.settings, tenant.name, self.registry.data_home(tenant.name))
        engine = open_engine(settings, embedder=self._embedder)
        service = Service(engine, settings, tenant=tenant.name)
        service.start_capture()
        log.info("serving tenant %s", tenant.name)
        return service, self._build_app(service)

    def close(self) -> None:
        """Finish each tenant's turn being captured (the rest stays spooled), then close
        its store."""
        with self._opening:
            for service, _app in self._served.values():
                service.stop_capture()
                service.engine.close()
            self._served.clear()


class TenantGate:
    """In front of everything: a request over TCP goes to its key's tenant, or gets 401
    (an unknown, revoked or missing key alike); one over the Unix socket to `owner`."""

    def __init__(self, owner: ASGIApp, tenancy: Tenancy) -> None:
        self.owner = owner
        self.tenancy = tenancy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not over_tcp(scope):
            await self.owner(scope, receive, send)
            return
        key = _bearer(scope)
        tenant = await run_in_threadpool(self.tenancy.keyring.tenant_for, key) if key else None
        if tenant is None:
            await _refuse(send)
            return
        app = await run_in_threadpool(self.tenancy.app_for, tenant)
        await app(scope, receive, send)


def _bearer(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return ""


async def _refuse(send: Send) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
        }
    )
    await send({"type": "http.response.body", "body": _REFUSAL})
