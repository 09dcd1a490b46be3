"""Sending what a member's spool holds to the team server: the turns its post hooks
spooled and the memories its MCP server was asked to remember.

Each entry leaves the local spool only once the server has it in its own (durable
before it answers), so a server out of reach, a network cut mid-request or a laptop shut
mid-send loses nothing: what is left goes with the next turn. An entry the server sends
again is one entry there (the key is the same). Standard library only: the post hook
runs it.
"""

from __future__ import annotations

import time
from pathlib import Path

from cortex_tui.clients.team_server import ENTRIES_PER_REQUEST, SPOOL_ENTRIES_ROUTE, RemoteLink
from cortex_tui.engine.limits import fit_turn
from cortex_tui.spool.durable import Spool

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from cortex_tui.log_protocol import Log
    from cortex_tui.spool.entries import SpoolEntry

    Sent = dict[str, Any]
    """An entry as it travels to the server (`server/remote_routes.py: SpoolDelivery`)."""

TURN_CHARS_SENT = 262_144
"""A turn is sent trimmed to the default `limits.capture_chars` (its start and its end):
the server trims it to its own limit in any case, and a request stays well within the
server's `limits.request_bytes`."""
BATCH_CHARS = 1_000_000


def deliver(home: Path, link: RemoteLink, deadline: float, log: Log) -> int:
    """Send the spool's turns and drafts, oldest first, until all are sent, the server
    is out of reach or `deadline` (monotonic) passes; how many the server took."""
    spool = Spool(home / "spool", log)
    waiting = [wire for entry in spool.pending() if (wire := _sendable(entry)) is not None]
    sent = 0
    for batch in _batches(waiting):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        receipt = link.post_json(SPOOL_ENTRIES_ROUTE, {"entries": batch}, timeout=left)
        refused = receipt.get("refused", {})
        for key, reason in refused.items():
            log.warning("the server will not take spooled entry %s: %s", key[:14], reason)
        spool.mark_done_many([*receipt["accepted"], *refused])
        sent += len(receipt["accepted"])
    if sent:
        log.info("sent %d spooled turn(s) or memories to %s", sent, link.url)
    return sent


def _sendable(entry: SpoolEntry) -> Sent | None:
    """The entry as the server's route takes it (no local bookkeeping fields: its kind is
    told by its fields there); None for a notes file's changes, which file sync applies
    on this machine."""
    match entry["kind"]:
        case "draft":
            return {"key": entry["key"], "draft": entry["draft"], "at": entry["at"]}
        case "turn":
            sendable: Sent = {
                "key": entry["key"],
                "text": fit_turn(entry["text"], TURN_CHARS_SENT),
                "at": entry["at"],
            }
            for name in ("project", "session_id", "source"):
                if entry.get(name) is not None:
                    sendable[name] = entry.get(name)
            return sendable
        case "changes":
            return None


def _batches(entries: list[Sent]) -> Iterator[list[Sent]]:
    batch: list[Sent] = []
    size = 0
    for entry in entries:
        text = entry.get("text")
        weight = len(text) if isinstance(text, str) else len(str(entry["draft"]))
        if batch and (len(batch) == ENTRIES_PER_REQUEST or size + weight > BATCH_CHARS):
            yield batch
            batch, size = [], 0
        batch.append(entry)
        size += weight
    if batch:
        yield batch
