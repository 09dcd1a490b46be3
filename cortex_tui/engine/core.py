"""`EngineCore`: what every part of the local engine shares — the store, the embedder, the
clock, the privacy step, the entity graph — and the reads and writes they all go through.

`LocalEngine` is a core with the engine's operations on it; its parts (curation, what
agents were given, upkeep, overview: `engine/parts/`) are handed the same core instead of
the engine, so none of them imports `engine/local.py` and the engine's state has one
owner. The core holds the two guards no part may step around: a memory leaves through
`shown` (no secret, whatever the store holds) and enters through `write` (indexed with its
neighbours' context and its sentences).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

import numpy as np

from cortex_tui.clock import Clock, system_clock
from cortex_tui.config import Settings
from cortex_tui.curation.projects import ProjectNames
from cortex_tui.curation.versions import version_chain
from cortex_tui.embed.base import Embedder, Matrix
from cortex_tui.errors import AmbiguousIdError, InvalidInputError, NotFoundError
from cortex_tui.graph.index import GraphIndex
from cortex_tui.graph.service import GraphService
from cortex_tui.llm.base import LLMClient
from cortex_tui.llm.factory import make_llm
from cortex_tui.models import Entity, Memory, Relation, Scope
from cortex_tui.privacy.records import clean_tags, redact_memory
from cortex_tui.privacy.redactor import Redacted, Redactor
from cortex_tui.store.base import MemoryFilter, Parts, Store, Vector
from cortex_tui.write.neighbours import NeighbourIndex
from cortex_tui.write.parts import part_vectors

WRITE_BATCH = 256
MAX_SPEAKERS = 256
"""Speakers a query can name, the most frequent first: people in conversations, a few
roles in agent sessions; past this many, the rarest go unrecognised."""


class EngineCore:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        embedder: Embedder,
        clock: Clock = system_clock,
        llm: LLMClient | None = None,
        *,
        notices: Sequence[str] = (),
    ) -> None:
        """`notices`: what every recall and health check should tell the user about this
        store (a migration that would help, say)."""
        self.settings = settings
        self.notices = tuple(notices)
        self.store = store
        self.embedder = embedder
        self.clock = clock
        self._graph: GraphIndex | None = None
        self.llm = llm if llm is not None else make_llm(settings.llm)
        self.privacy = Redactor(settings.privacy)
        """The privacy step: every text on its way in, every memory on its way out."""
        self.writer: str | None = None
        """Who writes now, recorded on each memory version written (`author`): a team
        server's shared store sets it to the member whose request it serves."""
        self.shared = False
        """A team's store on a team server: the one store that takes scope `team`."""
        self._neighbours = NeighbourIndex(store, settings.context)
        self.graph = GraphService(
            store,
            embedder,
            settings.graph,
            clock,
            on_change=self.drop_graph_index,
            privacy=self.privacy,
        )
        self.projects = ProjectNames(store)
        """Project names as people give them (`api`) to the keys memories are filed
        under (`github.com/acme/api`)."""
        self.between_batches: Callable[[], None] = lambda: None
        """Called between the batches of a long write (an import): the service lets a
        waiting reader in there, so no request holds its engine for a whole import."""

    def now(self) -> datetime:
        return self.clock()

    def close(self) -> None:
        self.store.close()

    # --- the entity graph as recall reads it ----------------------------------------

    def drop_graph_index(self) -> None:
        """Rebuilt on its next use: entities, relations or speakers changed."""
        self._graph = None

    def graph_index(self) -> GraphIndex:
        if self._graph is None:
            speakers = self.store.facet_memories(
                "speaker", MemoryFilter(current_only=False, statuses=None), MAX_SPEAKERS
            )
            self._graph = GraphIndex(
                self.store.all_entities(), self.store.all_relations(), speakers
            )
        return self._graph

    # --- reading: the read guard ----------------------------------------------------

    def resolve_id(self, prefix: str) -> str:
        prefix = prefix.strip().lower()
        if len(prefix) < 4:
            raise InvalidInputError(f"id {prefix!r} is too short; give at least 4 characters")
        if len(prefix) == 36:
            return prefix
        matches = self.store.find_ids_by_prefix(prefix, limit=2)
        if not matches:
            raise NotFoundError(
                f"no memory id starts with {prefix}; list ids with `cortex-tui list`"
            )
        if len(matches) > 1:
            raise AmbiguousIdError(
                f"id prefix {prefix} matches several memories; give more characters"
            )
        return matches[0]

    def stored(self, memory_id: str) -> Memory:
        """The memory as the store holds it: what a write starts from (a version it
        retires must match the stored one; `shown` is what a surface gets)."""
        full_id = self.resolve_id(memory_id)
        found = self.store.get_memories([full_id])
        if not found:
            raise NotFoundError(f"no memory with id {memory_id}; list ids with `cortex-tui list`")
        return found[0]

    def shown(self, memory: Memory) -> Memory:
        """The read guard: a memory as every surface shows it, with no secret even when
        the store holds one (written by an older version or another tool; `scrub`
        cleans the store itself)."""
        return redact_memory(self.privacy, memory)

    def chain(self, memory_id: str) -> list[Memory]:
        """The stored version chain containing `memory_id`, oldest first."""
        return version_chain(self.store, self.stored(memory_id))

    # --- writing: what every write goes through --------------------------------------

    def document_vector(self, content: str) -> Matrix:
        """A memory's vector as `insert` and `reembed` make it: a model with a document
        prompt (e5's "passage: ") embeds memories with it, queries with the query one."""
        vector: Matrix = self.document_vectors([content])[0]
        return vector

    def document_vectors(self, contents: Sequence[str]) -> Matrix:
        """Vectors of memory contents in one model call (one row each, as stored:
        stripped); a batch costs a fraction of one call per text."""
        return self.embedder.embed([content.strip() for content in contents])

    def write(
        self,
        memories: Sequence[Memory],
        vectors: Sequence[Vector],
        parts: Sequence[Parts] | None = None,
    ) -> None:
        """Every memory write: indexed with its neighbours' context and its sentences
        (`parts`, embedded here unless given); a speaker the graph view does not know
        yet makes the view rebuild on its next use."""
        if parts is None and self.store.indexes_parts:
            parts = part_vectors(self.embedder, memories, self.settings.parts)
        self._neighbours.write(memories, vectors, parts)
        graph = self._graph
        if graph is not None and any(
            m.speaker and m.speaker not in graph.speakers for m in memories
        ):
            self._graph = None

    def insert(
        self,
        memories: Sequence[Memory],
        *,
        vectors: Matrix | None = None,
        parts: Sequence[Matrix] | None = None,
    ) -> None:
        """Embed and store memories as given, in batches (no write-path logic).

        `vectors` (one row per memory, this engine's embedder's embedding of its content,
        e.g. precomputed for a shipped data set) are stored instead of embedding again;
        `parts` likewise, one matrix per memory (`write/parts.py`, empty for none).
        """
        _require_rows(vectors, len(memories), self.embedder.dimension, "memories")
        if parts is not None and len(parts) != len(memories):
            raise InvalidInputError(f"{len(memories)} memories but {len(parts)} part lists")
        for start in range(0, len(memories), WRITE_BATCH):
            if start:
                self.between_batches()
            batch = memories[start : start + WRITE_BATCH]
            if vectors is None:
                rows = self.embedder.embed([m.content for m in batch])
            else:
                rows = vectors[start : start + WRITE_BATCH]
            given = None if parts is None else parts[start : start + WRITE_BATCH]
            self.write(batch, list(rows), given)

    def insert_graph(
        self,
        entities: Sequence[Entity],
        relations: Sequence[Relation],
        *,
        entity_vectors: Matrix | None = None,
    ) -> None:
        """Store entities (embedding their names unless `entity_vectors` are given, as for
        `insert`) and relations."""
        _require_rows(entity_vectors, len(entities), self.embedder.dimension, "entities")
        if entities:
            if entity_vectors is None:
                entity_vectors = self.embedder.embed([e.name for e in entities])
            self.store.upsert_entities(entities, list(entity_vectors))
        if relations:
            self.store.upsert_relations(relations)
        self._graph = None

    def touch(self, memory_ids: Sequence[str]) -> None:
        """Count a read of these memories (access count and time feed the frequency and
        recency priors). A recall does it itself unless told not to; the service does it
        for a pre hook after answering, so the agent does not wait for the write. Read
        afresh: a write since the recall must not be undone by an older copy."""
        now = self.clock()
        touched = [
            m.model_copy(update={"last_accessed": now, "access_count": m.access_count + 1})
            for m in self.store.get_memories(list(memory_ids))
        ]
        self.store.update_memories(touched, durable=False)

    # --- what a written memory may hold -----------------------------------------------

    def check_scope(self, scope: Scope) -> None:
        if scope is Scope.TEAM and not self.shared:
            raise InvalidInputError(
                "scope team is shared with a team on a team server; this store is not one "
                "(ask the server's admin: `cortex-tui tenant team NAME TEAM`)"
            )

    def safe_tags(self, tags: Iterable[str], content: str) -> list[str]:
        """Tags as stored: none that holds a secret, nor a piece of one the content
        holds (a bare piece of a key says nothing a detector could know it by). Checked
        as given, before tags are folded to lower case (`AKIA…` is a key; `akia…` no
        longer looks like one)."""
        kept = _folded_tags(clean_tags(self.privacy, list(tags)))
        if not kept:
            return []
        values = [value.casefold() for value, _ in self.privacy.secrets_in(content)]
        return [tag for tag in kept if not any(tag in value or value in tag for value in values)]

    def safe_content(self, content: str, redacted: Redacted | None = None) -> str:
        """A memory's text as stored: stripped, no secret, no `<private>` span; an
        error when nothing is left."""
        if not content.strip():
            raise InvalidInputError("memory content is empty; give the text to remember")
        kept = (redacted or self.privacy.redact(content.strip())).text.strip()
        if not kept:
            raise InvalidInputError(
                "nothing is left to remember once the `<private>` spans are left out"
            )
        return kept


def _require_rows(vectors: Matrix | None, count: int, dimension: int, what: str) -> None:
    """Given vectors must be one finite `dimension`-d row per item."""
    if vectors is None:
        return
    if vectors.shape != (count, dimension):
        raise InvalidInputError(
            f"{what}: expected vectors of shape ({count}, {dimension}), got {vectors.shape}"
        )
    if not np.isfinite(vectors).all():
        raise InvalidInputError(f"{what}: the given vectors hold NaN or infinite values")


def _folded_tags(tags: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for tag in tags:
        cleaned = tag.strip().casefold()
        if cleaned:
            seen.setdefault(cleaned, None)
    return list(seen)
