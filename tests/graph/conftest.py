"""Graph fixtures: a `GraphService` on the shared engine's real store, and small builders."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import pytest

from cortex_tui.engine.local import LocalEngine
from cortex_tui.graph.service import GraphService
from cortex_tui.models import (
    CandidateEntity,
    CandidateRelation,
    EntityType,
    Memory,
    MemoryDraft,
)
from tests.conftest import NOW


def graph_of(engine: LocalEngine) -> GraphService:
    """The service as the engine holds it (same store, embedder, settings and clock)."""
    return GraphService(engine.store, engine.embedder, engine.settings.graph, engine.clock)


@pytest.fixture
def graph(engine: LocalEngine) -> GraphService:
    return graph_of(engine)


def stored_memory(engine: LocalEngine, content: str, valid_from: datetime = NOW) -> Memory:
    """A memory inserted as-is (no write-path folding), so each test controls its ids."""
    memory = engine.materialise(MemoryDraft(content=content, valid_from=valid_from))
    engine.insert([memory])
    return memory


def ent(name: str, type: EntityType = EntityType.OTHER) -> CandidateEntity:
    return CandidateEntity(name=name, type=type)


def rel(subject: str, predicate: str, obj: str, at: datetime | None = None) -> CandidateRelation:
    return CandidateRelation(subject=subject, predicate=predicate, object=obj, valid_at=at)


def link(
    engine: LocalEngine,
    graph: GraphService,
    memory: Memory,
    entities: Sequence[CandidateEntity] = (),
    relations: Sequence[CandidateRelation] = (),
) -> Memory:
    """Link and persist the memory as the engine does; returns the stored version."""
    linked, _, _ = graph.link(memory, list(entities), list(relations))
    engine.store.update_memories([linked])
    engine._graph = None
    return linked
