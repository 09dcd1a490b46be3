"""Loading the demo data set (a fictional team's memories) into an engine's store.

Ids are derived from the data set's labels (UUID5), so loading twice changes nothing and
screenshots and tests see the same ids every time. The default embedder's vectors of the
data ship with it (`cortex_tui.demo.vectors`), so loading it embeds nothing.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import datetime
from importlib import resources
from typing import Any

from cortex_tui.config import RecallWeights
from cortex_tui.demo.turns import record_demo_turns
from cortex_tui.demo.vectors import DemoTexts, shipped_vectors
from cortex_tui.engine.local import LocalEngine
from cortex_tui.models import (
    RULES_JUDGE,
    ConflictStatus,
    Decision,
    Entity,
    EntityType,
    Memory,
    MemoryType,
    Relation,
    Scope,
    WriteAction,
)

_NAMESPACE = uuid.UUID("5b0d3c1e-6f5e-4a8e-9d7c-2f1a0c9e4b11")


def demo_id(label: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, label))


def demo_data() -> dict[str, Any]:
    text = resources.files("cortex_tui.demo").joinpath("data.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def demo_now() -> datetime:
    return datetime.fromisoformat(demo_data()["now"])


def demo_profiles() -> dict[str, RecallWeights]:
    """Weight profiles to compare the default ranking against, in the `--demo` app."""
    profiles: dict[str, Any] = demo_data().get("profiles", {})
    return {name: RecallWeights.model_validate(weights) for name, weights in profiles.items()}


def build_demo() -> tuple[list[Memory], list[Entity], list[Relation]]:
    data = demo_data()
    now = datetime.fromisoformat(data["now"])
    mentions: dict[str, list[str]] = {}
    memories: dict[str, Memory] = {}
    for raw in data["memories"]:
        memory_id = demo_id(raw["label"])
        created = datetime.fromisoformat(raw["created_at"])
        entity_ids = [demo_id(label) for label in raw.get("entities", [])]
        for entity_id in entity_ids:
            mentions.setdefault(entity_id, []).append(memory_id)
        memories[raw["label"]] = Memory(
            id=memory_id,
            content=raw["content"],
            type=MemoryType(raw["type"]),
            scope=Scope(raw["scope"]),
            confidence=raw.get("confidence", 0.9),
            tags=raw.get("tags", []),
            project=raw.get("project"),
            session_id=raw.get("session_id"),
            source=raw.get("source", "remember"),
            created_at=created,
            updated_at=created,
            last_accessed=_time(raw.get("last_accessed")),
            access_count=raw.get("access_count", 0),
            reinforced_count=raw.get("reinforced_count", 0),
            valid_from=created,
            entity_ids=entity_ids,
            ttl_hours=raw.get("ttl_hours"),
            importance=raw.get("importance", 0.5),
            decisions=[_decision(why, created) for why in raw.get("why", [])],
        )
    _link_versions(data["memories"], memories)
    _link_conflicts(data["memories"], memories)
    entities = [
        Entity(
            id=demo_id(raw["label"]),
            name=raw["name"],
            type=EntityType(raw["type"]),
            aliases=raw.get("aliases", []),
            created_at=now,
            memory_ids=mentions.get(demo_id(raw["label"]), []),
        )
        for raw in data["entities"]
    ]
    relations = [
        Relation(
            id=demo_id(f"rel:{raw['subject']}:{raw['predicate']}:{raw['object']}"),
            subject_id=demo_id(raw["subject"]),
            predicate=raw["predicate"],
            object_id=demo_id(raw["object"]),
            valid_from=datetime.fromisoformat(raw["valid_from"]),
            valid_to=_time(raw.get("valid_to")),
            source_memory_id=demo_id(raw["source"]) if raw.get("source") else None,
        )
        for raw in data["relations"]
    ]
    return list(memories.values()), entities, relations


def _named_pairs(
    raw_memories: list[dict[str, Any]], memories: dict[str, Memory], key: str
) -> Iterator[tuple[Memory, Memory]]:
    """Each demo memory whose entry names another by its label under `key` (the version
    it supersedes, the memory it contradicts), with that other memory."""
    for raw in raw_memories:
        other_label = raw.get(key)
        if other_label:
            yield memories[raw["label"]], memories[other_label]


def _link_versions(raw_memories: list[dict[str, Any]], memories: dict[str, Memory]) -> None:
    for newer, older in _named_pairs(raw_memories, memories, "supersedes"):
        newer.supersedes_id = older.id
        older.superseded_by_id = newer.id
        older.valid_to = newer.created_at


def _link_conflicts(raw_memories: list[dict[str, Any]], memories: dict[str, Memory]) -> None:
    for a, b in _named_pairs(raw_memories, memories, "conflicts_with"):
        group = demo_id(f"conflict:{min(a.id, b.id)}:{max(a.id, b.id)}")
        for member, partner in ((a, b), (b, a)):
            member.conflict_group_id = group
            member.conflict_status = ConflictStatus.ACTIVE
            if partner.id not in member.contradicts_ids:
                member.contradicts_ids = [*member.contradicts_ids, partner.id]


def _decision(raw: dict[str, Any], at: datetime) -> Decision:
    """A write-path decision as the demo data states it (`related` by label)."""
    related = raw.get("related")
    return Decision(
        action=WriteAction(raw["action"]),
        reason=raw["reason"],
        judge=raw.get("judge", RULES_JUDGE),
        related_id=demo_id(related) if related else None,
        statement=raw.get("statement"),
        at=at,
    )


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def load_demo(engine: LocalEngine) -> dict[str, int]:
    """Store the demo data set; with the shipped vectors when they are the engine's
    embedder's for this data (see `cortex_tui.demo.vectors`), else embedding it."""
    memories, entities, relations = build_demo()
    texts = DemoTexts.of(memories, entities, engine.settings.parts)
    shipped = shipped_vectors(engine.embedder, texts)
    if shipped is None:
        engine.insert(memories)
    else:
        engine.insert(memories, vectors=shipped.memories, parts=shipped.split_parts(texts))
    engine.insert_graph(entities, relations, entity_vectors=shipped.entities if shipped else None)
    turns = record_demo_turns(engine, demo_data().get("turns", []), demo_id)
    return {
        "memories": len(memories),
        "entities": len(entities),
        "relations": len(relations),
        "turns": turns,
    }
