"""The MCP server: each declared tool registered with the SDK, and `memory://{id}`.

The SDK reads a tool's input schema from its function's signature, so each tool gets one
built from its arguments model (field by field, constraints and descriptions included)
and the answer model as its return type, which makes the output structured. A failure
the engine explains (a `CortexError`) becomes an error result carrying its one line; a
store that is out of reach says so, and `remember` then queues the memory in the
durable spool instead of losing it.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp_types import ToolAnnotations

from cortex_tui import __version__
from cortex_tui.errors import CortexError, ServiceUnreachableError, StoreError, StoreLockedError
from cortex_tui.mcp.link import EngineLink
from cortex_tui.mcp.shapes import RememberAnswer, RememberArguments
from cortex_tui.mcp.tools import REMEMBER, TOOLS, ToolSpec
from cortex_tui.tcp import bearer_token

log = logging.getLogger("cortex_tui.mcp")
CONTEXT = "ctx"

INSTRUCTIONS = (
    "Long-term memory that outlives this session and is shared with the user's other "
    "agents. Recall before answering what earlier sessions may have settled; remember "
    "decisions, preferences and facts that a later session should know."
)

Queue = Callable[[RememberArguments], str]
"""Puts a memory in the durable spool; answers its spool key."""
LinkFor = Callable[[str | None], EngineLink]
"""The engine for the caller whose HTTP request carried this API key (None: over stdio,
or a server that has one key): a team server's tenants each reach their own."""


def build_server(link_for: LinkFor, queue: Queue) -> MCPServer:
    server: MCPServer = MCPServer(
        name="cortex-tui",
        version=__version__,
        instructions=INSTRUCTIONS,
    )
    for spec in TOOLS:
        server.add_tool(
            _tool_function(spec, link_for, queue),
            name=spec.name,
            title=spec.name.capitalize(),
            description=spec.description,
            annotations=ToolAnnotations(
                read_only_hint=spec.read_only,
                destructive_hint=spec.destructive,
                open_world_hint=False,
            ),
            structured_output=True,
        )

    @server.resource(
        "memory://{memory_id}",
        name="memory",
        description="One memory with all its fields, by id or unambiguous id prefix.",
        mime_type="application/json",
    )
    def memory(memory_id: str, ctx: Context) -> str:
        try:
            found = link_for(caller_key(ctx)).run(lambda engine: engine.get(memory_id))
        except CortexError as exc:
            raise ResourceError(_one_line(exc)) from None
        return found.model_dump_json(indent=2)

    return server


def _tool_function(spec: ToolSpec, link_for: LinkFor, queue: Queue) -> Callable[..., Any]:
    def tool(**given: Any) -> Any:
        link = link_for(caller_key(given.pop(CONTEXT, None)))
        # The SDK hands over every field, defaults included; an unset one is None here.
        arguments = spec.arguments.model_validate(
            {name: value for name, value in given.items() if value is not None}
        )
        try:
            return link.run(lambda engine: spec.perform(engine, arguments))
        except (ServiceUnreachableError, StoreLockedError) as exc:
            if spec is REMEMBER:
                return _queued(queue, arguments, exc)
            raise ToolError(_one_line(exc)) from None
        except CortexError as exc:
            raise ToolError(_one_line(exc)) from None

    parameters = [
        inspect.Parameter(
            name, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[field.annotation, field]
        )
        for name, field in spec.arguments.model_fields.items()
    ]
    # The SDK finds the context parameter by its annotation and leaves it out of the
    # input schema; it carries the HTTP request the call came in.
    parameters.append(
        inspect.Parameter(CONTEXT, inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    )
    tool.__annotations__ = {CONTEXT: Context}
    tool.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        parameters, return_annotation=spec.answer
    )
    tool.__name__ = spec.name
    return tool


def caller_key(ctx: Context | None) -> str | None:
    """The API key the call's HTTP request carried (None over stdio)."""
    if ctx is None:
        return None
    request = ctx.request_context.request
    headers = getattr(request, "headers", None)
    if headers is None:
        return None
    return bearer_token(str(headers.get("authorization", ""))) or None


def _queued(queue: Queue, arguments: Any, why: StoreError) -> RememberAnswer:
    try:
        key = queue(arguments)
    except CortexError as exc:
        raise ToolError(_one_line(exc)) from None
    log.info("remember queued as %s: %s", key[:14], why)
    return RememberAnswer(
        queued=True,
        note=f"{_one_line(why)}. The memory waits in the durable spool and is stored "
        "as soon as the store is back; there is no need to send it again.",
    )


def _one_line(exc: CortexError) -> str:
    reason = str(exc).strip().rstrip(".")
    if isinstance(exc, StoreLockedError):
        return f"the memory store is busy: {reason}"
    if isinstance(exc, StoreError):
        return f"the memory store is out of reach: {reason}"
    return reason
