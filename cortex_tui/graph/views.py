"""What the graph service answers with: pydantic models, so they serialise for --json and
cross the local service unchanged, like the rest of the data model."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from cortex_tui.models import Entity, Memory, Relation


class _View(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EntityPage(_View):
    entities: list[Entity]
    total: int


class EntityMatch(_View):
    """A search hit: the entity, its best rapidfuzz WRatio (0–100) and the surface form
    (name or alias) that scored it."""

    entity: Entity
    score: float
    matched: str


class NeighbourNode(_View):
    """An entity within reach of the center.

    `via` is the node one hop nearer the center that it was first reached from (None for
    the center), which is enough to draw the neighbourhood as a tree. `memories` holds the
    current versions among `memory_ids`; superseded or forgotten ones stay ids only.
    """

    entity: Entity
    hops: int = Field(ge=0)
    via: str | None = None
    memory_ids: list[str] = Field(default_factory=list)
    memories: list[Memory] = Field(default_factory=list)


EdgeDirection = Literal["out", "in", "across"]


class NeighbourEdge(_View):
    """A relation between two nodes of the neighbourhood.

    `direction` is relative to the center: "out" when the subject is nearer the center,
    "in" when the object is, "across" when both are equally far. Closed relations
    (valid_to set) are included with `current` False: they are how a fact changed.
    """

    relation: Relation
    direction: EdgeDirection
    current: bool


class Neighbourhood(_View):
    center: Entity
    hops: int
    nodes: list[NeighbourNode]
    edges: list[NeighbourEdge]
