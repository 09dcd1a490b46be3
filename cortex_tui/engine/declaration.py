"""How an engine operation is declared: once, as a method of the `Engine` protocol.

The method's signature is the operation's arguments, its return annotation the answer
and its docstring's first paragraph the description a model reads; `@operation` adds the
HTTP route and whether it writes. Everything else is derived from that one declaration:
the arguments as a pydantic model (`Operation.request`, which the service's routes
validate and an MCP tool publishes as its JSON schema), the remote client's methods
(`engine/remote.py`), the routes (`server/routes.py`) and the MCP tools. `LocalEngine`
stays the one implementation, and mypy holds its signatures to the protocol's.

An operation whose one argument is a model (`recall(RecallRequest)`,
`remember(MemoryDraft)`) takes that model as its request as it is.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar, get_type_hints

from pydantic import BaseModel, ConfigDict, TypeAdapter, create_model

if TYPE_CHECKING:
    from cortex_tui.engine.protocol import Engine

Method = TypeVar("Method", bound=Callable[..., Any])

_PATH_FIELD = re.compile(r"{(\w+)}")
_DECLARATION = "__operation__"


class Arguments(BaseModel):
    """The base of every operation's arguments: an unknown field is an error."""

    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class Route:
    """Where the service answers an operation. Path segments in braces are filled from
    the argument fields of the same name; the other fields travel as query parameters
    for GET and DELETE, else as the JSON body (or only `body_field`'s value, when set)."""

    method: str
    path: str
    body_field: str | None = None

    @property
    def path_fields(self) -> tuple[str, ...]:
        return tuple(_PATH_FIELD.findall(self.path))

    @property
    def has_body(self) -> bool:
        return self.method not in ("GET", "DELETE")


def on_get(path: str) -> Route:
    return Route("GET", path)


def on_post(path: str, body_field: str | None = None) -> Route:
    return Route("POST", path, body_field)


@dataclass(frozen=True)
class _Marks:
    """What `@operation` adds to a protocol method."""

    route: Route
    name: str | None
    writes: bool | Callable[[Any], bool]
    server_files: tuple[str, ...]
    adds_memories: bool


def operation(
    route: Route,
    *,
    name: str | None = None,
    writes: bool | Callable[[Any], bool] = False,
    server_files: tuple[str, ...] = (),
    adds_memories: bool = False,
) -> Callable[[Method], Method]:
    """Declare a protocol method an operation. `name`: its public name (the route's and
    the MCP tool's) when not the method's; `writes`: whether a call changes the store (or
    a test of its request); `server_files`: arguments naming a file on the engine's
    machine, which a team server's tenant may not give; `adds_memories`: whether a call
    may add memories (a tenant's quota is checked first)."""
    marks = _Marks(route, name, writes, server_files, adds_memories)

    def declare(method: Method) -> Method:
        setattr(method, _DECLARATION, marks)
        return method

    return declare


@dataclass(frozen=True, eq=False)
class Operation:
    declared: Callable[..., Any]
    """The protocol method: its signature, answer and docstring."""
    part: str | None
    """The engine's part that performs it (`engine.graph`, `engine.curation`, ...: an
    attribute named so); None: the engine itself."""
    marks: _Marks

    @property
    def method(self) -> str:
        """The name of the method that performs it."""
        return self.declared.__name__

    @property
    def name(self) -> str:
        return self.marks.name or self.method

    @property
    def route(self) -> Route:
        return self.marks.route

    @property
    def server_files(self) -> tuple[str, ...]:
        return self.marks.server_files

    @property
    def adds_memories(self) -> bool:
        return self.marks.adds_memories

    @cached_property
    def description(self) -> str:
        doc = inspect.getdoc(self.declared) or ""
        return " ".join(doc.split("\n\n")[0].split())

    @cached_property
    def _signature(self) -> inspect.Signature:
        return inspect.signature(self.declared)

    @cached_property
    def _hints(self) -> dict[str, Any]:
        return get_type_hints(self.declared, include_extras=True)

    @cached_property
    def _parameters(self) -> list[inspect.Parameter]:
        return list(self._signature.parameters.values())[1:]  # past `self`

    @cached_property
    def takes_whole(self) -> bool:
        """Whether its one argument is a model, which is then the request itself."""
        if len(self._parameters) != 1:
            return False
        annotation = self._hints[self._parameters[0].name]
        return isinstance(annotation, type) and issubclass(annotation, BaseModel)

    @cached_property
    def request(self) -> type[BaseModel]:
        """The arguments as one model; field names are the parameters' (and those of
        the path segments they fill, so a route and its arguments cannot drift)."""
        if self.takes_whole:
            model: type[BaseModel] = self._hints[self._parameters[0].name]
            return model
        fields: dict[str, Any] = {
            p.name: (self._hints[p.name], ... if p.default is p.empty else p.default)
            for p in self._parameters
        }
        title = "".join(word.capitalize() for word in self.name.split("_"))
        return create_model(f"{title}Arguments", __base__=Arguments, **fields)

    @cached_property
    def response(self) -> Any:
        """The answer's type; None for an operation that answers nothing (HTTP 204)."""
        answer = self._hints["return"]
        return None if answer is type(None) else answer

    @cached_property
    def answer(self) -> TypeAdapter[Any]:
        return TypeAdapter(self.response)

    def writes_for(self, request: BaseModel) -> bool:
        """Whether this call changes the store (the service serialises it as a write)."""
        writes = self.marks.writes
        return writes(request) if callable(writes) else writes

    @property
    def may_write(self) -> bool:
        return self.marks.writes is not False

    def request_for(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> BaseModel:
        """A Python call's arguments as this operation's request; the fields it leaves
        out stay unset, so the performing side applies its own defaults."""
        if self.takes_whole:
            (whole,) = [*args, *kwargs.values()]
            return self.request.model_validate(whole)
        bound = self._signature.bind(None, *args, **kwargs)
        given = dict(list(bound.arguments.items())[1:])
        return self.request.model_validate(given)

    def perform(self, engine: Engine, request: BaseModel) -> Any:
        """The call this request stands for, made on `engine`."""
        performer = getattr(
            engine if self.part is None else getattr(engine, self.part), self.method
        )
        if self.takes_whole:
            return performer(request)
        return performer(**{name: getattr(request, name) for name in request.model_fields_set})


def declared(protocol: type, *, part: str | None = None) -> tuple[Operation, ...]:
    """The operations a protocol declares, in the order it declares them (the service's
    routes are matched in this order); `part`: the engine's attribute that performs them."""
    return tuple(
        Operation(member, part, getattr(member, _DECLARATION))
        for member in vars(protocol).values()
        if hasattr(member, _DECLARATION)
    )
