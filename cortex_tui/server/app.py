"""The service's HTTP API: the whole `Engine`, with the engine's own pydantic models on
the wire (FastAPI validates requests against them and publishes an OpenAPI spec). The
engine's routes are derived from the operation declarations (`server/routes.py`); the
routes here are the service's own: status, shutdown, the pre hook, the spool, export.

Errors the engine raises on purpose (`CortexError`) travel as
`{"error": class name, "message": ...}` so the client raises the same class with the
same one-line message; anything else is a 500 with the exception type, logged.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator

from fastapi import BackgroundTasks, FastAPI, Request, Response
from fastapi.responses import JSONResponse, PlainTextResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

from cortex_tui import errors
from cortex_tui.agent_turn.context import ContextAnswer
from cortex_tui.agent_turn.plan import PrePlan, prepare, query_chars_of
from cortex_tui.clients import local_service
from cortex_tui.engine.operations import EXPORT, operation_of
from cortex_tui.engine.protocol import Upkeep
from cortex_tui.server.remote_routes import add_remote_routes
from cortex_tui.server.routes import add_operation_routes
from cortex_tui.server.service import Service
from cortex_tui.server.tenancy import over_tcp
from cortex_tui.server.text_guard import TextGuard
from cortex_tui.tcp import bearer_matches
from cortex_tui.untrusted.text import decode_bytes

log = logging.getLogger("cortex_tui.server")
IMPORT_BODY_LIMIT = 4 * 1024 * 1024 * 1024
"""An import sends a whole export (the CLI reads up to 1 GiB of it), JSON-escaped."""

_STATUS = {
    errors.TooLargeError: 413,
    errors.NotFoundError: 404,
    errors.AmbiguousIdError: 409,
    errors.StoreLockedError: 409,
    errors.StoreDamagedError: 503,
    errors.InvalidInputError: 422,
    errors.ConfigError: 422,
}


def build_app(service: Service, *, api_key: str | None = None, tenant: bool = False) -> FastAPI:
    """The API around `service`. With `api_key`, a request arriving over TCP must carry
    `Authorization: Bearer KEY` (the Unix socket is protected by its file mode).

    `tenant`: the API of one tenant of a team server, whose requests the gate in front
    (`tenancy.TenantGate`) has let in by their key: the routes that act on the server
    itself (stop it, watch its files, read an event's files) are left out."""
    app = FastAPI(title="cortex-tui", version="1", docs_url=None, redoc_url=None)
    app.add_middleware(
        TextGuard,
        limit=service.settings.limits.request_bytes,
        unlimited=(operation_of(Upkeep.import_lines).route.path,),
        unlimited_to=IMPORT_BODY_LIMIT,
        cleaning=(local_service.PRE_HOOK_ROUTE, local_service.POST_HOOK_ROUTE),
    )

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
        if isinstance(exc, errors.StoreDamagedError):
            service.store_damage = str(exc)
            log.error("%s", exc)
        status = next((code for kind, code in _STATUS.items() if isinstance(exc, kind)), 400)
        return JSONResponse({"error": type(exc).__name__, "message": str(exc)}, status)

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("request failed")
        return JSONResponse(
            {"error": "ServiceFailure", "message": f"{type(exc).__name__}: {exc}"}, 500
        )

    if tenant:
        _tenant_routes(app, service)
    else:
        _service_routes(app, service)
    add_remote_routes(app, service)
    add_operation_routes(app, service)
    _export_route(app, service)
    return app


def _service_routes(app: FastAPI, service: Service) -> None:

    @app.get("/v1/status")
    def status() -> dict[str, object]:
        return service.status()

    @app.post("/v1/shutdown", status_code=202)
    def shutdown() -> dict[str, bool]:
        app.state.shutdown_requested()
        return {"stopping": True}

    @app.post(local_service.PRE_HOOK_ROUTE)
    async def hook_pre(request: Request, after: BackgroundTasks) -> PlainTextResponse:
        """The pre hook's output for the event the agent sent, as the hook prints it
        (`?format=text`: plain text); the reads are counted once the answer is sent.
        Raw in and out, so the hook process needs no JSON (see `hooks/run.py`)."""
        text_format = request.query_params.get("format") == "text"
        output, plan, answer = await run_in_threadpool(
            _pre_hook_output, service, await request.body(), text_format
        )
        if answer is not None and answer.read:
            after.add_task(service.touch, answer.read)
        if plan is not None and answer is not None:
            after.add_task(service.record_given, plan, answer.given)
        return PlainTextResponse(output)

    @app.post(local_service.POST_HOOK_ROUTE)
    async def hook_post(request: Request) -> Response:
        """Spool the turn a post hook's event names (fsynced before the answer), to be
        captured in the background: the hook process then needs no JSON, no spool code
        and no transcript reader. Over the Unix socket only, since the event names a
        file for the service to read."""
        if _over_tcp(request):
            return JSONResponse(
                {"error": "InvalidInputError", "message": "hook events come over the socket"},
                403,
            )
        await run_in_threadpool(service.spool_event, await request.body())
        return PlainTextResponse("")

    @app.post("/v1/spool/drain", status_code=202)
    def spool_drain() -> dict[str, bool]:
        """A nudge after each spooled turn: answered at once, without reading the spool
        (every agent turn sends one)."""
        service.request_drain()
        return {"draining": True}

    @app.post("/v1/sync/watch")
    def sync_watch() -> dict[str, object]:
        """Watch what `$CORTEX_HOME/sync/watched.json` lists now (`watch --service`)."""
        watched = service.watch.reload()
        return {"paths": watched.paths, "project": watched.project}


def _tenant_routes(app: FastAPI, service: Service) -> None:

    @app.get("/v1/status")
    def status() -> dict[str, object]:
        return {
            "tenant": service.tenant,
            "spool_pending": service.spool_pending(),
            "captured": service.captured,
        }


def _pre_hook_output(
    service: Service, body: bytes, text_format: bool
) -> tuple[str, PrePlan | None, ContextAnswer | None]:
    """What a pre hook prints for `body`, with the plan and the answer it came from (to
    count its reads and keep its record once it is sent); no plan, no context. A prompt
    is kept for its turn's capture first (the Stop hook may not find it in the
    transcript), and a session's first prompt gets the standing context its start could
    not (`note_pre`)."""
    settings = service.settings
    limits = (settings.hooks.min_prompt_chars, query_chars_of(settings))
    redact = service.engine.privacy.clean
    event, plan = prepare(decode_bytes(body), service.home, limits, log, redact)
    if plan is None:
        return "", None, None
    answer = service.hook_context(plan)
    return event.output(answer.given.context, text_format), plan, answer


def _export_route(app: FastAPI, service: Service) -> None:

    @app.get(EXPORT.path)
    def export() -> StreamingResponse:
        lines = service.read(lambda: list(service.engine.export()))

        def body() -> Iterator[str]:
            for line in lines:
                yield line + "\n"

        return StreamingResponse(body(), media_type="application/x-ndjson")


def _over_tcp(request: Request) -> bool:
    return over_tcp(request.scope)


def _authorised(request: Request, api_key: str) -> bool:
    return bearer_matches(request.headers.get("authorization", ""), api_key)
