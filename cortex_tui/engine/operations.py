"""Every engine operation, as `Engine` and its parts declare them (`engine/protocol.py`),
in one tuple: what the service's routes, the remote client and the MCP tools are made
from."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cortex_tui.engine.declaration import Operation, Route, declared
from cortex_tui.engine.protocol import (
    Curation,
    Engine,
    EntityGraph,
    GivenRecords,
    Overview,
    TurnArchive,
    Upkeep,
)

PARTS: dict[str, type] = {
    "graph": EntityGraph,
    "curation": Curation,
    "overview": Overview,
    "upkeep": Upkeep,
    "given": GivenRecords,
    "archive": TurnArchive,
}
"""The engine's parts by the attribute that holds each (`engine.graph`, ...)."""

OPERATIONS: tuple[Operation, ...] = (
    *declared(Engine),
    *(op for part, protocol in PARTS.items() for op in declared(protocol, part=part)),
)


def methods_of(part: str | None) -> dict[str, Operation]:
    """One part's operations (None: the engine's own) by the name of the method that
    performs each."""
    return {op.method: op for op in OPERATIONS if op.part == part}


_BY_DECLARATION = {op.declared: op for op in OPERATIONS}

# Export streams its lines as it reads them, so it has a route of its own instead of an
# operation with one answer.
EXPORT = Route("GET", "/v1/export")


def operation_of(method: Callable[..., Any]) -> Operation:
    """The operation a protocol method declares: `operation_of(Engine.recall)`."""
    return _BY_DECLARATION[method]
