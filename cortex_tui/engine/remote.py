"""`RemoteEngine`: the `Engine` protocol over a service's HTTP API (the local service's,
or a team server's).

Same methods, same pydantic models: a surface cannot tell it from `LocalEngine`. Its
methods are not written out: each is made from the operation's declaration
(`engine/protocol.py`), its arguments bound to the declared signature and sent as the
operation's request. An
error the engine raised on purpose comes back as the same `CortexError` subclass with
the same message; a service that is gone becomes a `StoreError` naming the fix.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from cortex_tui import errors
from cortex_tui.clients.local_service import socket_path
from cortex_tui.engine.declaration import Operation
from cortex_tui.engine.operations import EXPORT, methods_of

# Recall with an LLM re-rank, a capture with LLM extraction, or a lifecycle run over a
# large store can take a while; a dead service is detected at connect time instead.
TIMEOUT = httpx.Timeout(300.0, connect=5.0)

_ENGINE_METHODS = methods_of(None)


class RemoteEngine:
    def __init__(self, client: httpx.Client, server: str | None = None) -> None:
        self._client = client
        self.graph = RemotePart(self, "graph")
        self.curation = RemotePart(self, "curation")
        self.overview = RemotePart(self, "overview")
        self.upkeep = RemotePart(self, "upkeep")
        self.given = RemotePart(self, "given")
        self.archive = RemotePart(self, "archive")
        self._server = server
        """The team server's URL; None: the local service, on its socket."""

    @classmethod
    def over_socket(cls, home: Path) -> RemoteEngine:
        transport = httpx.HTTPTransport(uds=str(socket_path(home)))
        return cls(httpx.Client(transport=transport, base_url="http://cortex", timeout=TIMEOUT))

    @classmethod
    def over_tcp(cls, url: str, api_key: str, ca_cert: Path | None = None) -> RemoteEngine:
        """A service on another machine (`CORTEX_URL`); `ca_cert`: a certificate to trust
        for it beyond the system's authorities."""
        headers = {"Authorization": f"Bearer {api_key}"}
        verify: ssl.SSLContext | bool = True
        if ca_cert is not None:
            try:
                verify = ssl.create_default_context(cafile=str(ca_cert))
            except (OSError, ssl.SSLError) as exc:
                raise errors.ConfigError(
                    f"CORTEX_CA_CERT {ca_cert} is not a readable PEM certificate ({exc})"
                ) from None
        client = httpx.Client(base_url=url, headers=headers, timeout=TIMEOUT, verify=verify)
        return cls(client, server=url)

    # --- transport -------------------------------------------------------------------

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self._client.request(method, path, **kwargs)
        except httpx.ConnectError as exc:
            if self._server is not None and "CERTIFICATE_VERIFY_FAILED" in str(exc):
                raise errors.ConfigError(
                    f"the certificate of {self._server} is not trusted ({exc}); set "
                    "CORTEX_CA_CERT to the certificate of the authority that signed it"
                ) from None
            if self._server is not None:
                raise errors.ServiceUnreachableError(
                    f"cannot reach the cortex-tui server at {self._server} ({exc}); "
                    "check CORTEX_URL and the network"
                ) from None
            raise errors.ServiceUnreachableError(
                f"the cortex-tui service is not running ({exc}); "
                "start it with `cortex-tui serve`, or see logs/service.log"
            ) from None
        except httpx.TransportError as exc:
            where = self._server or "the cortex-tui service"
            raise errors.StoreError(
                f"{where} stopped answering ({exc}); "
                + ("try again later" if self._server else "check `cortex-tui serve --status`")
            ) from None
        if response.status_code == 401:
            raise errors.ConfigError(
                f"the server at {self._server} refused the API key (CORTEX_API_KEY): missing, "
                "wrong or revoked; ask its admin for one (`cortex-tui tenant rotate NAME`)"
            )
        if response.status_code >= 400:
            raise _error_from(response)
        return response

    def invoke(self, operation: Operation, arguments: BaseModel) -> Any:
        """One declared operation over HTTP, laid out as its route says."""
        route = operation.route
        fields = arguments.model_dump(mode="json", exclude_unset=True)
        path = route.path.format(**{name: _q(str(fields.pop(name))) for name in route.path_fields})
        if not route.has_body:
            params = {name: value for name, value in fields.items() if value is not None}
            response = self.request(route.method, path, params=params)
        else:
            body = fields.get(route.body_field) if route.body_field else fields
            response = self.request(route.method, path, json=body)
        if not response.content:  # 204: an operation that answers nothing
            return operation.answer.validate_python(None)
        return operation.answer.validate_json(response.content)

    def call(self, operation: Operation, *args: Any, **kwargs: Any) -> Any:
        """A Python call of a declared method, sent as that operation's request."""
        return self.invoke(operation, operation.request_for(args, kwargs))

    def __getattr__(self, name: str) -> Callable[..., Any]:
        """Every operation the protocol declares (`engine/declaration.py`)."""
        return _declared_method(self, _ENGINE_METHODS, name)

    def now(self) -> datetime:
        return datetime.now().astimezone()

    def export(self) -> Iterator[str]:
        """Streamed line by line, the one route not declared as an operation."""
        with self._client.stream(EXPORT.method, EXPORT.path) as response:
            if response.status_code >= 400:
                response.read()
                raise _error_from(response)
            yield from response.iter_lines()

    def close(self) -> None:
        self._client.close()


class RemotePart:
    """One of the engine's parts (the entity graph, curation, ...): its operations over
    the same client."""

    def __init__(self, engine: RemoteEngine, part: str) -> None:
        self._engine = engine
        self._methods = methods_of(part)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        return _declared_method(self._engine, self._methods, name)


def _declared_method(
    engine: RemoteEngine, methods: Mapping[str, Operation], name: str
) -> Callable[..., Any]:
    operation = methods.get(name)
    if operation is None:
        raise AttributeError(name)
    return partial(engine.call, operation)


def _q(segment: str) -> str:
    """A path segment from user input (an entity name may hold `/` or spaces)."""
    return quote(segment, safe="")


def _error_from(response: httpx.Response) -> errors.CortexError:
    try:
        detail = response.json()
    except ValueError:
        detail = {}
    kind = getattr(errors, str(detail.get("error", "")), None)
    message = str(detail.get("message") or f"the service answered HTTP {response.status_code}")
    if response.status_code == 422 and "detail" in detail:
        return errors.InvalidInputError(f"the service rejected the request: {detail['detail']}")
    if isinstance(kind, type) and issubclass(kind, errors.CortexError):
        return kind(message)
    return errors.CortexError(message)
