"""The API key in front of the streamable HTTP endpoint.

An ASGI wrapper rather than the SDK's OAuth machinery: the local service already has one
shared secret (`CORTEX_API_KEY`), and a client of either takes it as a bearer token.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Receive, Scope, Send

from cortex_tui.tcp import bearer_matches

_REFUSAL = json.dumps({"error": "Unauthorised", "message": "missing or wrong API key"}).encode()


class BearerGuard:
    def __init__(self, app: ASGIApp, api_key: str) -> None:
        self.app = app
        self.api_key = api_key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not bearer_matches(_authorization(scope), self.api_key):
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", b"Bearer"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": _REFUSAL})
            return
        await self.app(scope, receive, send)


def _authorization(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            return str(value.decode("latin-1"))
    return ""
