"""`scrub`: a store that already holds secrets — written before the privacy step, or by
another tool — made clean in place.

Every version of every memory (superseded and forgotten ones too), the turn archive's
messages, the journal's snapshots, entity names and aliases, relations, and the spool's
files pass through the same `Redactor` as the write path. A memory or an archived
message whose text changed is embedded and indexed again, so neither its vector nor its
lexical terms keep the value. An embedded store keeps the payloads a write replaced in
its segment pages and write-ahead log, so the scrubbed store is then copied into a fresh
folder that takes the old one's place, and the old one is removed (`rebuild`); a Qdrant
server compacts its own files. The scrub is journalled by its counts only: undoing it
restores nothing (the values are gone, which is the point). Backups made before it may
hold the values still; they are listed so the person can delete them — a backup is
never changed behind its owner's back.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from pydantic import BaseModel, Field

from cortex_tui.curation import journal
from cortex_tui.engine.core import EngineCore
from cortex_tui.errors import CortexError
from cortex_tui.maintenance.backup import list_backups
from cortex_tui.maintenance.checkup import Check
from cortex_tui.maintenance.reembed_sites import recover_interrupted, swap_folders
from cortex_tui.privacy.records import (
    redact_entity,
    redact_memory,
    redact_relation,
    redact_strings,
)
from cortex_tui.privacy.redactor import WithKnownValues
from cortex_tui.spool.durable import Spool
from cortex_tui.store.base import COLLECTIONS, MemoryFilter, StoredPoint
from cortex_tui.store.factory import open_store
from cortex_tui.store.lock import StoreLock
from cortex_tui.write.neighbours import NeighbourIndex
from cortex_tui.write.parts import part_vectors

JOURNAL = "journal"

log = logging.getLogger(__name__)

KeptElsewhere = Callable[[Callable[[str], str], bool], int]
"""Texts kept outside the store and the spool (the hooks' session state, file sync's
state): passes each through the function given, writes the ones it changed when told
to, and says how many files it changed (or would)."""


class ScrubReport(BaseModel):
    dry_run: bool
    memories: int = Field(description="memory versions holding a secret")
    archived: int = Field(default=0, description="messages of the turn archive holding one")
    secrets: dict[str, int] = Field(description="secrets found in memories, by kind")
    journal_entries: int
    entities: int
    relations: int
    spool_files: list[str] = Field(default_factory=list)
    elsewhere: dict[str, int] = Field(
        default_factory=dict, description="files kept beside the store holding one, by kind"
    )
    backups_before: list[str] = Field(
        default_factory=list, description="backups made before the scrub: they may hold them"
    )
    rebuilt: bool = Field(
        default=False, description="the embedded store was copied afresh, its old files removed"
    )

    @property
    def found(self) -> bool:
        return bool(
            self.memories
            or self.archived
            or self.journal_entries
            or self.entities
            or self.relations
            or self.spool_files
            or any(self.elsewhere.values())
        )

    def describe(self) -> str:
        verb = "would redact" if self.dry_run else "redacted"
        if not self.found:
            lines = ["no secret found in the store, its journal or its spool"]
        else:
            kinds = ", ".join(f"{kind} ×{n}" for kind, n in sorted(self.secrets.items()))
            lines = [
                f"{verb}: {self.memories} memory version(s)"
                + (f" ({kinds})" if kinds else "")
                + f", {self.archived} archived message(s)"
                + f", {self.journal_entries} journal entr(ies), {self.entities} entit(ies), "
                f"{self.relations} relation(s), {len(self.spool_files)} spool file(s)"
                + "".join(f", {n} {kind}" for kind, n in self.elsewhere.items() if n)
            ]
        if self.rebuilt:
            lines.append("the store was copied into fresh files and its old ones removed")
        if self.backups_before:
            lines.append(
                f"{len(self.backups_before)} backup(s) made before this may hold secrets; "
                "delete the ones you do not need:"
            )
            lines += [f"  {path}" for path in self.backups_before]
        return "\n".join(lines)


def scrub(
    engine: EngineCore,
    *,
    dry_run: bool,
    elsewhere: Mapping[str, KeptElsewhere] | None = None,
) -> ScrubReport:
    """Find (and unless `dry_run`, redact) every secret the store and its spool hold.

    Two passes: the first finds each secret's value wherever a detector knows it; the
    second redacts with those values known too, so a text derived from a secret in a
    form no detector recognises (a judge's reason quoting a URL's words) loses it all
    the same."""
    store = engine.store
    now = engine.clock()
    spool = Spool(engine.settings.home / "spool", log)
    everything = MemoryFilter(current_only=False, statuses=None)
    stored = list(store.iter_memories(everything))
    archived = list(store.archive.iter_memories(everything))
    known: dict[str, str] = {}

    def collect(text: str) -> str:
        """Learns each value a detector knows in `text`; `text` as it was."""
        for secret, kind in engine.privacy.secrets_in(text):
            known.setdefault(secret, kind)
        return text

    for memory in [*stored, *archived]:
        redact_strings(memory.model_dump(mode="json"), collect)
    for entity in store.all_entities():
        redact_strings(entity.model_dump(mode="json"), collect)
    for point in store.points(JOURNAL):
        redact_strings(point.payload, collect)
    spool.rewrite(lambda line: _redact_line(line, collect), write=False)
    for keeper in (elsewhere or {}).values():
        keeper(collect, False)
    privacy = WithKnownValues(engine.settings.privacy, known)

    secrets: Counter[str] = Counter()
    memories = []
    for memory in stored:
        cleaned = redact_memory(privacy, memory, now)
        if cleaned is not memory:
            memories.append(cleaned)
            secrets.update(privacy.redact(memory.content).kinds)
    messages = [c for r in archived if (c := redact_memory(privacy, r, now)) is not r]
    entities = [e for e in store.all_entities() if redact_entity(privacy, e) is not e]
    relations = [r for r in store.all_relations() if redact_relation(privacy, r) is not r]
    entries = _journal_points(store.points(JOURNAL), privacy.clean)
    report = ScrubReport(
        dry_run=dry_run,
        memories=len(memories),
        archived=len(messages),
        secrets=dict(secrets),
        journal_entries=len(entries),
        entities=len(entities),
        relations=len(relations),
        backups_before=[str(path) for path, _ in list_backups(engine.settings.backups_path)],
    )
    report.spool_files = spool.rewrite(lambda line: _redact_line(line, privacy.clean), write=False)
    report.elsewhere = {
        kind: keeper(privacy.clean, False) for kind, keeper in (elsewhere or {}).items()
    }
    if dry_run or not report.found:
        return report
    journal.record(store, "scrub", now, note=_note(report))
    engine.insert(memories)
    if memories:  # a neighbour's index context may quote a scrubbed memory's old text
        NeighbourIndex(store, engine.settings.context).rebuild()
    if messages:  # embedded again: neither vector nor terms may keep the value
        vectors = engine.embedder.embed([m.content for m in messages])
        parts = part_vectors(engine.embedder, messages, engine.settings.parts)
        store.archive.upsert_memories(messages, list(vectors), parts=parts)
    if entities:
        cleaned_entities = [redact_entity(privacy, e) for e in entities]
        names = engine.embedder.embed([e.name for e in cleaned_entities])
        store.upsert_entities(cleaned_entities, list(names))
    if relations:
        store.upsert_relations([redact_relation(privacy, r) for r in relations])
    if entries:
        store.put_points(JOURNAL, entries)
    spool.rewrite(lambda line: _redact_line(line, privacy.clean))
    for keeper in (elsewhere or {}).values():
        keeper(privacy.clean, True)
    engine.graph.entities_changed()
    return report


def privacy_check(engine: EngineCore) -> Check:
    """`health --deep`'s privacy line: what a dry run of `scrub` finds, read as it would
    read it (every version, decision, entity, journal entry and spooled turn)."""
    if not engine.settings.privacy.detect_secrets:
        found = "secret detection is off ([privacy] detect_secrets = false)"
        return Check(name="privacy", ok=True, found=found)
    try:
        report = scrub(engine, dry_run=True)
    except CortexError:  # damage: the store check says what and how to fix it
        return Check(name="privacy", ok=True, found="not checked: the store could not be read")
    if not report.found:
        return Check(name="privacy", ok=True, found="no secret in the store, its journal or spool")
    return Check(
        name="privacy",
        ok=False,
        found=report.describe().splitlines()[0].replace("would redact", "secrets held in"),
        fix="`cortex-tui scrub` redacts them in place (`--dry-run` first to see what)",
    )


REBUILD_BATCH = 2048


def rebuild(engine: EngineCore) -> bool:
    """Copy an embedded store's points into a fresh folder and put it in the store's
    place, removing the old folder with every payload version its files still held;
    closes `engine` (whose store it replaces). False for a Qdrant server, which is left
    as it is. A crash midway leaves the store in use as it was (`recover_interrupted`)."""
    settings = engine.settings
    if settings.store.qdrant_url:
        engine.close()
        return False
    live = settings.store_path
    building = live.with_name(live.name + ".scrub")
    if building.exists():  # what an interrupted rebuild left: start again
        shutil.rmtree(building)
    meta = engine.store.meta
    try:
        target = open_store(settings.store, building, meta.embedder, meta.dimension)
        try:
            for collection in COLLECTIONS:
                batch: list[StoredPoint] = []
                for point in engine.store.points(collection):
                    batch.append(point)
                    if len(batch) == REBUILD_BATCH:
                        target.put_points(collection, batch)
                        batch = []
                if batch:
                    target.put_points(collection, batch)
        finally:
            target.close()
        engine.close()
        recover_interrupted(live)
        lock = StoreLock.acquire(live)
        try:
            swap_folders(live, building)
        finally:
            lock.release()
    finally:
        engine.close()
        shutil.rmtree(building, ignore_errors=True)
    return True


def _journal_points(
    points: Iterable[StoredPoint], clean: Callable[[str], str]
) -> list[StoredPoint]:
    """The journal's entries whose snapshots hold a secret, redacted (as points, so each
    keeps its place in the journal's order)."""
    changed = []
    for point in points:
        payload = redact_strings(point.payload, clean)
        if payload != point.payload:
            changed.append(StoredPoint(payload=payload, vectors=point.vectors))
    return changed


def _redact_line(line: bytes, clean: Callable[[str], str]) -> bytes:
    """One spool line redacted field by field (a line that is not JSON, cut short by a
    crash, as text)."""
    try:
        record = json.loads(line)
    except ValueError:
        return clean(line.decode("utf-8", errors="replace")).encode("utf-8")
    redacted = redact_strings(record, clean)
    if redacted == record:
        return line
    return json.dumps(redacted, ensure_ascii=False).encode("utf-8")


def _note(report: ScrubReport) -> str:
    kinds = ", ".join(sorted(report.secrets)) or "none in memories"
    return (
        f"redacted secrets ({kinds}) in {report.memories} memory version(s), "
        f"{report.journal_entries} journal entr(ies), {report.entities} entit(ies); "
        "undo restores nothing: the values are gone"
    )
