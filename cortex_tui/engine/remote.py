"""`RemoteEngine`: the `Engine` protocol over the local service's HTTP API.

Same methods, same pydantic models: a surface cannot tell it from `LocalEngine`. An
error the engine raised on purpose comes back as the same `CortexError` subclass with
the same message; a service that is gone becomes a `StoreError` naming the fix.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable, Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from cortex_tui import errors
from cortex_tui.config import RecallWeights
from cortex_tui.curation.groups import ConflictGroup
from cortex_tui.engine import operations as ops
from cortex_tui.engine.operations import Operation, Req, Resp
from cortex_tui.engine.requests import (
    ActivityRequest,
    AliasRequest,
    BackupRequest,
    CaptureRequest,
    DayRequest,
    EntityListRequest,
    EntityMergeRequest,
    EntityRef,
    EntitySearchRequest,
    ExplainRequest,
    GroupRef,
    HealthRequest,
    IdPrefix,
    ImportRequest,
    LifecycleRequest,
    ListRequest,
    MapRequest,
    MemoryRef,
    MergeRequest,
    NeighbourhoodRequest,
    NoArguments,
    ProfileRequest,
    RenameRequest,
    ResolveRequest,
    TimelineRequest,
    UndoRequest,
    UpdateRequest,
    WordsRequest,
)
from cortex_tui.graph.views import EntityMatch, EntityPage, Neighbourhood
from cortex_tui.lifecycle.report import LifecycleReport
from cortex_tui.link.local_service import socket_path
from cortex_tui.maintenance.backup import BackupReport
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
from cortex_tui.overview.models import DayMemories, MemoryMap, Timeline, Vitals, WordCloud
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import JournalEntry, MemoryFilter
from cortex_tui.write.turns import CaptureReport

# Recall with an LLM re-rank, a capture with LLM extraction, or a lifecycle run over a
# large store can take a while; a dead service is detected at connect time instead.
TIMEOUT = httpx.Timeout(300.0, connect=5.0)


class RemoteEngine:
    def __init__(self, client: httpx.Client, server: str | None = None) -> None:
        self._client = client
        self.graph = RemoteGraph(self)
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

    def invoke(self, operation: Operation[Req, Resp], arguments: Req) -> Resp:
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

    # --- reading ---------------------------------------------------------------------

    def now(self) -> datetime:
        return datetime.now().astimezone()

    def recall(self, request: RecallRequest) -> RecallResponse:
        return self.invoke(ops.RECALL, request)

    def explain(self, request: RecallRequest, memory_id: str) -> Explanation:
        return self.invoke(ops.EXPLAIN, ExplainRequest(request=request, memory_id=memory_id))

    def get(self, memory_id: str) -> Memory:
        return self.invoke(ops.GET, MemoryRef(memory_id=memory_id))

    def resolve_id(self, prefix: str) -> str:
        return self.invoke(ops.RESOLVE_ID, IdPrefix(prefix=prefix)).id

    def list_memories(
        self, flt: MemoryFilter, limit: int = 50, offset: str | None = None
    ) -> MemoryPage:
        return self.invoke(ops.LIST, ListRequest(filter=flt, limit=limit, offset=offset))

    def history(self, memory_id: str) -> list[Memory]:
        return self.invoke(ops.HISTORY, MemoryRef(memory_id=memory_id))

    def conflicts(self) -> list[ConflictGroup]:
        return self.invoke(ops.CONFLICTS, NoArguments())

    def weight_profiles(self) -> dict[str, RecallWeights]:
        return self.invoke(ops.PROFILES, NoArguments())

    def stats(self) -> Stats:
        return self.invoke(ops.STATS, NoArguments())

    def activity(self, days: int = 30) -> dict[str, int]:
        return self.invoke(ops.ACTIVITY, ActivityRequest(days=days))

    def memory_map(
        self,
        *,
        superseded: bool = False,
        query: str | None = None,
        top_k: int = 10,
        refit: bool = False,
    ) -> MemoryMap:
        arguments = MapRequest(superseded=superseded, query=query, top_k=top_k, refit=refit)
        return self.invoke(ops.MEMORY_MAP, arguments)

    def word_cloud(
        self, *, project: str | None = None, type: MemoryType | None = None, limit: int = 60
    ) -> WordCloud:
        return self.invoke(ops.WORD_CLOUD, WordsRequest(project=project, type=type, limit=limit))

    def timeline(self, days: int = 90) -> Timeline:
        return self.invoke(ops.TIMELINE, TimelineRequest(days=days))

    def day(self, day: date, limit: int = 200) -> DayMemories:
        return self.invoke(ops.DAY, DayRequest(day=day, limit=limit))

    def vitals(self) -> Vitals:
        return self.invoke(ops.VITALS, NoArguments())

    def health(self, *, deep: bool = False) -> dict[str, Any]:
        return self.invoke(ops.HEALTH, HealthRequest(deep=deep))

    def export(self) -> Iterator[str]:
        """Streamed line by line, the one route not declared as an operation."""
        with self._client.stream(ops.EXPORT.method, ops.EXPORT.path) as response:
            if response.status_code >= 400:
                response.read()
                raise _error_from(response)
            yield from response.iter_lines()

    # --- writing ---------------------------------------------------------------------

    def remember(self, draft: MemoryDraft) -> WriteResult:
        return self.invoke(ops.REMEMBER, draft)

    def capture(
        self,
        text: str,
        *,
        project: str | None = None,
        session_id: str | None = None,
        source: str = "capture",
    ) -> CaptureReport:
        arguments = CaptureRequest(text=text, project=project, session_id=session_id, source=source)
        return self.invoke(ops.CAPTURE, arguments)

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
        changes = {key: value for key, value in given.items() if value is not None}
        return self.invoke(ops.UPDATE, UpdateRequest(memory_id=memory_id, **changes))

    def forget(self, memory_id: str) -> Memory:
        return self.invoke(ops.FORGET, MemoryRef(memory_id=memory_id))

    def purge(self) -> int:
        return self.invoke(ops.PURGE, NoArguments()).removed

    def restore(self, memory_id: str) -> Memory:
        return self.invoke(ops.RESTORE, MemoryRef(memory_id=memory_id))

    def resolve(self, group_id: str, keep_id: str) -> Memory:
        return self.invoke(ops.RESOLVE, ResolveRequest(group_id=group_id, keep_id=keep_id))

    def merge(self, group_id: str, content: str) -> Memory:
        return self.invoke(ops.MERGE, MergeRequest(group_id=group_id, content=content))

    def dismiss(self, group_id: str) -> list[Memory]:
        return self.invoke(ops.DISMISS, GroupRef(group_id=group_id))

    def undo(self, count: int = 1) -> list[JournalEntry]:
        return self.invoke(ops.UNDO, UndoRequest(count=count))

    def lifecycle(self, *, dry_run: bool = False) -> LifecycleReport:
        return self.invoke(ops.LIFECYCLE, LifecycleRequest(dry_run=dry_run))

    def backup(self, path: str | None = None) -> BackupReport:
        return self.invoke(ops.BACKUP, BackupRequest(path=path))

    def save_weight_profile(self, name: str, weights: RecallWeights) -> None:
        self.invoke(ops.SAVE_PROFILE, ProfileRequest(name=name, weights=weights))

    def import_lines(self, lines: Iterable[str], *, skip_invalid: bool = False) -> ImportReport:
        """All lines in one request: the service validates everything before it writes,
        as the in-process import does, so a bad line leaves the store untouched."""
        arguments = ImportRequest(lines=list(lines), skip_invalid=skip_invalid)
        return self.invoke(ops.IMPORT, arguments)

    def close(self) -> None:
        self._client.close()


class RemoteGraph:
    def __init__(self, engine: RemoteEngine) -> None:
        self._engine = engine

    def list_entities(
        self, type: EntityType | None = None, limit: int = 50, offset: int = 0
    ) -> EntityPage:
        arguments = EntityListRequest(type=type, limit=limit, offset=offset)
        return self._engine.invoke(ops.ENTITIES, arguments)

    def get(self, ref: str) -> Entity:
        return self._engine.invoke(ops.ENTITY, EntityRef(ref=ref))

    def search(self, text: str, limit: int = 10) -> list[EntityMatch]:
        arguments = EntitySearchRequest(text=text, limit=limit)
        return self._engine.invoke(ops.SEARCH_ENTITIES, arguments)

    def neighbourhood(self, entity_id: str, hops: int = 2) -> Neighbourhood:
        arguments = NeighbourhoodRequest(ref=entity_id, hops=hops)
        return self._engine.invoke(ops.NEIGHBOURHOOD, arguments)

    def merge(self, source_id: str, into_id: str) -> Entity:
        arguments = EntityMergeRequest(ref=source_id, into_id=into_id)
        return self._engine.invoke(ops.MERGE_ENTITY, arguments)

    def add_alias(self, entity_id: str, alias: str) -> Entity:
        return self._engine.invoke(ops.ADD_ALIAS, AliasRequest(ref=entity_id, alias=alias))

    def rename(self, entity_id: str, name: str) -> Entity:
        return self._engine.invoke(ops.RENAME_ENTITY, RenameRequest(ref=entity_id, name=name))


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
