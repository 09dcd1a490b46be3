"""Bringing a backup back, never over a store before the restored one is complete.

The backup is read into a new store beside the one in use (`store.restore/` beside an
embedded store's folder; the free `{prefix}_reembed-*` slot of a Qdrant server) and
swapped in only once every point is written and every count checked: a damaged backup
or a crash halfway leaves the store in use as it was. The store being replaced is not
thrown away: when it opens, it is backed up first (reason "before restore"); when it is
too damaged to open, its folder is kept as `store.damaged-<time>/` for whoever wants to
look at it.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cortex_tui.config import Settings
from cortex_tui.errors import StoreDamagedError, StoreLockedError
from cortex_tui.maintenance.backup import (
    BackupInfo,
    Progress,
    default_target,
    prune_automatic,
    read_info,
    read_points,
    write_backup,
)
from cortex_tui.maintenance.reembed_sites import ServerSite, recover_interrupted, swap_folders
from cortex_tui.store.base import Store, StoredPoint
from cortex_tui.store.factory import open_store
from cortex_tui.store.lock import StoreLock

BATCH = 2048
BEFORE_RESTORE = "before restore"


@dataclass(frozen=True)
class Space:
    """The embedder a backup's vectors came from, as a store records it."""

    name: str
    dimension: int


@dataclass
class RestoreReport:
    backup: str
    info: BackupInfo
    seconds: float
    previous: str | None
    """Where the replaced store went: its backup, or its folder when it was damaged
    (None: there was no store)."""
    damaged: bool = False


def restore_backup(
    settings: Settings, path: Path, progress: Progress | None = None
) -> RestoreReport:
    """Replace the configured store with the backup at `path`. The caller makes sure no
    service holds the store."""
    started = time.perf_counter()
    info = read_info(path)
    space = Space(info.embedder, info.dimension)
    previous: str | None
    if settings.store.qdrant_url:
        previous, damaged = _restore_on_server(settings, path, space, progress), False
    else:
        previous, damaged = _restore_folder(settings, path, space, progress)
    seconds = round(time.perf_counter() - started, 3)
    return RestoreReport(str(path), info, seconds, previous, damaged)


def _restore_folder(
    settings: Settings, path: Path, space: Space, progress: Progress | None
) -> tuple[str | None, bool]:
    live = settings.store_path
    building = live.with_name(live.name + ".restore")
    recover_interrupted(live)
    if building.exists():  # what an interrupted restore left: start again
        shutil.rmtree(building)
    try:
        target = open_store(settings.store, building, space.name, space.dimension)
        try:
            _fill(target, path, progress)
        finally:
            target.close()
        return _swap_in(settings, live, building, space, path)
    finally:  # gone when swapped in; what a failure left is removed
        shutil.rmtree(building, ignore_errors=True)


def _swap_in(
    settings: Settings, live: Path, building: Path, space: Space, source: Path
) -> tuple[str | None, bool]:
    previous = _back_up_live(settings, live, space, source)
    if not live.exists():
        building.rename(live)
        return None, False
    # Edge writes by path, so the store in use is closed before its folder moves; its
    # lock is taken again for the swap (a service that started in between makes this
    # fail here, before anything moved).
    lock = StoreLock.acquire(live)
    try:
        if previous is not None:
            swap_folders(live, building)
            return previous, False
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        kept = live.with_name(f"{live.name}.damaged-{stamp}")
        swap_folders(live, building, keep_old_as=kept)
        return str(kept), True
    finally:
        lock.release()


def _restore_on_server(
    settings: Settings, path: Path, space: Space, progress: Progress | None
) -> str:
    site = ServerSite(settings)
    live = site.open_live(space)
    try:
        previous = _safety_backup(settings, live, path)
        target = site.open_empty(live, space)
    except BaseException:
        live.close()
        raise
    try:
        _fill(target, path, progress)
    except BaseException:
        target.close()
        live.close()
        raise
    site.switch(live, target)
    return previous


def _back_up_live(settings: Settings, live: Path, space: Space, source: Path) -> str | None:
    """The backup of the store in use; None when there is none or it is too damaged to
    open or read through (a store another process holds is an error: nothing has moved
    yet)."""
    if not live.exists():
        return None
    try:
        store = open_store(settings.store, live, space.name, space.dimension, check_embedder=False)
    except StoreLockedError:
        raise
    except Exception:
        return None
    try:
        return _safety_backup(settings, store, source)
    except StoreDamagedError:
        return None
    finally:
        store.close()


def _safety_backup(settings: Settings, store: Store, source: Path) -> str:
    """Back up the store being replaced; old automatic backups are pruned, never the
    one being restored."""
    now = datetime.now(UTC)
    folder = settings.backups_path
    report = write_backup(
        store, default_target(folder, now, BEFORE_RESTORE), reason=BEFORE_RESTORE, now=now
    )
    prune_automatic(folder, settings.backup.keep, spare=source)
    return report.path


def _fill(target: Store, path: Path, progress: Progress | None) -> None:
    batch: list[StoredPoint] = []
    current = ""
    for collection, point in read_points(path, progress):
        if batch and (collection != current or len(batch) == BATCH):
            target.put_points(current, batch)
            batch = []
        current = collection
        batch.append(point)
    if batch:
        target.put_points(current, batch)
