"""`cortex-tui serve`: run the service in the foreground, or `--status` / `--stop` it.

The service binds `$CORTEX_HOME/cortex.sock` (mode 0600) before it opens the store, holds
`service.lock` for its whole life (so a leftover socket file is known to be stale and is
replaced), warms the model up, replays the capture spool, and exits after
`service.idle_timeout` seconds without a request. SIGTERM / `--stop` finish the requests
in flight and the turn being captured before the store is closed.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

from cortex_tui.clients import local_service
from cortex_tui.errors import CortexError
from cortex_tui.paths import default_home
from cortex_tui.private import open_private, private_dir
from cortex_tui.tcp import listen

if TYPE_CHECKING:
    from collections.abc import Callable

    from fastapi import FastAPI
    from starlette.types import ASGIApp

    from cortex_tui.server.servers import Servers
    from cortex_tui.server.service import Service
    from cortex_tui.server.tenancy import Tenancy

GRACEFUL_SECONDS = 30
log = logging.getLogger("cortex_tui.server")


class ServeError(Exception):
    """A reason not to start, worded for the user."""


def serve_main(argv: list[str]) -> int:
    args = serve_parser().parse_args(argv)
    home = Path(args.home).expanduser() if args.home else default_home()
    os.environ["CORTEX_HOME"] = str(home)
    if args.status:
        return _print_status(home, args.json)
    if args.stop:
        return _stop(home)
    try:
        return _serve(home, args.tcp, args.idle_timeout, tenants=args.tenants, tls=_tls(args))
    except (ServeError, CortexError) as exc:
        print(f"{local_service.REFUSAL_PREFIX}{exc}", file=sys.stderr)
        return 1
    finally:
        local_service.clear_start_marker(home)


def serve_parser() -> argparse.ArgumentParser:
    """`cortex-tui serve`'s options (the docs' tests parse documented commands with it)."""
    parser = argparse.ArgumentParser(
        prog="cortex-tui serve",
        description="The local service: owns the store, serves hooks, CLI and TUI.",
    )
    parser.add_argument("--home", help="CORTEX_HOME to serve (default: $CORTEX_HOME)")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--status", action="store_true", help="print the running service's state")
    action.add_argument("--stop", action="store_true", help="stop the running service")
    parser.add_argument(
        "--tcp",
        metavar="[HOST:]PORT",
        help="also listen on TCP (loopback unless HOST is given); needs CORTEX_API_KEY, "
        "or --tenants",
    )
    parser.add_argument(
        "--tls-cert",
        metavar="PEM",
        help="with --tcp: serve HTTPS there with this certificate (and --tls-key)",
    )
    parser.add_argument("--tls-key", metavar="PEM", help="the certificate's private key")
    parser.add_argument(
        "--tenants",
        action="store_true",
        help="serve the tenants `cortex-tui tenant add` made: each TCP request is answered "
        "from its API key's tenant's own store (needs --tcp; never idles out)",
    )
    parser.add_argument(
        "--idle-timeout", type=float, help="seconds without a request before exiting (0: never)"
    )
    parser.add_argument("--json", action="store_true", help="--status as JSON")
    return parser


def _print_status(home: Path, as_json: bool) -> int:
    state = local_service.status(home)
    if as_json:
        print(json.dumps(state or {"running": False}, indent=2))
    elif state is None:
        print(f"not running (no service on {local_service.socket_path(home)})")
    else:
        print(
            f"running: pid {state['pid']}, up {state['uptime_s']:.0f} s, store {state['store']}, "
            f"{state['spool_pending']} turn(s) or file change(s) waiting for capture, "
            f"{state['captured']} captured since start"
        )
        for kind, held in state.get("locks", {}).items():
            print(
                f"engine held for {kind}: {held['count']} times, p50 {held['hold_p50_ms']} ms, "
                f"max {held['hold_max_ms']} ms; waited p50 {held['wait_p50_ms']} ms, "
                f"max {held['wait_max_ms']} ms"
            )
        last = state.get("compaction", {}).get("last")
        if last and last["compacted"]:
            print(f"store compacted at {last['at']}, in {last['seconds']:.1f} s")
        if state.get("watching"):
            print(f"watching for sync: {', '.join(state['watching'])}")
        if state.get("watch_error"):
            print(f"warning: the sync watch stopped: {state['watch_error']}")
        if state.get("store_damage"):
            print(f"warning: {state['store_damage']}")
    return 0 if state is not None else 1


def _stop(home: Path) -> int:
    if local_service.status(home) is None:
        print("not running")
        return 0
    if local_service.stop(home, wait=GRACEFUL_SECONDS + 5):
        print("stopped")
        return 0
    print("cortex-tui serve: the service did not stop in time; see logs/service.log")
    return 1


def _tls(args: argparse.Namespace) -> tuple[Path, Path] | None:
    if not (args.tls_cert or args.tls_key):
        return None
    if not (args.tls_cert and args.tls_key and args.tcp):
        raise ServeError("TLS needs --tcp, --tls-cert and --tls-key together")
    cert, key = Path(args.tls_cert).expanduser(), Path(args.tls_key).expanduser()
    from cortex_tui.server.servers import check_tls

    check_tls(cert, key)
    return cert, key


def _serve(
    home: Path,
    tcp: str | None,
    idle_timeout: float | None,
    *,
    tenants: bool,
    tls: tuple[Path, Path] | None,
) -> int:
    from concurrent.futures import ThreadPoolExecutor

    from cortex_tui.config import load_settings

    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.captureWarnings(True)
    settings = load_settings(home)
    if settings.url:
        raise ServeError(
            f"this home sends its memories to {settings.url} (CORTEX_URL or `url` in "
            "config.toml): a service here would keep them; serve another home"
        )
    api_key = _api_key(tcp, tenants)
    if idle_timeout is not None:
        settings.service.idle_timeout = idle_timeout
    elif tenants:
        settings.service.idle_timeout = 0  # members' agents expect it there
    private_dir(home)
    with _service_lock(home), ThreadPoolExecutor(1, "import-web") as importer:
        sockets = [_bind_unix(Path(local_service.socket_path(home)))]
        if tcp:
            sockets.append(listen(tcp, "--tcp"))
        secure = sockets.pop() if tls else None
        # The web stack is imported while the engine opens (the model load and the
        # store's open leave the interpreter free most of the time): the first prompt
        # of a session waits for the whole cold start.
        web = importer.submit(_web_stack)
        from cortex_tui.engine.open import open_engine
        from cortex_tui.server.service import Service

        engine = open_engine(settings, cache_queries=True)
        try:
            servers_for, build_app = web.result()
        except BaseException:
            engine.close()
            raise
        service = Service(engine, settings)
        app = build_app(service, api_key=api_key)
        served, tenancy = _with_tenants(app, service, build_app) if tenants else (app, None)
        servers = servers_for(served, sockets, secure, tls, graceful=GRACEFUL_SECONDS)
        app.state.shutdown_requested = lambda: setattr(servers, "should_exit", True)
        listening = [*sockets, *([secure] if secure else [])]
        try:
            service.warm_up()
            service.start_capture()
            _watch_idle(servers, service, settings.service.idle_timeout)
            # local_service.SERVING_MARK finds this line: a refusal before it is old news.
            log.info("serving %s on %s", home, ", ".join(_describe(s) for s in listening))
            local_service.clear_start_marker(home)
            servers.run()
        finally:
            if tenancy is not None:
                tenancy.close()
            service.stop_capture()
            engine.close()
            for sock in listening:
                sock.close()
            with contextlib.suppress(OSError):
                os.unlink(local_service.socket_path(home))
            log.info("stopped")
    return 0


def _with_tenants(
    owner: FastAPI, service: Service, build_app: Callable[..., FastAPI]
) -> tuple[ASGIApp, Tenancy]:
    """The owner's API behind the gate that sends each TCP request to its tenant's."""
    from cortex_tui.server.tenancy import Tenancy, TenantGate

    tenancy = Tenancy(
        service.settings, service.engine.embedder, lambda one: build_app(one, tenant=True)
    )
    return TenantGate(owner, tenancy), tenancy


def _api_key(tcp: str | None, tenants: bool) -> str | None:
    """The one key TCP requests carry, when the home's owner serves them; tenants bring
    their own keys."""
    if tenants and not tcp:
        raise ServeError("--tenants serves them over TCP: add --tcp [HOST:]PORT")
    api_key = os.environ.get("CORTEX_API_KEY") or None
    if tcp and not tenants and not api_key:
        raise ServeError(
            "--tcp needs an API key: set CORTEX_API_KEY to a long random secret "
            "(or serve tenants with their own keys: --tenants)"
        )
    return api_key if tcp and not tenants else None


def _web_stack() -> tuple[type[Servers], Callable[..., FastAPI]]:
    # The privacy step's detectors (detect-secrets: ~90 ms) load here too, beside the
    # engine's opening, rather than in the first recall or capture that needs them.
    import cortex_tui.privacy.detectors  # noqa: F401
    from cortex_tui.server.app import build_app
    from cortex_tui.server.servers import Servers

    return Servers, build_app


@contextlib.contextmanager
def _service_lock(home: Path) -> Iterator[IO[str]]:
    handle: IO[str] = open_private(home / local_service.SERVICE_LOCK, "a")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ServeError(
                f"a service already serves {home}; `cortex-tui serve --status` shows it"
            ) from None
        yield handle
    finally:
        handle.close()


def _bind_unix(path: Path) -> socket.socket:
    """We hold the service lock, so a socket file left behind is stale: replace it."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    previous = os.umask(0o177)  # born 0600: no moment where others could connect
    try:
        sock.bind(str(path))
    finally:
        os.umask(previous)
    os.chmod(path, 0o600)
    sock.listen(128)
    return sock


def _describe(sock: socket.socket) -> str:
    name = sock.getsockname()
    return str(name) if isinstance(name, str) else f"{name[0]}:{name[1]}"


def _watch_idle(server: Servers, service: Service, idle_timeout: float) -> None:
    """Stop the server after `idle_timeout` seconds without a request (0: never)."""
    if idle_timeout <= 0:
        return

    def watch() -> None:
        while not server.should_exit:
            time.sleep(min(1.0, idle_timeout / 4))
            if service.idle_for() >= idle_timeout:
                log.info("idle for %.0f s: stopping", idle_timeout)
                server.should_exit = True

    threading.Thread(target=watch, name="idle-watch", daemon=True).start()
