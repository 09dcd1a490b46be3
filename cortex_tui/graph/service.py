"""`GraphService`: everything the engine does with entities and relations.

Linking a memory writes entities and relations but not the memory: the caller stores the
returned memory (with its new `entity_ids`) together with the rest of the memory, in the
same write it makes anyway. Curation (merge, alias, rename) writes everything it touches,
memories included, after recording in the curation journal how to undo it (entities,
relations and memories as they were, with the name vectors needed to put entities back),
so `undo` reverses it. The engine's cached `GraphIndex` is the engine's to invalidate
after any change made here (`on_change`), an undo included (`entities_changed`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rapidfuzz import fuzz

from cortex_tui.clock import Clock
from cortex_tui.config import GraphConfig
from cortex_tui.curation import journal
from cortex_tui.embed.base import Embedder, Matrix
from cortex_tui.errors import AmbiguousIdError, InvalidInputError, NotFoundError
from cortex_tui.graph.index import normalise_name
from cortex_tui.graph.linker import Linker
from cortex_tui.graph.merge import merge_entities
from cortex_tui.graph.names import entity_keys
from cortex_tui.graph.neighbourhood import neighbourhood
from cortex_tui.graph.resolve import EntityJudge
from cortex_tui.graph.views import EntityMatch, EntityPage, Neighbourhood
from cortex_tui.models import (
    CandidateEntity,
    CandidateRelation,
    Entity,
    EntityType,
    Memory,
    Relation,
)
from cortex_tui.privacy.records import redact_entity, redact_memory, redact_relation
from cortex_tui.privacy.redactor import Redactor
from cortex_tui.store.base import Store

MIN_ID_PREFIX = 4
# WRatio below this is noise: unrelated short names already score 40-50.
SEARCH_MIN_SCORE = 60.0
_ID_PREFIX = re.compile(r"^[0-9a-f-]+$")
_FULL_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class GraphService:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        config: GraphConfig,
        clock: Clock,
        judge: EntityJudge | None = None,
        on_change: Callable[[], None] | None = None,
        privacy: Redactor | None = None,
    ) -> None:
        """`on_change` runs after each curation write, so a long-lived owner (the
        service) drops the graph index its recall caches. `privacy` refuses a name that
        holds a secret (a person's rename or alias; extraction's names come from text
        already redacted)."""
        self._store = store
        self._privacy = privacy
        self._on_change = on_change or (lambda: None)
        self._embedder = embedder
        self._config = config
        self._clock = clock
        self.judge = judge

    # --- linking ----------------------------------------------------------------------

    def link(
        self,
        memory: Memory,
        entities: list[CandidateEntity],
        relations: list[CandidateRelation],
    ) -> tuple[Memory, list[Entity], list[Relation]]:
        """Link `memory` to the entities and relations extraction found in it.

        Entities are resolved (or created), the memory is added to each one's mentions
        and they to its `entity_ids`, without dropping earlier links; relations are
        placed on their timelines (see `graph.timeline`). Blank names are skipped.
        Returns the memory to store, the entities it names (this call's) and the
        relations it states (new or already known). Writes entities and relations only.
        """
        linker = Linker(self._store, self._embedder, self._config, self._clock, self.judge, memory)
        for candidate in entities:
            if candidate.name.strip():
                linker.mention(candidate)
        for relation in relations:
            if relation.subject.strip() and relation.object.strip():
                linker.relate(relation)
        linker.commit()
        return linker.memory(), linker.entities, linker.relations

    # --- reading ----------------------------------------------------------------------

    def neighbourhood(self, ref: str, hops: int = 2) -> Neighbourhood:
        """`ref` may be an id, an id prefix or a name (see `get`)."""
        if hops < 0:
            raise InvalidInputError(f"hops must be 0 or more, got {hops}")
        return self._shown_neighbourhood(neighbourhood(self._store, self.get(ref), hops))

    def list_entities(
        self, type: EntityType | None = None, limit: int = 50, offset: int = 0
    ) -> EntityPage:
        """Most mentioned first (then by name): the entities worth curating first."""
        if limit < 1 or offset < 0:
            raise InvalidInputError("limit must be at least 1 and offset at least 0")
        chosen = [e for e in self._store.all_entities() if type is None or e.type is type]
        chosen.sort(key=lambda e: (-len(e.memory_ids), e.name.casefold(), e.id))
        page = [self._shown(e) for e in chosen[offset : offset + limit]]
        return EntityPage(entities=page, total=len(chosen))

    def get(self, ref: str) -> Entity:
        """The entity with id `ref`, else named `ref` (name, then alias), else whose id
        starts with `ref` (4 characters or more). Names come before prefixes because a
        name such as "cafe" is also valid hex."""
        text = ref.strip()
        if not text:
            raise InvalidInputError("no entity given; give an id, an id prefix or a name")
        if _FULL_ID.match(text.lower()):
            found = self._store.get_entities([text.lower()])
            if found:
                return found[0]
        everything = self._store.all_entities()
        key = normalise_name(text)
        for position in ("name", "alias"):
            named = [e for e in everything if _has_key(e, key, position)]
            if len(named) > 1:
                ids = ", ".join(e.id[:8] for e in named)
                raise AmbiguousIdError(f"{text!r} names several entities ({ids}); give an id")
            if named:
                return named[0]
        worded = [e for e in everything if key in normalise_name(e.name).split()]
        if len(worded) == 1:  # "Priya" for "Priya Raman", when only one name has it
            return worded[0]
        prefix = text.lower()
        if len(prefix) >= MIN_ID_PREFIX and _ID_PREFIX.match(prefix):
            matches = [e for e in everything if e.id.startswith(prefix)]
            if len(matches) > 1:
                raise AmbiguousIdError(
                    f"id prefix {prefix} matches several entities; give more characters"
                )
            if matches:
                return matches[0]
        raise NotFoundError(
            f"no entity is named {text!r} or has that id; find it with "
            f"`cortex-tui entities search {text!r}`"
        )

    def search(self, text: str, limit: int = 10) -> list[EntityMatch]:
        """Entities whose name or an alias resembles `text` (rapidfuzz WRatio), best first."""
        key = normalise_name(text)
        if not key:
            raise InvalidInputError("search text is empty; give a name or part of one")
        matches: list[EntityMatch] = []
        for entity in self._store.all_entities():
            forms = [entity.name, *entity.aliases]
            scored = [(fuzz.WRatio(key, normalise_name(form)), form) for form in forms]
            score, form = max(scored, key=lambda pair: pair[0])
            if score >= SEARCH_MIN_SCORE:
                shown = self._shown(entity)
                form = form if shown is entity else self._privacy_clean(form)
                matches.append(EntityMatch(entity=shown, score=score, matched=form))
        matches.sort(key=lambda m: (-m.score, -len(m.entity.memory_ids), m.entity.name.casefold()))
        return matches[:limit]

    # --- curation ---------------------------------------------------------------------

    def merge(self, ref: str, into_id: str) -> Entity:
        """Fold `source` into `into` (ids, prefixes or names); returns the survivor.
        Journalled as "entity-merge": undo re-creates the source and puts back its
        relations and the links of the memories that mention it."""
        source, into = self.get(ref), self.get(into_id)
        if source.id == into.id:
            raise InvalidInputError(
                f"{source.name!r} and {into.name!r} are the same entity; give two different ones"
            )
        journal.record(
            self._store,
            "entity-merge",
            self._clock(),
            entities=[(into, None), (source, self.name_vector(source.name))],
            relations=self._store.relations_of([source.id], current_only=False),
            before=self._store.get_memories(source.memory_ids),
            memory_fields=["entity_ids"],
            note=f"merged {_label(source)} into {_label(into)}",
        )
        survivor = merge_entities(self._store, source, into)
        self._on_change()
        return survivor

    def add_alias(self, ref: str, alias: str) -> Entity:
        """Another name for an entity; refused when it already names another entity
        (merge them instead). Adding an alias it already has changes nothing (and is not
        journalled); otherwise journalled as "entity-alias"."""
        entity = self.get(ref)
        key = normalise_name(alias)
        if not key:
            raise InvalidInputError("alias is empty; give a name with letters or digits")
        self._refuse_secret(alias, "alias")
        if key in entity_keys(entity):
            return entity
        self._refuse_taken(key, alias, entity)
        updated = entity.model_copy(update={"aliases": [*entity.aliases, alias.strip()]})
        journal.record(
            self._store,
            "entity-alias",
            self._clock(),
            entities=[(entity, None)],
            note=f"added alias {alias.strip()!r} to {_label(entity)}",
        )
        self._store.update_entities([updated])
        self._on_change()
        return updated

    def rename(self, ref: str, name: str) -> Entity:
        """Give an entity a new name; the old one stays as an alias, so memories that
        use it still resolve. The name vector is re-embedded. Journalled as
        "entity-rename" (with the old name's vector); the same name changes nothing."""
        entity = self.get(ref)
        new_name = name.strip()
        key = normalise_name(new_name)
        if not key:
            raise InvalidInputError("new name is empty; give a name with letters or digits")
        self._refuse_secret(new_name, "new name")
        self._refuse_taken(key, new_name, entity)
        aliases = [a for a in entity.aliases if normalise_name(a) != key]
        if normalise_name(entity.name) != key:
            aliases.append(entity.name)
        updated = entity.model_copy(update={"name": new_name, "aliases": aliases})
        if updated == entity:
            return entity
        journal.record(
            self._store,
            "entity-rename",
            self._clock(),
            entities=[(entity, self.name_vector(entity.name))],
            note=f"renamed {_label(entity)} to {new_name!r}",
        )
        self._store.upsert_entities([updated], [self.name_vector(new_name)])
        self._on_change()
        return updated

    # --- undo hooks (`curation.journal.GraphHooks`) -----------------------------------

    def name_vector(self, name: str) -> Matrix:
        """The vector an entity named `name` is stored with."""
        vector: Matrix = self._embedder.embed([name])[0]
        return vector

    def entities_changed(self) -> None:
        """Entities or relations changed outside this service (an undo): drop caches."""
        self._on_change()

    def _shown(self, entity: Entity) -> Entity:
        """The read guard: an entity as a surface shows it, no secret in its names even
        when a store written before secrets were kept out holds one (`scrub`)."""
        return entity if self._privacy is None else redact_entity(self._privacy, entity)

    def _privacy_clean(self, text: str) -> str:
        return text if self._privacy is None else self._privacy.clean(text)

    def _shown_neighbourhood(self, found: Neighbourhood) -> Neighbourhood:
        privacy = self._privacy
        if privacy is None:
            return found
        nodes = [
            node.model_copy(
                update={
                    "entity": self._shown(node.entity),
                    "memories": [redact_memory(privacy, m) for m in node.memories],
                }
            )
            for node in found.nodes
        ]
        edges = [
            edge.model_copy(update={"relation": redact_relation(privacy, edge.relation)})
            for edge in found.edges
        ]
        center = self._shown(found.center)
        return found.model_copy(update={"center": center, "nodes": nodes, "edges": edges})

    def _refuse_secret(self, name: str, what: str) -> None:
        if self._privacy is None:
            return
        redacted = self._privacy.redact(name)
        if redacted.changed:
            raise InvalidInputError(
                f"the {what} holds what memory never keeps ({redacted.describe()}); "
                "give a name without it"
            )

    def _refuse_taken(self, key: str, text: str, entity: Entity) -> None:
        for other in self._store.all_entities():
            if other.id != entity.id and key in entity_keys(other):
                raise InvalidInputError(
                    f"{text!r} already names entity {other.name!r} ({other.id[:8]}); "
                    f"merge the two with `cortex-tui entities merge {other.id[:8]} "
                    f"{entity.id[:8]}`"
                )


def _label(entity: Entity) -> str:
    return f"{entity.name!r} ({entity.id[:8]})"


def _has_key(entity: Entity, key: str, position: str) -> bool:
    if position == "name":
        return normalise_name(entity.name) == key
    return any(normalise_name(alias) == key for alias in entity.aliases)
