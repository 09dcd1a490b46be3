"""`mcp --http --tenants`: one MCP endpoint for all the tenants of a team server.

Each HTTP request's API key is its caller's own tenant key, checked by the team server
(`CORTEX_URL`) before the request goes further, and each tool call is made on the
server with that same key: this process holds no memory and no key of its own, so one
tenant's call can only ever reach that tenant's data.
"""

from __future__ import annotations

import hashlib
import json
import ssl
import threading
from pathlib import Path

import httpx
from starlette.types import ASGIApp, Receive, Scope, Send

from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.errors import ConfigError
from cortex_tui.mcp.link import EngineLink
from cortex_tui.tcp import bearer_token

CHECK_SECONDS = 10.0


class CallerLinks:
    """The team server's engine as each caller's key reaches it."""

    def __init__(self, url: str, ca_cert: Path | None) -> None:
        self._url = url
        self._ca_cert = ca_cert
        self._links: dict[bytes, EngineLink] = {}
        self._lock = threading.Lock()

    def __call__(self, key: str | None) -> EngineLink:
        if not key:
            raise ConfigError("each call needs its caller's API key (Authorization: Bearer)")
        digest = hashlib.sha256(key.encode()).digest()
        with self._lock:
            link = self._links.get(digest)
            if link is None:
                link = EngineLink(lambda: RemoteEngine.over_tcp(self._url, key, self._ca_cert))
                self._links[digest] = link
            return link

    def close(self) -> None:
        with self._lock:
            for link in self._links.values():
                link.close()
            self._links.clear()


class ServerKeyGuard:
    """Lets in a request whose key the team server accepts now (a revoked key is refused
    at its next request); 401 for any other, 503 when the server cannot be asked."""

    def __init__(self, app: ASGIApp, url: str, ca_cert: Path | None) -> None:
        self.app = app
        self.url = url.rstrip("/")
        self.verify: ssl.SSLContext | bool = (
            ssl.create_default_context(cafile=str(ca_cert)) if ca_cert else True
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        key = next(
            (
                bearer_token(v.decode("latin-1"))
                for n, v in scope["headers"]
                if n == b"authorization"
            ),
            "",
        )
        status = await self._status_for(key) if key else 401
        if status == 200:
            await self.app(scope, receive, send)
            return
        if status == 401:
            body = {"error": "Unauthorised", "message": "missing or wrong API key"}
        else:
            body = {
                "error": "ServiceUnreachableError",
                "message": f"cannot ask the team server at {self.url} (HTTP {status})",
            }
        await send(
            {
                "type": "http.response.start",
                "status": 401 if status == 401 else 503,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b"Bearer"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": json.dumps(body).encode()})

    async def _status_for(self, key: str) -> int:
        headers = {"Authorization": f"Bearer {key}"}
        try:
            async with httpx.AsyncClient(verify=self.verify, timeout=CHECK_SECONDS) as client:
                answer = await client.get(f"{self.url}/v1/status", headers=headers)
        except httpx.HTTPError:
            return 503
        return 200 if answer.status_code == 200 else 401 if answer.status_code == 401 else 503
