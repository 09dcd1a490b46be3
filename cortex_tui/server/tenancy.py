"""A team server's tenants (`serve --tcp --tenants`): each request over TCP is let in by its
API key and answered by that key's tenant's own service — its own store, spool, backups
and capture — so no route can reach another tenant's data: there is no request that
names one. The Unix socket still serves the home's owner, as without tenants.

A tenant's service is opened at its first request and kept open while it is among the
`tenants.open_stores` used last; its team's shared store (`teams/NAME/`, scope `team`:
`membership.py`) stays open. All of them share the one embedding model the server
loaded.
"""

from __future__ import annotations

import json
import logging
import math
import threading
from collections import OrderedDict
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from cortex_tui.config import Settings
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.open import open_engine
from cortex_tui.server.request_rate import RequestRate
from cortex_tui.server.service import Service
from cortex_tui.tcp import bearer_token
from cortex_tui.tenants.keyring import Keyring
from cortex_tui.tenants.registry import TenantRecord, TenantRegistry
from cortex_tui.tenants.settings import tenant_settings

log = logging.getLogger("cortex_tui.server")
IN_MEMORY = ":memory:"
"""`store.qdrant_url` for qdrant-client's in-memory mode (tests): such a store, closed,
is gone. (Not imported from `store.qdrant_server`, which loads qdrant-client.)"""
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
        self.rate = RequestRate(settings.tenants.requests_per_minute)
        self._embedder = embedder
        self._build_app = build_app
        self._served: OrderedDict[str, tuple[Service, ASGIApp]] = OrderedDict()
        """Open tenants' services, the one used longest ago first."""
        self._teams: dict[str, Service] = {}
        self._opening = threading.Lock()

    def use(self, tenant: TenantRecord) -> tuple[Service, ASGIApp]:
        """The tenant's service, counted as busy until `done` (so it is not closed under
        the request), and its API; its store (and its team's) opened on first use, and a
        team it joined or left since its last request taken into account now."""
        with self._opening:
            served = self._served.get(tenant.name)
            if served is None:
                served = self._open(tenant)
                self._served[tenant.name] = served
                self._close_the_unused()
            self._served.move_to_end(tenant.name)
            service, app = served
            service.team = self._team(tenant.team) if tenant.team else None
            service.begin_request()
            return service, app

    def _close_the_unused(self) -> None:
        """Past `tenants.open_stores`, close the stores unused longest that no request is
        using (a store in memory cannot be opened again: those stay)."""
        if self.settings.store.qdrant_url == IN_MEMORY:
            return
        idle = [name for name, (service, _) in self._served.items() if not service.busy()]
        for name in idle[: max(0, len(self._served) - self.settings.tenants.open_stores)]:
            _shut(self._served.pop(name)[0])
            log.info("closed the store of tenant %s (unused longest)", name)
        needed = {id(service.team) for service, _ in self._served.values() if service.team}
        for team in [name for name, service in self._teams.items() if id(service) not in needed]:
            _shut(self._teams.pop(team))
            log.info("closed the shared store of team %s (no member open)", team)

    def _open(self, tenant: TenantRecord) -> tuple[Service, ASGIApp]:
        home = self.registry.data_home(tenant.name)
        service = self._service(tenant_settings(self.settings, home, f"t-{tenant.name}"))
        service.tenant = tenant.name
        log.info("serving tenant %s", tenant.name)
        return service, self._build_app(service)

    def _team(self, team: str) -> Service:
        """The team's shared store's service (no API of its own: its members' requests
        reach it)."""
        service = self._teams.get(team)
        if service is None:
            home = self.registry.team_home(team)
            service = self._service(tenant_settings(self.settings, home, f"team-{team}"))
            service.engine.shared = True
            self._teams[team] = service
            log.info("serving team %s", team)
        return service

    def _service(self, settings: Settings) -> Service:
        service = Service(open_engine(settings, embedder=self._embedder), settings)
        service.memory_cap = settings.tenants.memories
        service.start_capture()
        return service

    def close(self) -> None:
        """Finish each tenant's turn being captured (the rest stays spooled), then close
        its store; then the teams'."""
        with self._opening:
            members = [served[0] for served in self._served.values()]
            for service in [*members, *self._teams.values()]:
                _shut(service)
            self._served.clear()
            self._teams.clear()


def _shut(service: Service) -> None:
    """Let the turn being captured finish (the rest stays spooled), then close the store."""
    service.stop_capture()
    service.engine.close()


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
        wait = self.tenancy.rate.wait(tenant.name)
        if wait > 0:
            await _slow_down(send, wait, self.tenancy.rate.per_minute)
            return
        service, app = await run_in_threadpool(self.tenancy.use, tenant)
        try:
            await app(scope, receive, send)
        finally:
            service.end_request()


def _bearer(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            return bearer_token(value.decode("latin-1"))
    return ""


async def _slow_down(send: Send, wait: float, per_minute: int) -> None:
    seconds = math.ceil(wait)
    message = f"over tenants.requests_per_minute ({per_minute}); try again in {seconds} s"
    body = json.dumps({"error": "TooManyRequests", "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"retry-after", str(seconds).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _refuse(send: Send) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
        }
    )
    await send({"type": "http.response.body", "body": _REFUSAL})
