"""Each operation is declared once, on the protocol; the implementations follow it and
the remote client is made from it, so a declaration cannot drift from either."""

from __future__ import annotations

import inspect
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from cortex_tui.engine.declaration import Operation
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.operations import OPERATIONS, PARTS, operation_of
from cortex_tui.engine.parts.archive import LocalArchive
from cortex_tui.engine.parts.curation import LocalCuration
from cortex_tui.engine.parts.given import LocalGiven
from cortex_tui.engine.parts.overview import LocalOverview
from cortex_tui.engine.parts.upkeep import LocalUpkeep
from cortex_tui.engine.protocol import Engine, EntityGraph, GivenRecords, Overview, Upkeep
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.graph.service import GraphService

PERFORMERS: dict[str | None, type] = {
    None: LocalEngine,
    "graph": GraphService,
    "curation": LocalCuration,
    "overview": LocalOverview,
    "upkeep": LocalUpkeep,
    "given": LocalGiven,
    "archive": LocalArchive,
}
"""Which class performs each part's operations in the calling process."""


def implementation(operation: Operation) -> Any:
    return getattr(PERFORMERS[operation.part], operation.method)


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: op.name)
def test_the_implementation_takes_the_declared_arguments_with_the_same_defaults(
    operation: Operation,
) -> None:
    """A service fills in only the arguments a caller gave, so the implementation's
    defaults are the ones a remote caller gets: they must be the declaration's."""
    declared = inspect.signature(operation.declared).parameters
    implemented = inspect.signature(implementation(operation)).parameters
    for name, parameter in declared.items():
        assert name in implemented, f"{operation.method} does not take {name!r}"
        assert implemented[name].default == parameter.default, name
        assert implemented[name].kind == parameter.kind, name
    extra = [p for name, p in implemented.items() if name not in declared]
    assert all(p.default is not p.empty for p in extra), "an extra argument must be optional"


def test_every_protocol_method_but_the_plumbing_is_a_declared_operation() -> None:
    plumbing = {*PARTS, "now", "export", "close"}
    methods = {name for name in vars(Engine) if not name.startswith("_")} - plumbing
    assert methods == {op.method for op in OPERATIONS if op.part is None}
    assert set(PERFORMERS) == {None, *PARTS}
    for part, protocol in PARTS.items():
        declared = {name for name in vars(protocol) if not name.startswith("_")}
        assert declared == {op.method for op in OPERATIONS if op.part == part}, part
    assert len({op.name for op in OPERATIONS}) == len(OPERATIONS)


def test_an_operation_is_found_from_its_protocol_method() -> None:
    assert operation_of(Engine.recall).name == "recall"
    assert operation_of(Engine.list_memories).name == "list"
    assert operation_of(EntityGraph.get).name == "entity"
    assert operation_of(Engine.get).route.path == "/v1/memories/{memory_id}"


def test_the_given_records_operations_answer_where_clients_of_0_1_0_ask() -> None:
    """Renamed from `turns` and `record_injection`, they keep their routes: a client and a
    team server of either version still answer each other."""
    given = GivenRecords
    methods = (given.records, given.record, given.unhelpful_memories, given.judge_turn)
    routes = {op.name: (op.route.method, op.route.path) for op in map(operation_of, methods)}
    assert routes == {
        "given": ("GET", "/v1/injections"),
        "record_given": ("POST", "/v1/injections"),
        "unhelpful": ("GET", "/v1/injections/unhelpful"),
        "judge_turn": ("POST", "/v1/injections/{injection_id}/judgements"),
    }


def test_a_call_becomes_the_operation_request_with_only_the_given_fields() -> None:
    update = operation_of(Engine.update)
    request = update.request_for(("abc12345",), {"content": "new words"})
    assert request.model_dump(exclude_unset=True) == {
        "memory_id": "abc12345",
        "content": "new words",
    }
    with pytest.raises(TypeError):
        update.request_for((), {"content": "no id"})
    with pytest.raises(TypeError):
        update.request_for(("abc12345",), {"colour": "red"})


def test_the_declared_constraints_are_checked_on_the_request() -> None:
    day = operation_of(Overview.day)
    with pytest.raises(ValueError, match="limit"):
        day.request_for(("2026-11-27",), {"limit": 0})
    request = day.request_for(("2026-11-27",), {})
    assert request.model_dump() == {"day": date(2026, 11, 27), "limit": 200}


def test_the_remote_client_has_exactly_the_declared_methods(tmp_path: Path) -> None:
    remote = RemoteEngine.over_socket(tmp_path)
    try:
        for operation in OPERATIONS:
            owner = remote if operation.part is None else getattr(remote, operation.part)
            assert callable(getattr(owner, operation.method)), operation.method
        with pytest.raises(AttributeError):
            remote.recal  # noqa: B018
        with pytest.raises(AttributeError):
            remote.graph.purge  # noqa: B018
        with pytest.raises(AttributeError):
            remote.purge  # noqa: B018  (upkeep: remote.upkeep.purge)
    finally:
        remote.close()


def test_descriptions_are_the_first_paragraph_of_the_docstring() -> None:
    lifecycle = operation_of(Upkeep.lifecycle)
    assert lifecycle.description.startswith("Expire, decay, archive and consolidate")
    assert "backup" not in lifecycle.description  # the second paragraph is for readers
    assert operation_of(Engine.save_weight_profile).response is None
