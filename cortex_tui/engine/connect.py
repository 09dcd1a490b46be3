"""Which engine a surface gets: the local service's (started when needed) or its own.

The service is the default because the embedded store admits one owner and the model
takes a third of a second to load; `--no-daemon` / `CORTEX_DAEMON=0` (or `daemon = false`
in config.toml) runs the engine in the calling process instead.
"""

from __future__ import annotations

from cortex_tui.clients import local_service
from cortex_tui.config import Settings
from cortex_tui.engine.protocol import Engine
from cortex_tui.errors import ConfigError, ServiceUnreachableError, StoreError


def connect_engine(settings: Settings, *, daemon: bool | None = None) -> Engine:
    """A home that names a team server (`url`) uses it, unless told to open the store
    here (`daemon=False`: `--no-daemon`)."""
    if settings.url and daemon is not False:
        return server_engine(settings)
    use_service = settings.daemon if daemon is None else daemon
    if not use_service:
        from cortex_tui.engine.open import open_engine

        return open_engine(settings)
    from cortex_tui.engine.remote import RemoteEngine

    if not local_service.start(settings.home, wait=settings.service.start_wait):
        refusal = local_service.start_refusal(settings.home)
        if refusal:
            raise ServiceUnreachableError(f"the cortex-tui service did not start: {refusal}")
        raise ServiceUnreachableError(
            f"the cortex-tui service for {settings.home} did not start; "
            f"see {settings.home / 'logs' / local_service.SERVICE_LOG}, "
            "or run in-process with --no-daemon"
        )
    return RemoteEngine.over_socket(settings.home)


def server_engine(settings: Settings) -> Engine:
    """The engine of the team server the settings name (`url`, `api_key`, `ca_cert`)."""
    from cortex_tui.engine.remote import RemoteEngine

    if not settings.url:
        raise ConfigError("no server to reach: set CORTEX_URL (or `url` in config.toml)")
    if not settings.api_key:
        raise ConfigError(
            f"CORTEX_URL names {settings.url} but no API key is set: set CORTEX_API_KEY "
            "(or `api_key` in config.toml) to the key `cortex-tui tenant add` printed"
        )
    return RemoteEngine.over_tcp(settings.url, settings.api_key, settings.ca_cert)


def stop_service_for_exclusive_use(settings: Settings) -> bool:
    """Stop a running service so this process may open the store itself (re-embedding,
    indexing, loading the demo); True when one was running."""
    if local_service.status(settings.home) is None:
        return False
    if not local_service.stop(settings.home):
        raise StoreError(
            "the cortex-tui service did not stop; stop it with `cortex-tui serve --stop`"
        )
    return True
