"""`LocalUpkeep`: keeping the store well — health and vitals, the lifecycle rules,
backups, purge and import."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cortex_tui.archive.retention import messages_past_keeping, remove_messages
from cortex_tui.engine.core import WRITE_BATCH, EngineCore
from cortex_tui.engine.scrub import privacy_check
from cortex_tui.errors import InvalidInputError
from cortex_tui.lifecycle import LifecycleReport, run_lifecycle
from cortex_tui.maintenance.backup import (
    MANUAL,
    BackupReport,
    default_target,
    file_name,
    prune_automatic,
    write_backup,
)
from cortex_tui.maintenance.checkup import checkup
from cortex_tui.maintenance.transfer import parse_lines
from cortex_tui.maintenance.vitals import vitals
from cortex_tui.models import ImportReport, MemoryStatus
from cortex_tui.overview.models import Vitals
from cortex_tui.privacy.records import redact_entity, redact_memory, redact_relation
from cortex_tui.store.base import MemoryFilter


class LocalUpkeep:
    def __init__(self, core: EngineCore) -> None:
        self._core = core

    def health(self, *, deep: bool = False) -> dict[str, Any]:
        core = self._core
        probe = core.embedder.embed_query("health check")
        report: dict[str, Any] = {
            "ok": True,
            "store": core.store.location,
            "embedder": core.embedder.name,
            "dimension": int(probe.shape[0]),
            "memories": core.store.count_memories(MemoryFilter(current_only=False, statuses=None)),
            "notices": list(core.notices),
        }
        if deep:  # the wall clock: spool entries and backups carry real times
            checks = [*checkup(core.store, core.settings, datetime.now(UTC)), privacy_check(core)]
            report["checks"] = [check.model_dump() for check in checks]
            report["ok"] = all(check.ok for check in checks)
        return report

    def vitals(self) -> Vitals:
        core = self._core
        return vitals(core.settings, core.store, core.embedder.name, datetime.now(UTC))

    def lifecycle(self, *, dry_run: bool = False) -> LifecycleReport:
        """Consolidation and auto-resolution rewrite many memories at once, with only the
        journal to go back by: a backup is taken first."""
        core = self._core
        taken = None
        if not dry_run and core.settings.backup.before_lifecycle:
            taken = self._backup_for(None, "before lifecycle").path
        report = run_lifecycle(core.store, core.settings.lifecycle, core.clock(), dry_run=dry_run)
        if report.changed:
            core.drop_graph_index()
        past = messages_past_keeping(core.store, core.settings.archive, core.clock())
        if not dry_run:
            remove_messages(core.store, past)
        return report.model_copy(update={"backup": taken, "archive_removed": len(past)})

    def backup(self, path: str | None = None) -> BackupReport:
        return self._backup_for(path, MANUAL)

    def _backup_for(self, path: str | None, reason: str) -> BackupReport:
        """A backup taken for `reason` (an automatic one prunes the older automatic ones).
        Named and dated by the wall clock, not the engine's (which tests freeze): two
        backups never share a name."""
        settings = self._core.settings
        now = datetime.now(UTC)
        folder = settings.backups_path
        if path is None:
            target = default_target(folder, now, reason)
        else:
            target = Path(path).expanduser()
            if not target.is_absolute():
                raise InvalidInputError(f"backup path {path} is relative; give an absolute one")
            if target.is_dir():
                target = target / file_name(now, reason)
        report = write_backup(self._core.store, target, reason=reason, now=now)
        if reason != MANUAL:
            prune_automatic(folder, settings.backup.keep)
        return report

    def purge(self) -> int:
        store = self._core.store
        deleted = MemoryFilter(
            current_only=False, statuses=[MemoryStatus.DELETED, MemoryStatus.ARCHIVED]
        )
        ids = [m.id for m in store.iter_memories(deleted)]
        for start in range(0, len(ids), WRITE_BATCH):
            store.delete_memories(ids[start : start + WRITE_BATCH])
        return len(ids)

    def import_lines(self, lines: Iterable[str], *, skip_invalid: bool = False) -> ImportReport:
        """Validate everything, then write. Upserts by id, so re-running an import that
        was interrupted finishes it without duplicating anything."""
        core = self._core
        parsed = parse_lines(lines, skip_invalid=skip_invalid)
        now = core.clock()
        core.insert([redact_memory(core.privacy, m, now) for m in parsed.memories])
        core.insert_graph(
            [redact_entity(core.privacy, e) for e in parsed.entities],
            [redact_relation(core.privacy, r) for r in parsed.relations],
        )
        return ImportReport(
            memories=len(parsed.memories),
            entities=len(parsed.entities),
            relations=len(parsed.relations),
            skipped=parsed.skipped,
        )
