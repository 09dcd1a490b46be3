"""`LocalEngine`: the engine running in the calling process, owning a store and an embedder.

Nothing it does destroys information: an update writes a new version and closes the old
one's validity; forgetting marks a memory deleted; only `purge` removes data.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime

from cortex_tui.archive.messages import said_messages
from cortex_tui.archive.writer import TurnToArchive, archive_turn
from cortex_tui.classify import classify
from cortex_tui.clock import Clock, system_clock
from cortex_tui.config import RecallWeights, Settings, save_setting
from cortex_tui.curation import journal
from cortex_tui.embed.base import Embedder, Matrix
from cortex_tui.engine.core import EngineCore
from cortex_tui.engine.limits import check_content, check_query, check_turn
from cortex_tui.engine.parts.archive import LocalArchive
from cortex_tui.engine.parts.curation import LocalCuration
from cortex_tui.engine.parts.given import LocalGiven
from cortex_tui.engine.parts.overview import LocalOverview
from cortex_tui.engine.parts.upkeep import LocalUpkeep
from cortex_tui.errors import AmbiguousIdError, InvalidInputError, NotFoundError
from cortex_tui.llm.base import LLMClient
from cortex_tui.maintenance.transfer import dump_line, header_line
from cortex_tui.models import (
    Candidate,
    CandidateEntity,
    CandidateRelation,
    Entity,
    Explanation,
    Memory,
    MemoryDraft,
    MemoryPage,
    MemoryStatus,
    MemoryType,
    RecallResponse,
    Scope,
    WriteResult,
    new_id,
    with_decision,
)
from cortex_tui.privacy.records import (
    redact_entity,
    redact_memory,
    redact_relation,
    redaction_decision,
)
from cortex_tui.recall.channels.archive import ArchiveChannel
from cortex_tui.recall.gate_calibration import CosineScale, cosine_scale
from cortex_tui.recall.pipeline import Recaller
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter, Store
from cortex_tui.write.judge.decision import write_judge
from cortex_tui.write.parts import part_texts
from cortex_tui.write.path import WritePath
from cortex_tui.write.turn_capture import (
    CaptureProgress,
    Capturer,
    CaptureReport,
    PreparedTurn,
    turn_vectors,
)

log = logging.getLogger(__name__)

DEFAULT_TTL_HOURS = 720.0


class LocalEngine(EngineCore):
    """The engine's operations on its core (`engine/core.py`); curation, the overview,
    upkeep and what turns were given are its parts (`engine/parts/`), reached as
    `engine.curation` and so on."""

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
        super().__init__(settings, store, embedder, clock, llm, notices=notices)
        self._cosine_scale: CosineScale | None = None
        archive = (
            ArchiveChannel(
                settings.archive,
                self.cosine_scale,
                lambda content: part_texts(content, settings.parts),
                self.shown,
            )
            if settings.archive.enabled
            else None
        )
        self._recaller = Recaller(
            store,
            embedder,
            settings.recall,
            clock,
            self.graph_index,
            self.weights,
            self.llm,
            shown=self.shown,
            part_texts=lambda content: part_texts(content, settings.parts),
            scale=self.cosine_scale,
            archive=archive,
        )
        self._write_path = WritePath(
            store, settings, clock, self.write, write_judge(settings, self.llm)
        )
        self.curation = LocalCuration(self)
        self.overview = LocalOverview(self, self.recall)
        self.upkeep = LocalUpkeep(self)
        self.given = LocalGiven(self, self._lowered, self.curation.undo)
        self.archive = LocalArchive(self, archive)

    def with_settings(self, settings: Settings) -> LocalEngine:
        """This engine's store, embedder, clock and LLM under other settings: eval
        variants rank one ingested store several ways. Close only the original (the store
        is shared)."""
        return LocalEngine(
            settings, self.store, self.embedder, self.clock, self.llm, notices=self.notices
        )

    # --- reading -------------------------------------------------------------------

    def cosine_scale(self) -> CosineScale:
        """This model's cosines on the relevance gate's reference scale: calibrated the
        first time a model other than the reference is gated, then kept."""
        if self._cosine_scale is None:
            self._cosine_scale = cosine_scale(self.embedder, self.settings.models_path)
        return self._cosine_scale

    def weights(self, profile: str | None) -> RecallWeights:
        return self.settings.weight_profile(profile)

    def weight_profiles(self) -> dict[str, RecallWeights]:
        return {"default": self.settings.recall.weights, **self.settings.profiles}

    def save_weight_profile(self, name: str, weights: RecallWeights) -> None:
        name = name.strip()
        if not name or not name.replace("-", "").replace("_", "").isalnum():
            raise InvalidInputError(
                f"profile name {name!r} must be letters, digits, - or _ (e.g. precise)"
            )
        key = "recall.weights" if name == "default" else f"profiles.{name}"
        save_setting(self.settings.home, key, weights.model_dump())
        if name == "default":
            self.settings.recall.weights = weights
        else:
            self.settings.profiles = {**self.settings.profiles, name: weights}

    def recall(self, request: RecallRequest) -> RecallResponse:
        check_query(request.query, self.settings.limits)
        response = self._recaller.recall(self._in_project(request))
        if self.notices:
            response = response.model_copy(update={"notices": list(self.notices)})
        if request.update_access and response.results:
            # read afresh: a result holds its memory as shown, not as stored
            self.touch([r.memory.id for r in response.results])
        return response

    def explain(self, request: RecallRequest, memory_id: str) -> Explanation:
        check_query(request.query, self.settings.limits)
        return self._recaller.explain(self._in_project(request), self.stored(memory_id))

    def _in_project(self, request: RecallRequest) -> RecallRequest:
        project = self.projects.resolve(request.project)
        if project == request.project:
            return request
        return request.model_copy(update={"project": project})

    def adopt_project(self, key: str, legacy: str | None) -> int:
        """Memories filed under a repository's folder name (`legacy`, before projects were
        repositories) moved to its `key`; how many (0 once done)."""
        return self.projects.adopt(key, legacy, self.clock()) if legacy else 0

    def get(self, memory_id: str) -> Memory:
        return self.shown(self.stored(memory_id))

    def list_memories(
        self, filter: MemoryFilter, limit: int = 50, offset: str | None = None
    ) -> MemoryPage:
        project = self.projects.resolve(filter.project)
        if project != filter.project:
            filter = filter.model_copy(update={"project": project})
        memories, next_offset = self.store.scroll_memories(filter, limit, offset)
        return MemoryPage(
            memories=[self.shown(m) for m in memories],
            next_offset=next_offset,
            total=self.store.count_memories(filter),
        )

    def _lowered(self, memory_id: str, confidence: float, source: str) -> Memory:
        return self.update(memory_id, confidence=confidence, source=source)

    def history(self, memory_id: str) -> list[Memory]:
        """The version chain containing `memory_id`, oldest first."""
        return [self.shown(m) for m in self.chain(memory_id)]

    def export(self) -> Iterator[str]:
        yield header_line()
        everything = MemoryFilter(current_only=False, statuses=None)
        # through the read guard: an export of a store written before secrets were kept
        # out carries none of them on (`scrub` cleans the store itself)
        for memory in self.store.iter_memories(everything):
            yield dump_line(self.shown(memory))
        for entity in self.store.all_entities():
            yield dump_line(redact_entity(self.privacy, entity))
        for relation in self.store.all_relations():
            yield dump_line(redact_relation(self.privacy, relation))

    # --- writing -------------------------------------------------------------------

    def remember(self, draft: MemoryDraft, *, vector: Matrix | None = None) -> WriteResult:
        """Through the write path: the draft may fold into, update or contradict an
        existing memory instead of becoming a new one. `vector`: the content's
        `document_vectors` row, when the caller embedded a batch at once."""
        memory = self.materialise(draft)
        if vector is None:
            vector = self.document_vector(memory.content)
        result = self._write_path.write(memory, vector, corrects=draft.corrects)
        if result.renamed:
            linked = self._link_rename(result.memory, *result.renamed)
            result = result.model_copy(update={"memory": linked})
        return result

    def _link_rename(self, memory: Memory, former: str, renamed_to: str) -> Memory:
        """The renamed thing's entity takes the new name and keeps the old one as an
        alias (created when the graph does not know it yet), and the new version links
        to it. A name that already belongs to another entity is left for a person to
        merge: the write itself has happened and must not fail for it."""
        try:
            known = self._entity_named(former)
            if known is not None:
                self.graph.rename(known.id, renamed_to)
            linked, [entity], _ = self.graph.link(memory, [CandidateEntity(name=renamed_to)], [])
            self.graph.add_alias(entity.id, former)
        except (InvalidInputError, AmbiguousIdError) as exc:
            log.warning("rename %r → %r not linked in the graph: %s", former, renamed_to, exc)
            return memory
        return self._keep_links(memory, linked)

    def _entity_named(self, name: str) -> Entity | None:
        try:
            return self.graph.get(name)
        except NotFoundError:
            return None

    def _keep_links(self, before: Memory, linked: Memory) -> Memory:
        """Store the memory's new entity links (when linking changed them); the graph
        view is rebuilt on its next use."""
        if linked.entity_ids != before.entity_ids:
            self.store.update_memories([linked])
        self.drop_graph_index()
        return linked

    def capture(
        self,
        text: str,
        *,
        project: str | None = None,
        session_id: str | None = None,
        source: str = "capture",
        progress: CaptureProgress | None = None,
        said_at: datetime | None = None,
    ) -> CaptureReport:
        """Extract candidate memories from a conversation turn and write each one;
        `said_at`: when the turn was said, where that is known (a synced transcript)."""
        prepared = self.prepare_capture(
            text,
            project=project,
            session_id=session_id,
            source=source,
            progress=progress,
            said_at=said_at,
        )
        self.write_capture(prepared, progress=progress)
        return prepared.report()

    def prepare_capture(
        self,
        text: str,
        *,
        project: str | None = None,
        session_id: str | None = None,
        source: str = "capture",
        progress: CaptureProgress | None = None,
        said_at: datetime | None = None,
    ) -> PreparedTurn:
        """A turn's candidates, extracted without touching the store: the service
        extracts (and embeds) many turns outside its lock, then writes them in one go.
        The archive keeps the turn as said at `said_at` when given, else now."""
        if not text.strip():
            raise InvalidInputError("nothing to capture: the conversation text is empty")
        check_turn(text, self.settings.limits)
        text = self.privacy.clean(text)
        project = self.projects.resolve(project)
        prepared = self._capturer().prepare(
            text, project=project, session_id=session_id, source=source, progress=progress
        )
        if self.settings.archive.enabled:
            prepared.said = TurnToArchive(
                said_messages(text), project, session_id, source, said_at=said_at
            )
        return prepared

    def write_capture(
        self,
        prepared: PreparedTurn,
        *,
        vectors: Matrix | None = None,
        progress: CaptureProgress | None = None,
        enough: Callable[[], bool] = lambda: False,
    ) -> CaptureReport | None:
        """Write a prepared turn as the next turn of its session; `vectors`: the rows of
        `prepared.contents()` (embedded here when not given). `progress` records each
        candidate as written; a caller that makes a batch durable at once records the
        turn done instead, and a replay finds what a crash left stored. With `enough`,
        a long turn is written in parts: None until its last part is written."""
        if prepared.place is None:
            prepared.place = self._turn_of(prepared)
            if vectors is None:
                (vectors,) = turn_vectors([prepared], self.document_vectors, self.settings.parts)
            if prepared.said is not None:
                archive_turn(
                    self.store, prepared.said, self.clock(), self.embedder, self.settings.parts
                )
        if vectors is None and prepared.to_write():
            vectors = self.document_vectors(prepared.contents())
        return self._capturer().write(prepared, vectors=vectors, progress=progress, enough=enough)

    def _capturer(self) -> Capturer:
        return Capturer(self.settings, self.clock, self.llm, self._remember_candidate)

    def _turn_of(self, prepared: PreparedTurn) -> tuple[int | None, set[str]]:
        """The turn's position in its session (after the latest one stored, so its
        memories are indexed with the turn before them) and, for a replay whose turn a
        crash left partly stored, that turn's position and the contents already there."""
        if prepared.session_id is None:
            return None, set()
        latest = self.store.session_turn(prepared.session_id)
        if not latest or latest[0].turn is None:
            return 0, set()
        if prepared.replay:
            wanted = {prepared.candidates[i].content.strip() for i in prepared.to_write()}
            present = wanted & {m.content for m in latest}
            if present:
                return latest[0].turn, present
        return latest[0].turn + 1, set()

    def _remember_candidate(
        self, draft: MemoryDraft, candidate: Candidate, vector: Matrix | None
    ) -> WriteResult:
        """Write the draft, then link the memory that now holds it to its entities
        (a duplicate's existing memory gains the links: re-mentions add, never wipe)."""
        result = self.remember(draft, vector=vector)
        if not (candidate.entities or candidate.relations):
            return result
        linked = self.link(result.memory, candidate.entities, candidate.relations)
        return result.model_copy(update={"memory": linked})

    def link(
        self,
        memory: Memory,
        entities: list[CandidateEntity],
        relations: list[CandidateRelation],
    ) -> Memory:
        """Link a stored memory to the entities and relations found in it (re-mentions
        add, never wipe) and store its new links."""
        entities = [e for e in entities if not self.privacy.redact(e.name).changed]
        relations = [
            r
            for r in relations
            if not any(self.privacy.redact(t).changed for t in (r.subject, r.predicate, r.object))
        ]
        linked, _, _ = self.graph.link(memory, entities, relations)
        return self._keep_links(memory, linked)

    def materialise(self, draft: MemoryDraft) -> Memory:
        """A full `Memory` from a draft: defaults, classification, clock."""
        check_content(draft.content, self.settings.limits)
        redacted = self.privacy.redact(draft.content.strip())
        content = self.safe_content(draft.content, redacted)
        now = self.clock()
        created = draft.created_at or now
        scope = draft.scope or (Scope.PROJECT if draft.project else Scope.PERMANENT)
        self.check_scope(scope)
        ttl = draft.ttl_hours or (DEFAULT_TTL_HOURS if scope is Scope.TTL else None)
        return Memory(
            content=content,
            type=draft.type or classify(content),
            scope=scope,
            confidence=0.9 if draft.confidence is None else draft.confidence,
            tags=self.safe_tags(draft.tags, draft.content),
            project=self.projects.resolve(draft.project or None),
            session_id=draft.session_id,
            turn=draft.turn,
            speaker=self.privacy.clean(draft.speaker.strip()) or None if draft.speaker else None,
            said_in=draft.said_in,
            source=draft.source,
            author=self.writer,
            created_at=created,
            updated_at=created,
            last_accessed=draft.last_accessed,
            access_count=draft.access_count,
            reinforced_count=draft.reinforced_count,
            valid_from=draft.valid_from or created,
            episode_start=draft.episode_start,
            episode_end=draft.episode_end,
            ttl_hours=ttl,
            importance=0.5 if draft.importance is None else draft.importance,
            decisions=[redaction_decision(redacted, now)] if redacted.changed else [],
        )

    def update(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        type: MemoryType | None = None,
        scope: Scope | None = None,
        tags: list[str] | None = None,
        project: str | None = None,
        confidence: float | None = None,
        source: str = "update",
    ) -> Memory:
        """`source` names where the new version came from (file sync gives the line it
        read, so the next edit of that line finds this version)."""
        old = self.stored(memory_id)
        if not old.is_current:
            raise InvalidInputError(
                f"memory {old.short_id} is not the current version; update "
                f"{(old.superseded_by_id or '')[:8] or 'the current one'} instead"
            )
        if content is not None and not content.strip():
            raise InvalidInputError("new content is empty; give the new text")
        if content is not None:
            check_content(content, self.settings.limits)
        if scope is not None and (scope is Scope.TEAM) != (old.scope is Scope.TEAM):
            raise InvalidInputError(
                "a memory moves into or out of the team by being remembered there anew "
                "(`remember --scope team`) and forgotten here, not by an update"
            )
        # The new version is written anew, so through the privacy step whole: a store
        # written before secrets were kept out may hold one in what it copies.
        said = content if content is not None else old.content
        redacted = self.privacy.redact(said.strip())
        now = self.clock()
        new = old.model_copy(
            update={
                "id": new_id(),
                "content": self.safe_content(said, redacted),
                "type": type or old.type,
                "scope": scope or old.scope,
                "tags": self.safe_tags(old.tags if tags is None else tags, said),
                "project": self.projects.resolve(project) if project is not None else old.project,
                "confidence": old.confidence if confidence is None else confidence,
                "author": self.writer or old.author,
                "created_at": now,
                "updated_at": now,
                "valid_from": now,
                "valid_to": None,
                "supersedes_id": old.id,
                "superseded_by_id": None,
                "source": source,
                "decisions": (
                    with_decision(old.decisions, redaction_decision(redacted, now))
                    if redacted.changed
                    else old.decisions
                ),
            }
        )
        new = redact_memory(self.privacy, Memory.model_validate(new.model_dump()))
        retired = old.model_copy(
            update={"valid_to": now, "superseded_by_id": new.id, "updated_at": now}
        )
        # Journal, then the new version, then the old one's retirement: a crash between
        # the writes leaves two current versions (visible, fixable, undoable), never a
        # chain whose head is missing.
        journal.record(self.store, "update", now, before=[old], created=[new.id])
        self.insert([new])
        self.store.update_memories([retired])
        return new

    def forget(self, memory_id: str) -> Memory:
        memory = self.stored(memory_id)
        forgotten = memory.model_copy(
            update={"status": MemoryStatus.DELETED, "updated_at": self.clock()}
        )
        journal.record(self.store, "forget", self.clock(), before=[memory])
        self.store.update_memories([forgotten])
        return self.shown(forgotten)
