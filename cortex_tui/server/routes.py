"""The service's engine routes, one per declared operation (`engine/protocol.py`).

Each route is given the signature FastAPI reads: the path fields as path parameters, the
other fields as one query model (GET, DELETE) or one body model, so FastAPI validates
every request against the operation's own model and publishes it in the OpenAPI spec.
The call then runs under the service's read or write lock, as the operation declares
(`Service.perform`).
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any

from fastapi import Body, FastAPI, Path, Query
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from cortex_tui.engine.declaration import Operation
from cortex_tui.engine.operations import OPERATIONS
from cortex_tui.errors import InvalidInputError
from cortex_tui.server.service import Service

_PART = "part"


def add_operation_routes(app: FastAPI, service: Service) -> None:
    for operation in OPERATIONS:
        route = operation.route
        app.add_api_route(
            route.path,
            _endpoint(operation, service),
            methods=[route.method],
            name=operation.name,
            description=operation.description,
            response_model=operation.response,
            status_code=204 if operation.response is None else 200,
        )


def _endpoint(operation: Operation, service: Service) -> Any:
    route = operation.route
    path_fields = route.path_fields
    part = _part_annotation(operation)

    def endpoint(**given: Any) -> Any:
        received = given.get(_PART)
        if isinstance(received, operation.request):
            arguments = received
        else:
            values = {name: given[name] for name in path_fields}
            if route.body_field is not None:
                values[route.body_field] = received
            elif isinstance(received, BaseModel):
                values |= received.model_dump(exclude_unset=True)
            try:
                arguments = operation.request.model_validate(values)
            except ValidationError as exc:
                raise RequestValidationError(exc.errors(include_url=False)) from None
        if service.tenant is not None:
            _confine(operation, arguments)
        return service.perform(operation, arguments)

    parameters = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[str, Path()])
        for name in path_fields
    ]
    if part is not None:
        parameters.append(inspect.Parameter(_PART, inspect.Parameter.KEYWORD_ONLY, annotation=part))
    endpoint.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    endpoint.__name__ = operation.name
    return endpoint


def _confine(operation: Operation, arguments: BaseModel) -> None:
    named = [name for name in operation.server_files if getattr(arguments, name) is not None]
    if named:
        raise InvalidInputError(
            f"{', '.join(named)}: a tenant's files stay in its own folder on the server; "
            "leave it out"
        )


def _part_annotation(operation: Operation) -> Any:
    """What arrives besides the path: a body or a query model, or nothing."""
    route = operation.route
    if route.body_field is not None:
        return Annotated[operation.request.model_fields[route.body_field].annotation, Body()]
    rest = {
        name: (field.annotation, field)
        for name, field in operation.request.model_fields.items()
        if name not in route.path_fields
    }
    if not rest:
        return None
    if not route.has_body:
        query: type[BaseModel] = create_model(f"{_title(operation)}Query", **rest)  # type: ignore[call-overload]
        return Annotated[query, Query()]
    if not route.path_fields:
        return Annotated[operation.request, Body()]
    body: type[BaseModel] = create_model(  # type: ignore[call-overload]
        f"{_title(operation)}Body", __config__=ConfigDict(extra="forbid"), **rest
    )
    return Annotated[body, Body()]


def _title(operation: Operation) -> str:
    return "".join(word.capitalize() for word in operation.name.split("_"))
