"""The hooks of a member of a team server (`CORTEX_URL`): the agent's machine does what
needs its files, the server the rest.

Before a turn the hook works out the project (its repository here) and what to recall,
keeps the prompt for the turn's capture, and asks the server for the context; a server
out of reach or slow gives no context this turn, within the hook's cap. After a turn it
reads the transcript into the local spool, then sends the spool to the server: a turn
spooled while the server was out of reach goes with the next one that reaches it.
"""

from __future__ import annotations

import time
from pathlib import Path

from cortex_tui.agent_turn.events import parse_event
from cortex_tui.clients.local_service import ServiceError, ServiceUnavailable
from cortex_tui.clients.team_server import HOOK_CONTEXT_ROUTE, RemoteLink
from cortex_tui.quick_settings import prompt_limits

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_tui.clients.local_service import StrPath
    from cortex_tui.log_protocol import Log

RECORD_FIELDS = ("agent", "trigger")
"""The plan's fields a server before the given record does not know."""
SEND_MARGIN = 0.5
"""Seconds of the post hook's cap kept back from sending, to exit in time."""


def pre_via_server(
    raw: str, home: StrPath, link: RemoteLink, text_format: bool, deadline: float, log: Log
) -> str:
    from cortex_tui.agent_turn.plan import prepare

    event, plan = prepare(raw, Path(home), prompt_limits(home), log)
    if plan is None:
        return ""
    if not link.api_key:
        log.warning("CORTEX_URL is set but no API key (CORTEX_API_KEY): no context")
        return ""
    try:
        answer = _asked(link, plan.fields(), deadline)
    except (ServiceUnavailable, ServiceError) as exc:
        log.info("no context this turn from %s: %s", link.url, exc)
        return ""
    return event.output(str(answer.get("context", "")), text_format)


def _asked(link: RemoteLink, asked: dict[str, Any], deadline: float) -> Any:
    """The server's answer to the plan; a server of an earlier version, which refuses
    the fields naming who asks (they only label its given record), is asked again
    without them."""
    try:
        return link.post_json(HOOK_CONTEXT_ROUTE, asked, timeout=deadline - time.monotonic())
    except ServiceError as exc:
        if exc.status != 422:
            raise
    older = {name: value for name, value in asked.items() if name not in RECORD_FIELDS}
    return link.post_json(HOOK_CONTEXT_ROUTE, older, timeout=deadline - time.monotonic())


def post_via_server(raw: str, home: StrPath, link: RemoteLink, deadline: float, log: Log) -> str:
    from cortex_tui.agent_turn.spooling import spool_turn
    from cortex_tui.agent_turn.team_delivery import deliver

    spool_turn(parse_event(raw), Path(home), log)
    if not link.api_key:
        log.warning("CORTEX_URL is set but no API key (CORTEX_API_KEY): the turn waits here")
        return ""
    try:
        deliver(Path(home), link, deadline - SEND_MARGIN, log)
    except ServiceUnavailable as exc:
        log.info("the server is out of reach, the turn waits in the local spool: %s", exc)
    except ServiceError as exc:
        log.warning("the server refused the spooled turns (they wait here): %s", exc)
    return ""
