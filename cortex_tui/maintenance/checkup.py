"""`health --deep`: everything that keeps memory safe, checked, each warning with its fix.

- store: every point of every collection read back, so a damaged page shows here and
  not on the recall that happens to touch it (what the files promise is checked each
  time the store opens: `store/integrity.py`);
- spool: captures waiting longer than a service takes to drain them, lines that had to
  be quarantined;
- permissions: anything under the home that other users could read;
- backup: the newest one, read back whole (every member's CRC), and its age;
- privacy (`scrub.privacy_check`, which needs the engine): nothing in the store, its
  journal or its spool holds a secret (written before the privacy step, or by another
  tool).
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta
from pathlib import Path

from pydantic import BaseModel

from cortex_tui.config import Settings
from cortex_tui.errors import CortexError, StoreDamagedError
from cortex_tui.maintenance.backup import SUFFIX, read_info, read_points
from cortex_tui.private import open_to_others
from cortex_tui.spool.durable import Spool
from cortex_tui.store.base import COLLECTIONS, Store

STUCK_SPOOL = timedelta(minutes=10)
"""A capture waiting this long means nothing is draining the spool."""
STALE_BACKUP = timedelta(days=7)

log = logging.getLogger(__name__)


class Check(BaseModel):
    name: str
    ok: bool
    found: str
    fix: str | None = None


def checkup(store: Store, settings: Settings, now: datetime) -> list[Check]:
    return [
        _store(store),
        spool_check(settings.home / "spool", spool_state(settings.home / "spool", now)),
        _permissions(settings.home),
        _backup(settings.backups_path, now),
    ]


_REPAIR = (
    "`cortex-tui restore-backup FILE` (see `cortex-tui backup --list`), or `cortex-tui repair` "
    "to rebuild what is readable beside it"
)


def _store(store: Store) -> Check:
    counts = {}
    try:
        for collection in COLLECTIONS:
            counts[collection] = sum(1 for _ in store.points(collection))
    except StoreDamagedError as exc:
        return Check(name="store data", ok=False, found=f"damaged: {exc.what}", fix=_REPAIR)
    found = ", ".join(f"{count} {name}" for name, count in counts.items())
    return Check(name="store data", ok=True, found=f"every point readable: {found}")


class SpoolState(BaseModel):
    pending: int
    oldest: timedelta | None
    """How long the oldest waiting capture has waited."""
    quarantined: int


def spool_state(folder: Path, now: datetime) -> SpoolState:
    spool = Spool(folder, log)
    pending = spool.pending() if folder.is_dir() else []
    stamps = [float(e["at"]) for e in pending if isinstance(e.get("at"), int | float)]
    oldest = timedelta(seconds=max(0.0, now.timestamp() - min(stamps))) if stamps else None
    return SpoolState(pending=len(pending), oldest=oldest, quarantined=spool.quarantined())


def spool_check(folder: Path, state: SpoolState) -> Check:
    oldest, quarantined = state.oldest, state.quarantined
    found = f"{state.pending} captures waiting, {quarantined} lines quarantined"
    if oldest is not None:
        found += f", the oldest waiting {age_text(oldest)}"
    if oldest is not None and oldest > STUCK_SPOOL:
        fix = (
            "nothing is capturing them: `cortex-tui serve --status`, and see "
            "logs/service.log for why the service does not drain the spool"
        )
        return Check(name="spool", ok=False, found=found, fix=fix)
    if quarantined:
        fix = f"look at {folder / 'quarantine'}: lines there were unreadable and are not captured"
        return Check(name="spool", ok=False, found=found, fix=fix)
    return Check(name="spool", ok=True, found=found)


def _permissions(home: Path) -> Check:
    loose = open_to_others(home)
    if not loose:
        return Check(name="permissions", ok=True, found=f"nothing under {home} open to others")
    shown = ", ".join(str(p.relative_to(home)) for p in loose[:3])
    return Check(
        name="permissions",
        ok=False,
        found=f"{len(loose)} paths under {home} other users can read ({shown}...)",
        fix=f"chmod -R go-rwx {home} (any cortex-tui command that opens the store does it too)",
    )


def _backup(folder: Path, now: datetime) -> Check:
    """The newest backup file (by its time on disk, so one that no longer reads is still
    the one checked)."""
    files = list(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []
    if not files:
        return Check(
            name="backup", ok=False, found=f"no backup in {folder}", fix="`cortex-tui backup`"
        )
    newest = max(files, key=lambda path: path.stat().st_mtime)
    started = time.perf_counter()
    try:
        info = read_info(newest)
        points = sum(1 for _ in read_points(newest))
    except CortexError as exc:
        return Check(
            name="backup",
            ok=False,
            found=str(exc),
            fix="take a new one with `cortex-tui backup`, and keep the damaged one out of restores",
        )
    seconds = time.perf_counter() - started
    age = now - info.created_at
    summary = (
        f"newest {newest.name}: {points} points, all readable ({seconds:.1f} s), "
        f"{age_text(age)} old"
    )
    if age > STALE_BACKUP:
        return Check(name="backup", ok=False, found=summary, fix="`cortex-tui backup`")
    return Check(name="backup", ok=True, found=summary)


def age_text(delta: timedelta) -> str:
    seconds = delta.total_seconds()
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"
