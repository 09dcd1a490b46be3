"""`cortex-tui mcp`: serve memory to an MCP client over stdio, or streamable HTTP.

Over stdio, standard output carries the protocol and nothing else: everything this
process has to say goes to `logs/mcp.log` under the data home. Over HTTP the endpoint is
`http://HOST:PORT/mcp`, and every request must carry the service's API key
(`CORTEX_API_KEY`) as a bearer token — or, with `--tenants`, its caller's own key on the
team server `CORTEX_URL` names (`callers.py`).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp

from cortex_tui.agent_turn.spooling import spool_draft
from cortex_tui.clients import local_service
from cortex_tui.config import Settings, load_settings
from cortex_tui.engine.connect import connect_engine
from cortex_tui.engine.limits import check_content
from cortex_tui.errors import CortexError
from cortex_tui.mcp.auth import BearerGuard
from cortex_tui.mcp.callers import CallerLinks, ServerKeyGuard
from cortex_tui.mcp.link import EngineLink
from cortex_tui.mcp.server import build_server
from cortex_tui.mcp.shapes import RememberArguments
from cortex_tui.paths import default_home
from cortex_tui.privacy.records import redact_strings
from cortex_tui.privacy.redactor import Redactor
from cortex_tui.private import private_dir
from cortex_tui.tcp import listen

log = logging.getLogger("cortex_tui.mcp")
MCP_LOG = "mcp.log"
SEND_SECONDS = 5.0
"""How long a queued memory is tried on the team server before it waits for later."""


def mcp_main(argv: list[str]) -> int:
    args = mcp_parser().parse_args(argv)
    home = Path(args.home).expanduser() if args.home else default_home()
    os.environ["CORTEX_HOME"] = str(home)
    try:
        settings = load_settings(home)
        _log_to_file(home)
        server, guard, close = (
            _for_tenants(settings, args.http) if args.tenants else _for_one(settings, args)
        )
        try:
            if args.http:
                _serve_http(server, args.http, guard)
            else:
                log.info("serving %s over stdio", home)
                server.run()
        finally:
            close()
    except CortexError as exc:
        print(f"cortex-tui mcp: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    return 0


def mcp_parser() -> argparse.ArgumentParser:
    """`cortex-tui mcp`'s options (the docs' tests parse documented commands with it)."""
    parser = argparse.ArgumentParser(
        prog="cortex-tui mcp",
        description="Serve memory to MCP clients (Claude Code, Claude Desktop, Cursor, ...) "
        "over stdio; `cortex-tui mcp install` registers it with Claude Code.",
    )
    parser.add_argument("--home", help="CORTEX_HOME to serve (default: $CORTEX_HOME)")
    parser.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (loopback "
        "unless HOST is given); needs CORTEX_API_KEY",
    )
    parser.add_argument(
        "--no-daemon",
        action="store_true",
        help="open the store in this process instead of through the local service",
    )
    parser.add_argument(
        "--tenants",
        action="store_true",
        help="with --http: serve every tenant of the team server CORTEX_URL names, each "
        "call made there with its caller's own API key",
    )
    return parser


Guard = Callable[[ASGIApp], ASGIApp]
"""What stands in front of the streamable HTTP endpoint: the API key check."""


def _for_one(
    settings: Settings, args: argparse.Namespace
) -> tuple[MCPServer, Guard, Callable[[], None]]:
    """Memory of this home (or of the server it names), over stdio or HTTP with one key."""
    api_key = os.environ.get("CORTEX_API_KEY") or None
    if args.http and not api_key:
        raise CortexError("--http needs an API key: set CORTEX_API_KEY to a long random secret")
    daemon = False if args.no_daemon else settings.daemon
    link = EngineLink(lambda: connect_engine(settings, daemon=daemon))
    server = build_server(lambda _caller: link, lambda given: _queue(settings, daemon, given))
    return server, lambda app: BearerGuard(app, api_key or ""), link.close


def _for_tenants(
    settings: Settings, http: str | None
) -> tuple[MCPServer, Guard, Callable[[], None]]:
    url = settings.url
    if not http:
        raise CortexError("--tenants serves them over HTTP: add --http [HOST:]PORT")
    if not url:
        raise CortexError(
            "--tenants passes each caller's key on to a team server: set CORTEX_URL to it"
        )
    links = CallerLinks(url, settings.ca_cert)
    server = build_server(links, _not_queued)
    return server, lambda app: ServerKeyGuard(app, url, settings.ca_cert), links.close


def _not_queued(_arguments: RememberArguments) -> str:
    """A front for many tenants keeps nothing of theirs: the caller says it again."""
    raise CortexError("the team server is out of reach; remember it again once it is back")


def _send_to_server(settings: Settings) -> None:
    from cortex_tui.agent_turn.team_delivery import deliver
    from cortex_tui.clients.team_server import RemoteLink

    if not settings.url or not settings.api_key:
        return
    link = RemoteLink(settings.url, settings.api_key, str(settings.ca_cert or ""))
    try:
        deliver(settings.home, link, time.monotonic() + SEND_SECONDS, log)
    except (local_service.ServiceUnavailable, local_service.ServiceError) as exc:
        log.info("the memory waits in the spool for %s: %s", settings.url, exc)


def _log_to_file(home: Path) -> None:
    """Before the SDK sets up logging, so its handler (a rich console) is never added."""
    logs = home / "logs"
    private_dir(logs)
    handler = logging.FileHandler(logs / MCP_LOG, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per engine call
    logging.captureWarnings(True)


def _serve_http(server: MCPServer, spec: str, guard: Guard) -> None:
    import uvicorn

    sock = listen(spec, "--http")
    host, port = sock.getsockname()[:2]
    app = guard(server.streamable_http_app(host=host))
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    log.info("serving streamable HTTP at http://%s:%s/mcp", host, port)
    print(f"cortex-tui mcp: serving http://{host}:{port}/mcp", file=sys.stderr, flush=True)
    uvicorn.Server(config).run(sockets=[sock])


def _queue(settings: Settings, daemon: bool, arguments: RememberArguments) -> str:
    """Spool the memory with the time it was said, and ask for a drain (starting the
    service when there is none, so the spool does not wait for the next agent turn); or,
    for a member of a team server, try to send it (else the next post hook does)."""
    check_content(arguments.content, settings.limits)  # a draft too large would never store
    draft = arguments.draft().model_dump(mode="json", exclude_unset=True)
    # what waits in the spool holds no secret either (the drain redacts it again)
    draft = redact_strings(draft, Redactor(settings.privacy).clean)
    draft["created_at"] = datetime.now(UTC).isoformat()
    key = spool_draft(draft, settings.home, log)
    if settings.url:
        _send_to_server(settings)
        return key
    try:
        local_service.call(settings.home, "POST", "/v1/spool/drain", timeout=2.0)
    except (local_service.ServiceUnavailable, local_service.ServiceError):
        if daemon:
            local_service.start(settings.home, wait=0.0)
    return key
