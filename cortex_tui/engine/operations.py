"""Every engine operation, as `Engine` and `EntityGraph` declare them
(`engine/protocol.py`), in one tuple: what the service's routes, the remote client and
the MCP tools are made from."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cortex_tui.engine.declaration import Operation, Route, declared
from cortex_tui.engine.protocol import Engine, EntityGraph

OPERATIONS: tuple[Operation, ...] = (*declared(Engine), *declared(EntityGraph, on_graph=True))

ENGINE_METHODS = {op.method: op for op in OPERATIONS if not op.on_graph}
"""The engine's operations by the name of the method that performs them."""
GRAPH_METHODS = {op.method: op for op in OPERATIONS if op.on_graph}

_BY_DECLARATION = {op.declared: op for op in OPERATIONS}

# Export streams its lines as it reads them, so it has a route of its own instead of an
# operation with one answer.
EXPORT = Route("GET", "/v1/export")


def operation_of(method: Callable[..., Any]) -> Operation:
    """The operation a protocol method declares: `operation_of(Engine.recall)`."""
    return _BY_DECLARATION[method]
