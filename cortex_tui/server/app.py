"""The service's HTTP API: the whole `Engine`, with the engine's own pydantic models on
the wire (FastAPI validates requests against them and publishes an OpenAPI spec).

Errors the engine raises on purpose (`CortexError`) travel as
`{"error": class name, "message": ...}` so the client raises the same class with the
same one-line message; anything else is a 500 with the exception type, logged.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Awaitable, Callable, Iterator

from fastapi import FastAPI, Query, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from cortex_tui import errors
from cortex_tui.config import RecallWeights
from cortex_tui.curation.groups import ConflictGroup
from cortex_tui.engine.capture import CaptureReport
from cortex_tui.graph.views import EntityMatch, EntityPage, Neighbourhood
from cortex_tui.integrations.events import parse_event
from cortex_tui.integrations.output import render
from cortex_tui.integrations.turns import plan_pre
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
from cortex_tui.server.service import Service
from cortex_tui.server.text_guard import TextGuard
from cortex_tui.store.base import JournalEntry, MemoryFilter

log = logging.getLogger("cortex_tui.server")

_STATUS = {
    errors.NotFoundError: 404,
    errors.AmbiguousIdError: 409,
    errors.StoreLockedError: 409,
    errors.InvalidInputError: 422,
    errors.ConfigError: 422,
}


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExplainBody(_Body):
    request: RecallRequest
    memory_id: str


class CaptureBody(_Body):
    text: str
    project: str | None = None
    session_id: str | None = None
    source: str = "capture"


class ListBody(_Body):
    filter: MemoryFilter = Field(default_factory=MemoryFilter)
    limit: int = Field(default=50, ge=1, le=1000)
    offset: str | None = None


class UpdateBody(_Body):
    content: str | None = None
    type: MemoryType | None = None
    scope: Scope | None = None
    tags: list[str] | None = None
    project: str | None = None
    confidence: float | None = None


class KeepBody(_Body):
    keep_id: str


class ContentBody(_Body):
    content: str


class CountBody(_Body):
    count: int = Field(default=1, ge=1)


class DryRunBody(_Body):
    dry_run: bool = False


class ImportBody(_Body):
    lines: list[str]
    skip_invalid: bool = False


class IntoBody(_Body):
    into_id: str


class AliasBody(_Body):
    alias: str


class NameBody(_Body):
    name: str


class HookBody(_Body):
    event: str
    text_format: bool = False


class HookAnswer(_Body):
    output: str


def build_app(service: Service, *, api_key: str | None = None) -> FastAPI:
    """The API around `service`. With `api_key`, a request arriving over TCP must carry
    `Authorization: Bearer KEY` (the Unix socket is protected by its file mode)."""
    app = FastAPI(title="cortex-tui", version="1", docs_url=None, redoc_url=None)
    app.add_middleware(TextGuard)

    @app.middleware("http")
    async def bookkeeping(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        if api_key is not None and _over_tcp(request) and not _authorised(request, api_key):
            return JSONResponse(
                {"error": "Unauthorised", "message": "missing or wrong API key"}, 401
            )
        service.begin_request()
        try:
            return await call_next(request)
        finally:
            service.end_request()

    @app.exception_handler(errors.CortexError)
    async def cortex_error(_request: Request, exc: errors.CortexError) -> JSONResponse:
        status = next((code for kind, code in _STATUS.items() if isinstance(exc, kind)), 400)
        return JSONResponse({"error": type(exc).__name__, "message": str(exc)}, status)

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("request failed")
        return JSONResponse(
            {"error": "ServiceFailure", "message": f"{type(exc).__name__}: {exc}"}, 500
        )

    _service_routes(app, service)
    _read_routes(app, service)
    _write_routes(app, service)
    _graph_routes(app, service)
    return app


def _service_routes(app: FastAPI, service: Service) -> None:

    @app.get("/v1/status")
    def status() -> dict[str, object]:
        return service.status()

    @app.post("/v1/shutdown", status_code=202)
    def shutdown() -> dict[str, bool]:
        app.state.shutdown_requested()
        return {"stopping": True}

    @app.post("/v1/hook/pre")
    def hook_pre(body: HookBody) -> HookAnswer:
        event = parse_event(body.event)
        plan = plan_pre(event, service.settings.hooks, log)
        if plan is None:
            return HookAnswer(output="")
        return HookAnswer(output=render(event, service.hook_context(plan), body.text_format))

    @app.post("/v1/spool/drain", status_code=202)
    def spool_drain() -> dict[str, int]:
        service.request_drain()
        return {"pending": service.spool_pending()}


def _read_routes(app: FastAPI, service: Service) -> None:
    engine, read, write = service.engine, service.read, service.write

    @app.get("/v1/health")
    def health() -> dict[str, object]:
        return read(engine.health)

    @app.get("/v1/stats")
    def stats() -> Stats:
        return read(engine.stats)

    @app.get("/v1/activity")
    def activity(days: int = 30) -> dict[str, int]:
        return read(lambda: engine.activity(days))

    @app.post("/v1/recall")
    def recall(request: RecallRequest) -> RecallResponse:
        # Recall records access (last_accessed, access_count): a write for the cache.
        call = lambda: engine.recall(request)  # noqa: E731
        return write(call) if request.update_access else read(call)

    @app.post("/v1/explain")
    def explain(body: ExplainBody) -> Explanation:
        return read(lambda: engine.explain(body.request, body.memory_id))

    @app.get("/v1/memories/{memory_id}")
    def get(memory_id: str) -> Memory:
        return read(lambda: engine.get(memory_id))

    @app.get("/v1/ids/{prefix}")
    def resolve_id(prefix: str) -> dict[str, str]:
        return {"id": read(lambda: engine.resolve_id(prefix))}

    @app.post("/v1/memories/list")
    def list_memories(body: ListBody) -> MemoryPage:
        return read(lambda: engine.list_memories(body.filter, body.limit, body.offset))

    @app.get("/v1/memories/{memory_id}/history")
    def history(memory_id: str) -> list[Memory]:
        return read(lambda: engine.history(memory_id))

    @app.get("/v1/conflicts")
    def conflicts() -> list[ConflictGroup]:
        return read(engine.conflicts)

    @app.get("/v1/profiles")
    def profiles() -> dict[str, RecallWeights]:
        return read(engine.weight_profiles)

    @app.get("/v1/export")
    def export() -> StreamingResponse:
        lines = read(lambda: list(engine.export()))

        def body() -> Iterator[str]:
            for line in lines:
                yield line + "\n"

        return StreamingResponse(body(), media_type="application/x-ndjson")


def _write_routes(app: FastAPI, service: Service) -> None:
    engine, read, write = service.engine, service.read, service.write

    @app.post("/v1/remember")
    def remember(draft: MemoryDraft) -> WriteResult:
        return write(lambda: engine.remember(draft))

    @app.post("/v1/capture")
    def capture(body: CaptureBody) -> CaptureReport:
        return write(
            lambda: engine.capture(
                body.text, project=body.project, session_id=body.session_id, source=body.source
            )
        )

    @app.patch("/v1/memories/{memory_id}")
    def update(memory_id: str, body: UpdateBody) -> Memory:
        changes = body.model_dump(exclude_unset=True)
        return write(lambda: engine.update(memory_id, **changes))

    @app.delete("/v1/memories/{memory_id}")
    def forget(memory_id: str) -> Memory:
        return write(lambda: engine.forget(memory_id))

    @app.post("/v1/purge")
    def purge() -> dict[str, int]:
        return {"removed": write(engine.purge)}

    @app.post("/v1/memories/{memory_id}/restore")
    def restore(memory_id: str) -> Memory:
        return write(lambda: engine.restore(memory_id))

    @app.post("/v1/conflicts/{group_id}/resolve")
    def resolve(group_id: str, body: KeepBody) -> Memory:
        return write(lambda: engine.resolve(group_id, body.keep_id))

    @app.post("/v1/conflicts/{group_id}/merge")
    def merge(group_id: str, body: ContentBody) -> Memory:
        return write(lambda: engine.merge(group_id, body.content))

    @app.post("/v1/conflicts/{group_id}/dismiss")
    def dismiss(group_id: str) -> list[Memory]:
        return write(lambda: engine.dismiss(group_id))

    @app.post("/v1/undo")
    def undo(body: CountBody) -> list[JournalEntry]:
        return write(lambda: engine.undo(body.count))

    @app.post("/v1/lifecycle")
    def lifecycle(body: DryRunBody) -> LifecycleReport:
        call = lambda: engine.lifecycle(dry_run=body.dry_run)  # noqa: E731
        return read(call) if body.dry_run else write(call)

    @app.put("/v1/profiles/{name}", status_code=204)
    def save_profile(name: str, weights: RecallWeights) -> None:
        write(lambda: engine.save_weight_profile(name, weights))

    @app.post("/v1/import")
    def import_lines(body: ImportBody) -> ImportReport:
        return write(lambda: engine.import_lines(body.lines, skip_invalid=body.skip_invalid))


def _graph_routes(app: FastAPI, service: Service) -> None:
    graph, read, write = service.engine.graph, service.read, service.write

    @app.get("/v1/entities")
    def list_entities(
        type: EntityType | None = None,
        limit: int = Query(default=50, ge=1),
        offset: int = Query(default=0, ge=0),
    ) -> EntityPage:
        return read(lambda: graph.list_entities(type, limit, offset))

    @app.get("/v1/entities/search")
    def search_entities(text: str, limit: int = Query(default=10, ge=1)) -> list[EntityMatch]:
        return read(lambda: graph.search(text, limit))

    @app.get("/v1/entities/{ref}")
    def get_entity(ref: str) -> Entity:
        return read(lambda: graph.get(ref))

    @app.get("/v1/entities/{ref}/neighbourhood")
    def neighbourhood(ref: str, hops: int = 2) -> Neighbourhood:
        return read(lambda: graph.neighbourhood(ref, hops))

    @app.post("/v1/entities/{ref}/merge")
    def merge_entity(ref: str, body: IntoBody) -> Entity:
        return write(lambda: graph.merge(ref, body.into_id))

    @app.post("/v1/entities/{ref}/aliases")
    def add_alias(ref: str, body: AliasBody) -> Entity:
        return write(lambda: graph.add_alias(ref, body.alias))

    @app.post("/v1/entities/{ref}/rename")
    def rename(ref: str, body: NameBody) -> Entity:
        return write(lambda: graph.rename(ref, body.name))


def _over_tcp(request: Request) -> bool:
    client = request.scope.get("client")
    return bool(client and client[0])


def _authorised(request: Request, api_key: str) -> bool:
    given = request.headers.get("authorization", "")
    expected = f"Bearer {api_key}"
    return hmac.compare_digest(given.encode(), expected.encode())
