"""`LocalEngine`: the engine running in the calling process, owning a store and an embedder.

Nothing it does destroys information: an update writes a new version and closes the old
one's validity; forgetting marks a memory deleted; only `purge` removes data.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import numpy as np

from cortex_tui.classify import classify
from cortex_tui.clock import Clock, system_clock
from cortex_tui.config import RecallWeights, Settings, save_setting
from cortex_tui.curation import journal
from cortex_tui.curation.groups import ConflictGroup, Curator
from cortex_tui.curation.projects import ProjectNames
from cortex_tui.curation.versions import version_chain
from cortex_tui.embed.base import Embedder, Matrix
from cortex_tui.engine import turn_judgements
from cortex_tui.engine.limits import check_content, check_query, check_turn
from cortex_tui.engine.protocol import MAX_DAYS
from cortex_tui.errors import AmbiguousIdError, InvalidInputError, NotFoundError
from cortex_tui.given.judgements import Judgement, JudgementLog
from cortex_tui.given.log import GivenLog
from cortex_tui.given.record import GivenRecord, Verdict, redacted
from cortex_tui.given.segments import FOLDER
from cortex_tui.given.usefulness import Unhelpful, unhelpful
from cortex_tui.graph.index import GraphIndex
from cortex_tui.graph.service import GraphService
from cortex_tui.lifecycle import LifecycleReport, run_lifecycle
from cortex_tui.llm.base import LLMClient
from cortex_tui.llm.factory import make_llm
from cortex_tui.maintenance.backup import (
    MANUAL,
    BackupReport,
    default_target,
    file_name,
    prune_automatic,
    write_backup,
)
from cortex_tui.maintenance.checkup import checkup
from cortex_tui.maintenance.transfer import dump_line, header_line, parse_lines
from cortex_tui.maintenance.vitals import vitals
from cortex_tui.models import (
    Candidate,
    CandidateEntity,
    CandidateRelation,
    Entity,
    Explanation,
    ImportReport,
    Memory,
    MemoryDraft,
    MemoryPage,
    MemoryStatus,
    MemoryType,
    RecallResponse,
    Relation,
    Scope,
    Stats,
    WriteResult,
    new_id,
    with_decision,
)
from cortex_tui.overview.counts import activity, store_stats
from cortex_tui.overview.models import DayMemories, MemoryMap, Timeline, Vitals, WordCloud
from cortex_tui.overview.reader import Overview
from cortex_tui.privacy.records import (
    clean_tags,
    redact_entity,
    redact_memory,
    redact_relation,
    redaction_decision,
)
from cortex_tui.privacy.redactor import Redacted, Redactor
from cortex_tui.recall.gate_calibration import CosineScale, cosine_scale
from cortex_tui.recall.pipeline import Recaller
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import JournalEntry, MemoryFilter, Parts, Store, Vector
from cortex_tui.write.judge.decision import write_judge
from cortex_tui.write.neighbours import NeighbourIndex
from cortex_tui.write.parts import part_texts, part_vectors
from cortex_tui.write.path import WritePath
from cortex_tui.write.turn_capture import CaptureProgress, Capturer, CaptureReport, PreparedTurn

log = logging.getLogger(__name__)

DEFAULT_TTL_HOURS = 720.0
WRITE_BATCH = 256
MAX_SPEAKERS = 256
"""Speakers a query can name, the most frequent first: people in conversations, a few
roles in agent sessions; past this many, the rarest go unrecognised."""


class LocalEngine:
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
        self._cosine_scale: CosineScale | None = None
        self._recaller = Recaller(
            store,
            embedder,
            settings.recall,
            clock,
            self.graph_index,
            self.weights,
            self.llm,
            shown=self._shown,
            part_texts=lambda content: part_texts(content, settings.parts),
            scale=self.cosine_scale,
        )
        self._neighbours = NeighbourIndex(store, settings.context)
        self._write_path = WritePath(
            store, settings, clock, self._write, write_judge(settings, self.llm)
        )
        self.curator = Curator(store, clock, self._write)
        self.graph = GraphService(
            store,
            embedder,
            settings.graph,
            clock,
            on_change=self._drop_graph_index,
            privacy=self.privacy,
        )
        self._overview = Overview(store, embedder, clock)
        self.given_log = GivenLog(settings.home / FOLDER, settings.injections, clock)
        """What memory gave each agent turn (`given/log.py`)."""
        self.judgement_log = JudgementLog(settings.home / FOLDER / "judgements.jsonl")
        """A person's judgements of what the turns were given."""
        self.projects = ProjectNames(store)
        """Project names as people give them (`api`) to the keys memories are filed
        under (`github.com/acme/api`)."""
        self.between_batches: Callable[[], None] = lambda: None
        """Called between the batches of a long write (an import): the service lets a
        waiting reader in there, so no request holds its engine for a whole import."""

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

    def now(self) -> datetime:
        return self.clock()

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

    def _drop_graph_index(self) -> None:
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
        return self._recaller.explain(self._in_project(request), self._stored(memory_id))

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
        return self._shown(self._stored(memory_id))

    def _stored(self, memory_id: str) -> Memory:
        """The memory as the store holds it: what a write starts from (a version it
        retires must match the stored one; `get` is what a surface shows)."""
        full_id = self.resolve_id(memory_id)
        found = self.store.get_memories([full_id])
        if not found:
            raise NotFoundError(f"no memory with id {memory_id}; list ids with `cortex-tui list`")
        return found[0]

    def _shown(self, memory: Memory) -> Memory:
        """The read guard: a memory as every surface shows it, with no secret even when
        the store holds one (written by an older version or another tool; `scrub`
        cleans the store itself)."""
        return redact_memory(self.privacy, memory)

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

    def list_memories(
        self, filter: MemoryFilter, limit: int = 50, offset: str | None = None
    ) -> MemoryPage:
        project = self.projects.resolve(filter.project)
        if project != filter.project:
            filter = filter.model_copy(update={"project": project})
        memories, next_offset = self.store.scroll_memories(filter, limit, offset)
        return MemoryPage(
            memories=[self._shown(m) for m in memories],
            next_offset=next_offset,
            total=self.store.count_memories(filter),
        )

    def given(
        self,
        session: str | None = None,
        agent: str | None = None,
        limit: int = 50,
        before: datetime | None = None,
    ) -> list[GivenRecord]:
        records = self.given_log.newest(session=session, agent=agent, limit=limit, before=before)
        return turn_judgements.judged_records(self, records)

    def unhelpful_memories(self, min_given: int = 3) -> list[Unhelpful]:
        records = self.given_log.newest(limit=sys.maxsize)
        return unhelpful(records, self.judgement_log.standing(), min_given)

    def judge_turn(self, injection_id: str, memory_id: str, verdict: Verdict) -> Judgement:
        return turn_judgements.judge_turn(self, injection_id, memory_id, verdict)

    def withdraw_judgement(self, judgement_id: str) -> Judgement:
        return turn_judgements.withdraw_judgement(self, judgement_id)

    def record_given(self, record: GivenRecord) -> None:
        """The privacy step's guard first: a memory written before a secret's kind was
        known, or a prompt pasted with a key in it, is kept with a placeholder."""
        self.given_log.append(redacted(record, self.privacy.clean))

    def history(self, memory_id: str) -> list[Memory]:
        """The version chain containing `memory_id`, oldest first."""
        return [self._shown(m) for m in self._chain(memory_id)]

    def _chain(self, memory_id: str) -> list[Memory]:
        return version_chain(self.store, self._stored(memory_id))

    def stats(self) -> Stats:
        return store_stats(self.store)

    def activity(self, days: int = 30) -> dict[str, int]:
        if not 1 <= days <= MAX_DAYS:
            raise InvalidInputError(f"days must be between 1 and {MAX_DAYS}, got {days}")
        return activity(self.store, self.clock(), days)

    def memory_map(
        self,
        *,
        superseded: bool = False,
        query: str | None = None,
        top_k: int = 10,
        refit: bool = False,
    ) -> MemoryMap:
        if query is not None:
            check_query(query, self.settings.limits)
        return self._overview.memory_map(
            self.recall, superseded=superseded, query=query, top_k=top_k, refit=refit
        )

    def word_cloud(
        self, *, project: str | None = None, type: MemoryType | None = None, limit: int = 60
    ) -> WordCloud:
        cloud = self._overview.word_cloud(
            project=self.projects.resolve(project), type=type, limit=limit
        )
        shown = [t for t in cloud.terms if not self.privacy.redact(t.term).changed]
        if len(shown) == len(cloud.terms):
            return cloud
        return cloud.model_copy(update={"terms": shown})

    def timeline(self, days: int = 90) -> Timeline:
        if not 1 <= days <= MAX_DAYS:
            raise InvalidInputError(f"days must be between 1 and {MAX_DAYS}, got {days}")
        return self._overview.timeline(days)

    def day(self, day: date, limit: int = 200) -> DayMemories:
        found = self._overview.day(day, limit)
        return found.model_copy(
            update={
                "created": [self._shown(m) for m in found.created],
                "superseded": [self._shown(m) for m in found.superseded],
            }
        )

    def vitals(self) -> Vitals:
        return vitals(self.settings, self.store, self.embedder.name, datetime.now(UTC))

    def lifecycle(self, *, dry_run: bool = False) -> LifecycleReport:
        """Consolidation and auto-resolution rewrite many memories at once, with only the
        journal to go back by: a backup is taken first."""
        taken = None
        if not dry_run and self.settings.backup.before_lifecycle:
            taken = self._backup(None, "before lifecycle").path
        report = run_lifecycle(self.store, self.settings.lifecycle, self.clock(), dry_run=dry_run)
        if report.changed:
            self._graph = None
        return report.model_copy(update={"backup": taken})

    def backup(self, path: str | None = None) -> BackupReport:
        return self._backup(path, MANUAL)

    def _backup(self, path: str | None, reason: str) -> BackupReport:
        """Named and dated by the wall clock, not the engine's (which tests freeze): two
        backups never share a name."""
        now = datetime.now(UTC)
        folder = self.settings.backups_path
        if path is None:
            target = default_target(folder, now, reason)
        else:
            target = Path(path).expanduser()
            if not target.is_absolute():
                raise InvalidInputError(f"backup path {path} is relative; give an absolute one")
            if target.is_dir():
                target = target / file_name(now, reason)
        report = write_backup(self.store, target, reason=reason, now=now)
        if reason != MANUAL:
            prune_automatic(folder, self.settings.backup.keep)
        return report

    def health(self, *, deep: bool = False) -> dict[str, Any]:
        probe = self.embedder.embed_query("health check")
        report: dict[str, Any] = {
            "ok": True,
            "store": self.store.location,
            "embedder": self.embedder.name,
            "dimension": int(probe.shape[0]),
            "memories": self.store.count_memories(MemoryFilter(current_only=False, statuses=None)),
            "notices": list(self.notices),
        }
        if deep:  # the wall clock: spool entries and backups carry real times
            from cortex_tui.engine.scrub import privacy_check  # it reads through this engine

            checks = [*checkup(self.store, self.settings, datetime.now(UTC)), privacy_check(self)]
            report["checks"] = [check.model_dump() for check in checks]
            report["ok"] = all(check.ok for check in checks)
        return report

    def export(self) -> Iterator[str]:
        yield header_line()
        everything = MemoryFilter(current_only=False, statuses=None)
        # through the read guard: an export of a store written before secrets were kept
        # out carries none of them on (`scrub` cleans the store itself)
        for memory in self.store.iter_memories(everything):
            yield dump_line(self._shown(memory))
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
            vector = self._document_vector(memory.content)
        result = self._write_path.write(memory, vector, corrects=draft.corrects)
        if result.renamed:
            linked = self._link_rename(result.memory, *result.renamed)
            result = result.model_copy(update={"memory": linked})
        return result

    def _document_vector(self, content: str) -> Matrix:
        """A memory's vector as `insert` and `reembed` make it: a model with a document
        prompt (e5's "passage: ") embeds memories with it, queries with the query one."""
        vector: Matrix = self.document_vectors([content])[0]
        return vector

    def document_vectors(self, contents: Sequence[str]) -> Matrix:
        """Vectors of memory contents in one model call (one row each, as stored:
        stripped); a batch costs a fraction of one call per text."""
        return self.embedder.embed([content.strip() for content in contents])

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
        self._graph = None
        return linked

    def capture(
        self,
        text: str,
        *,
        project: str | None = None,
        session_id: str | None = None,
        source: str = "capture",
        progress: CaptureProgress | None = None,
    ) -> CaptureReport:
        """Extract candidate memories from a conversation turn and write each one."""
        prepared = self.prepare_capture(
            text, project=project, session_id=session_id, source=source, progress=progress
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
    ) -> PreparedTurn:
        """A turn's candidates, extracted without touching the store: the service
        extracts (and embeds) many turns outside its lock, then writes them in one go."""
        if not text.strip():
            raise InvalidInputError("nothing to capture: the conversation text is empty")
        check_turn(text, self.settings.limits)
        text = self.privacy.clean(text)
        return self._capturer().prepare(
            text,
            project=self.projects.resolve(project),
            session_id=session_id,
            source=source,
            progress=progress,
        )

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

    def conflicts(self) -> list[ConflictGroup]:
        return [
            group.model_copy(update={"members": [self._shown(m) for m in group.members]})
            for group in self.curator.conflicts()
        ]

    def resolve(self, group_id: str, keep_id: str) -> Memory:
        return self._shown(self.curator.resolve(group_id, keep_id))

    def merge(self, group_id: str, content: str) -> Memory:
        check_content(content, self.settings.limits)
        content = self._safe_content(content)
        return self.curator.merge(
            group_id, content, self._document_vector(content), author=self.writer
        )

    def dismiss(self, group_id: str) -> list[Memory]:
        return [self._shown(m) for m in self.curator.dismiss(group_id)]

    def restore(self, memory_id: str) -> Memory:
        old = self._stored(memory_id)
        current = self._chain(old.id)[-1]
        if not current.is_current:
            raise InvalidInputError(
                f"the newest version of {old.short_id}'s chain is not current "
                f"({current.status.value}); restore needs a current version to supersede"
            )
        # the version made current again is written anew: through the privacy step
        safe = redact_memory(self.privacy, old, self.clock())
        return self.curator.restore(safe, current, self._document_vector(safe.content))

    def undo(self, count: int = 1) -> list[JournalEntry]:
        return journal.undo(self.store, self.clock(), count, graph=self.graph)

    def materialise(self, draft: MemoryDraft) -> Memory:
        """A full `Memory` from a draft: defaults, classification, clock."""
        check_content(draft.content, self.settings.limits)
        redacted = self.privacy.redact(draft.content.strip())
        content = self._safe_content(draft.content, redacted)
        now = self.clock()
        created = draft.created_at or now
        scope = draft.scope or (Scope.PROJECT if draft.project else Scope.PERMANENT)
        self._check_scope(scope)
        ttl = draft.ttl_hours or (DEFAULT_TTL_HOURS if scope is Scope.TTL else None)
        return Memory(
            content=content,
            type=draft.type or classify(content),
            scope=scope,
            confidence=0.9 if draft.confidence is None else draft.confidence,
            tags=self._safe_tags(draft.tags, draft.content),
            project=self.projects.resolve(draft.project or None),
            session_id=draft.session_id,
            turn=draft.turn,
            speaker=self.privacy.clean(draft.speaker.strip()) or None if draft.speaker else None,
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

    def _check_scope(self, scope: Scope) -> None:
        if scope is Scope.TEAM and not self.shared:
            raise InvalidInputError(
                "scope team is shared with a team on a team server; this store is not one "
                "(ask the server's admin: `cortex-tui tenant team NAME TEAM`)"
            )

    def _safe_tags(self, tags: Iterable[str], content: str) -> list[str]:
        """Tags as stored: none that holds a secret, nor a piece of one the content
        holds (a bare piece of a key says nothing a detector could know it by). Checked
        as given, before tags are folded to lower case (`AKIA…` is a key; `akia…` no
        longer looks like one)."""
        kept = _clean_tags(clean_tags(self.privacy, list(tags)))
        if not kept:
            return []
        values = [value.casefold() for value, _ in self.privacy.secrets_in(content)]
        return [tag for tag in kept if not any(tag in value or value in tag for value in values)]

    def _safe_content(self, content: str, redacted: Redacted | None = None) -> str:
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
            self._write(batch, list(rows), given)

    def _write(
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
        old = self._stored(memory_id)
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
                "content": self._safe_content(said, redacted),
                "type": type or old.type,
                "scope": scope or old.scope,
                "tags": self._safe_tags(old.tags if tags is None else tags, said),
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
        memory = self._stored(memory_id)
        forgotten = memory.model_copy(
            update={"status": MemoryStatus.DELETED, "updated_at": self.clock()}
        )
        journal.record(self.store, "forget", self.clock(), before=[memory])
        self.store.update_memories([forgotten])
        return self._shown(forgotten)

    def purge(self) -> int:
        deleted = MemoryFilter(
            current_only=False, statuses=[MemoryStatus.DELETED, MemoryStatus.ARCHIVED]
        )
        ids = [m.id for m in self.store.iter_memories(deleted)]
        for start in range(0, len(ids), WRITE_BATCH):
            self.store.delete_memories(ids[start : start + WRITE_BATCH])
        return len(ids)

    def import_lines(self, lines: Iterable[str], *, skip_invalid: bool = False) -> ImportReport:
        """Validate everything, then write. Upserts by id, so re-running an import that
        was interrupted finishes it without duplicating anything."""
        parsed = parse_lines(lines, skip_invalid=skip_invalid)
        now = self.clock()
        self.insert([redact_memory(self.privacy, m, now) for m in parsed.memories])
        self.insert_graph(
            [redact_entity(self.privacy, e) for e in parsed.entities],
            [redact_relation(self.privacy, r) for r in parsed.relations],
        )
        return ImportReport(
            memories=len(parsed.memories),
            entities=len(parsed.entities),
            relations=len(parsed.relations),
            skipped=parsed.skipped,
        )

    def touch(self, memory_ids: Sequence[str]) -> None:
        """Count a read of these memories (access count and time feed the frequency and
        recency priors). A recall does it itself unless told not to; the service does it
        for a pre hook after answering, so the agent does not wait for the write. Read
        afresh: a write since the recall must not be undone by an older copy."""
        self._touch(self.store.get_memories(list(memory_ids)))

    def _touch(self, memories: Sequence[Memory]) -> None:
        now = self.clock()
        touched = [
            m.model_copy(update={"last_accessed": now, "access_count": m.access_count + 1})
            for m in memories
        ]
        self.store.update_memories(touched, durable=False)

    def close(self) -> None:
        self.store.close()


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


def _clean_tags(tags: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for tag in tags:
        cleaned = tag.strip().casefold()
        if cleaned:
            seen.setdefault(cleaned, None)
    return list(seen)
