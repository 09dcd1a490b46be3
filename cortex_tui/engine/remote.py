"""`RemoteEngine`: the `Engine` protocol over the local service's HTTP API.

Same methods, same pydantic models: a surface cannot tell it from `LocalEngine`. An
error the engine raised on purpose comes back as the same `CortexError` subclass with
the same message; a service that is gone becomes a `StoreError` naming the fix.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter

from cortex_tui import errors
from cortex_tui.config import RecallWeights
from cortex_tui.curation.groups import ConflictGroup
from cortex_tui.engine.capture import CaptureReport
from cortex_tui.engine.service_link import socket_path
from cortex_tui.graph.views import EntityMatch, EntityPage, Neighbourhood
from cortex_tui.lifecycle.report import LifecycleReport
from cortex_tui.models import (
    Entity,
    EntityType,
    Explanation,
    ImportReport,
    Memory,
    MemoryDraft,
    MemoryPage,
    MemoryType,
    RecallResponse,
    Scope,
    Stats,
    WriteResult,
)
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import JournalEntry, MemoryFilter

M = TypeVar("M")
# Recall with an LLM re-rank, a capture with LLM extraction, or a lifecycle run over a
# large store can take a while; a dead service is detected at connect time instead.
TIMEOUT = httpx.Timeout(300.0, connect=5.0)
IMPORT_BATCH = 2000


class RemoteEngine:
    def __init__(self, client: httpx.Client) -> None:
        self._client = client
        self.graph = RemoteGraph(self)

    @classmethod
    def over_socket(cls, home: Path) -> RemoteEngine:
        transport = httpx.HTTPTransport(uds=str(socket_path(home)))
        return cls(httpx.Client(transport=transport, base_url="http://cortex", timeout=TIMEOUT))

    @classmethod
    def over_tcp(cls, url: str, api_key: str) -> RemoteEngine:
        headers = {"Authorization": f"Bearer {api_key}"}
        return cls(httpx.Client(base_url=url, headers=headers, timeout=TIMEOUT))

    # --- transport -------------------------------------------------------------------

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self._client.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            raise errors.StoreError(
                f"the cortex-tui service stopped answering ({exc}); "
                "check `cortex-tui serve --status` and logs/service.log"
            ) from None
        if response.status_code >= 400:
            raise _error_from(response)
        return response

    def fetch(self, model: type[M] | Any, method: str, path: str, **kwargs: Any) -> M:
        response = self.request(method, path, **kwargs)
        adapter: TypeAdapter[M] = TypeAdapter(model)
        return adapter.validate_json(response.content)

    # --- reading ---------------------------------------------------------------------

    def now(self) -> datetime:
        return datetime.now().astimezone()

    def recall(self, request: RecallRequest) -> RecallResponse:
        return self.fetch(RecallResponse, "POST", "/v1/recall", json=_dump(request))

    def explain(self, request: RecallRequest, memory_id: str) -> Explanation:
        body = {"request": _dump(request), "memory_id": memory_id}
        return self.fetch(Explanation, "POST", "/v1/explain", json=body)

    def get(self, memory_id: str) -> Memory:
        return self.fetch(Memory, "GET", f"/v1/memories/{_q(memory_id)}")

    def resolve_id(self, prefix: str) -> str:
        return str(self.request("GET", f"/v1/ids/{_q(prefix)}").json()["id"])

    def list_memories(
        self, flt: MemoryFilter, limit: int = 50, offset: str | None = None
    ) -> MemoryPage:
        body = {"filter": _dump(flt), "limit": limit, "offset": offset}
        return self.fetch(MemoryPage, "POST", "/v1/memories/list", json=body)

    def history(self, memory_id: str) -> list[Memory]:
        return self.fetch(list[Memory], "GET", f"/v1/memories/{_q(memory_id)}/history")

    def conflicts(self) -> list[ConflictGroup]:
        return self.fetch(list[ConflictGroup], "GET", "/v1/conflicts")

    def weight_profiles(self) -> dict[str, RecallWeights]:
        return self.fetch(dict[str, RecallWeights], "GET", "/v1/profiles")

    def stats(self) -> Stats:
        return self.fetch(Stats, "GET", "/v1/stats")

    def activity(self, days: int = 30) -> dict[str, int]:
        return self.fetch(dict[str, int], "GET", "/v1/activity", params={"days": days})

    def health(self) -> dict[str, Any]:
        return self.fetch(dict[str, Any], "GET", "/v1/health")

    def export(self) -> Iterator[str]:
        with self._client.stream("GET", "/v1/export") as response:
            if response.status_code >= 400:
                response.read()
                raise _error_from(response)
            yield from response.iter_lines()

    # --- writing ---------------------------------------------------------------------

    def remember(self, draft: MemoryDraft) -> WriteResult:
        return self.fetch(WriteResult, "POST", "/v1/remember", json=_dump(draft))

    def capture(
        self,
        text: str,
        *,
        project: str | None = None,
        session_id: str | None = None,
        source: str = "capture",
    ) -> CaptureReport:
        body = {"text": text, "project": project, "session_id": session_id, "source": source}
        return self.fetch(CaptureReport, "POST", "/v1/capture", json=body)

    def update(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        type: MemoryType | None = None,
        scope: Scope | None = None,
        tags: list[str] | None = None,
        project: str | None = None,
        confidence: float | None = None,
    ) -> Memory:
        given = {
            "content": content,
            "type": type,
            "scope": scope,
            "tags": tags,
            "project": project,
            "confidence": confidence,
        }
        body = {key: value for key, value in given.items() if value is not None}
        return self.fetch(Memory, "PATCH", f"/v1/memories/{_q(memory_id)}", json=body)

    def forget(self, memory_id: str) -> Memory:
        return self.fetch(Memory, "DELETE", f"/v1/memories/{_q(memory_id)}")

    def purge(self) -> int:
        return int(self.request("POST", "/v1/purge").json()["removed"])

    def restore(self, memory_id: str) -> Memory:
        return self.fetch(Memory, "POST", f"/v1/memories/{_q(memory_id)}/restore")

    def resolve(self, group_id: str, keep_id: str) -> Memory:
        body = {"keep_id": keep_id}
        return self.fetch(Memory, "POST", f"/v1/conflicts/{_q(group_id)}/resolve", json=body)

    def merge(self, group_id: str, content: str) -> Memory:
        body = {"content": content}
        return self.fetch(Memory, "POST", f"/v1/conflicts/{_q(group_id)}/merge", json=body)

    def dismiss(self, group_id: str) -> list[Memory]:
        return self.fetch(list[Memory], "POST", f"/v1/conflicts/{_q(group_id)}/dismiss")

    def undo(self, count: int = 1) -> list[JournalEntry]:
        return self.fetch(list[JournalEntry], "POST", "/v1/undo", json={"count": count})

    def lifecycle(self, *, dry_run: bool = False) -> LifecycleReport:
        return self.fetch(LifecycleReport, "POST", "/v1/lifecycle", json={"dry_run": dry_run})

    def save_weight_profile(self, name: str, weights: RecallWeights) -> None:
        self.request("PUT", f"/v1/profiles/{_q(name)}", json=_dump(weights))

    def import_lines(self, lines: Iterable[str], *, skip_invalid: bool = False) -> ImportReport:
        """All lines in one request: the service validates everything before it writes,
        as the in-process import does, so a bad line leaves the store untouched."""
        body = {"lines": list(lines), "skip_invalid": skip_invalid}
        return self.fetch(ImportReport, "POST", "/v1/import", json=body)

    def close(self) -> None:
        self._client.close()


class RemoteGraph:
    def __init__(self, engine: RemoteEngine) -> None:
        self._engine = engine

    def list_entities(
        self, type: EntityType | None = None, limit: int = 50, offset: int = 0
    ) -> EntityPage:
        params: dict[str, Any] = {"limit": limit, "offset": offset}
        if type is not None:
            params["type"] = type.value
        return self._engine.fetch(EntityPage, "GET", "/v1/entities", params=params)

    def get(self, ref: str) -> Entity:
        return self._engine.fetch(Entity, "GET", f"/v1/entities/{_q(ref)}")

    def search(self, text: str, limit: int = 10) -> list[EntityMatch]:
        params = {"text": text, "limit": limit}
        return self._engine.fetch(list[EntityMatch], "GET", "/v1/entities/search", params=params)

    def neighbourhood(self, entity_id: str, hops: int = 2) -> Neighbourhood:
        path = f"/v1/entities/{_q(entity_id)}/neighbourhood"
        return self._engine.fetch(Neighbourhood, "GET", path, params={"hops": hops})

    def merge(self, source_id: str, into_id: str) -> Entity:
        path = f"/v1/entities/{_q(source_id)}/merge"
        return self._engine.fetch(Entity, "POST", path, json={"into_id": into_id})

    def add_alias(self, entity_id: str, alias: str) -> Entity:
        path = f"/v1/entities/{_q(entity_id)}/aliases"
        return self._engine.fetch(Entity, "POST", path, json={"alias": alias})

    def rename(self, entity_id: str, name: str) -> Entity:
        path = f"/v1/entities/{_q(entity_id)}/rename"
        return self._engine.fetch(Entity, "POST", path, json={"name": name})


def _q(segment: str) -> str:
    """A path segment from user input (an entity name may hold `/` or spaces)."""
    return quote(segment, safe="")


def _dump(model: BaseModel) -> Any:
    return model.model_dump(mode="json", exclude_unset=True)


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
