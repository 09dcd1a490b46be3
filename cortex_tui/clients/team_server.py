"""A member's way to a team server (`CORTEX_URL`, `CORTEX_API_KEY`): one JSON request at a
time, for the hooks, which must not load httpx (~150 ms) on every turn.

Standard library only, imported when a hook finds its home sends memories to a server.
Errors are `local_service`'s: `ServiceUnavailable` when the server could not be reached
or did not answer in time (the caller fails open, or keeps the turn in its spool), and
`ServiceError` for an answer the server refused.
"""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

from cortex_tui.clients.local_service import ServiceUnavailable, answer_error

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HOOK_CONTEXT_ROUTE = "/v1/hook/context"
"""Takes a member's pre hook's plan (`PrePlan`) and answers with the context to give."""
SPOOL_ENTRIES_ROUTE = "/v1/spool/entries"
"""Takes turns and drafts a member's spool kept, and captures them."""
ENTRIES_PER_REQUEST = 64


class RemoteLink:
    __slots__ = ("api_key", "ca_cert", "url")

    def __init__(self, url: str, api_key: str, ca_cert: str = "") -> None:
        self.url = url.rstrip("/")
        self.api_key = api_key
        self.ca_cert = ca_cert

    def post_json(self, path: str, payload: Any, *, timeout: float) -> Any:
        """POST `payload` as JSON to `path` under the server's URL; the decoded answer.
        `timeout` bounds each wait on the connection (connect, send, each read)."""
        parts = urlsplit(self.url)
        body = json.dumps(payload).encode()
        connection = self._connection(parts.scheme, parts.netloc, max(0.05, timeout))
        connected = False
        try:
            connection.connect()
            connected = True
            connection.request(
                "POST",
                parts.path + path,
                body,
                {
                    "Authorization": f"Bearer {self.api_key}",
                    "Content-Type": "application/json",
                },
            )
            response = connection.getresponse()
            status, data = response.status, response.read()
        except (OSError, http.client.HTTPException) as exc:
            problem = "no answer from" if connected else "cannot reach"
            raise ServiceUnavailable(f"{problem} {self.url}: {exc}", connected=connected) from exc
        finally:
            connection.close()
        if status >= 400:
            raise answer_error(status, data)
        return json.loads(data) if data else None

    def _connection(self, scheme: str, netloc: str, timeout: float) -> http.client.HTTPConnection:
        if scheme == "http":
            return http.client.HTTPConnection(netloc, timeout=timeout)
        import ssl

        context = ssl.create_default_context(cafile=self.ca_cert or None)
        return http.client.HTTPSConnection(netloc, timeout=timeout, context=context)
