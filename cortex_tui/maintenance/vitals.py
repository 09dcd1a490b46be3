"""Health at a glance: what the Health pane shows, each concern with the action that fixes it.

Cheap enough to ask every few seconds: counts, the spool's entries, the hook log of
the last day and a walk of the store's folder; none of the deep check's reading back
of every point (`checkup.py`, `cortex-tui health --deep`). Times are the wall clock's:
spool entries and log lines carry real times, whatever clock the engine runs on.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from cortex_tui.config import Settings
from cortex_tui.maintenance.checkup import spool_check, spool_state
from cortex_tui.overview.hook_log import first_stamp, hook_figures
from cortex_tui.overview.models import Concern, HookFigures, Vitals
from cortex_tui.overview.timeline import CAPTURE_SOURCES
from cortex_tui.store.base import MemoryFilter, Store

HOOK_WINDOW = timedelta(days=1)
SLOW_SHARE = 0.5
"""A hook whose p95 passes this share of its time limit is about to give up on turns."""
HOOK_LOGS = ("hooks.log", "hooks.log.1", "hooks.log.2", "hooks.log.3")


def vitals(settings: Settings, store: Store, embedder: str, now: datetime) -> Vitals:
    """`now` is the wall clock (timezone-aware)."""
    spool_folder = settings.home / "spool"
    spool = spool_state(spool_folder, now)
    newest = store.newest_memory(
        MemoryFilter(current_only=False, statuses=None, sources=sorted(CAPTURE_SOURCES))
    )
    since = _local_naive(now - HOOK_WINDOW)
    hooks = hook_figures(_hook_log_lines(settings.home / "logs", since), since)
    concerns = []
    spool_health = spool_check(spool_folder, spool)
    if not spool_health.ok and spool_health.fix:
        concerns.append(Concern(found=spool_health.found, fix=spool_health.fix))
    concerns += _hook_concerns(hooks, settings)
    return Vitals(
        store=store.location,
        store_bytes=_folder_bytes(Path(store.location)),
        memories=store.count_memories(MemoryFilter(current_only=False, statuses=None)),
        spool_pending=spool.pending,
        spool_oldest_s=spool.oldest.total_seconds() if spool.oldest else None,
        spool_quarantined=spool.quarantined,
        spool_ok=spool_health.ok,
        last_capture=newest.created_at if newest else None,
        hooks=hooks,
        embedder=embedder,
        llm=_llm(settings),
        concerns=concerns,
    )


def _hook_concerns(hooks: list[HookFigures], settings: Settings) -> list[Concern]:
    concerns = []
    limits = {"pre": settings.hooks.pre_timeout, "post": settings.hooks.post_timeout}
    for figures in hooks:
        if figures.failures:
            concerns.append(
                Concern(
                    found=f"{figures.failures} of {figures.runs} {figures.kind} hooks failed in "
                    f"the last day (last {figures.last_failure})",
                    fix=f"read {settings.home / 'logs' / 'hooks.log'}; `cortex-tui --hook "
                    f"{figures.kind} --strict < event.json` shows the whole error",
                )
            )
        limit_ms = limits[figures.kind] * 1000
        if figures.p95_ms is not None and figures.p95_ms > SLOW_SHARE * limit_ms:
            concerns.append(
                Concern(
                    found=f"{figures.kind} hooks take {figures.p95_ms:.0f} ms at p95, over half "
                    f"their limit (hooks.{figures.kind}_timeout = {limits[figures.kind]:g} s)",
                    fix="keep the service running (`cortex-tui serve --status`), or raise "
                    f"hooks.{figures.kind}_timeout in config.toml",
                )
            )
    return concerns


def _hook_log_lines(folder: Path, since: datetime) -> list[str]:
    """The current log and as many rotated copies as reach back to `since`, oldest
    first: the pane asks every few seconds, and a busy day fits in the current file."""
    lines: list[str] = []
    for name in HOOK_LOGS:
        try:
            older = (folder / name).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        lines = older + lines
        started = first_stamp(older)
        if started is not None and started <= since:
            break
    return lines


def _local_naive(moment: datetime) -> datetime:
    """As the hook log writes times: local, without a zone."""
    return moment.astimezone().replace(tzinfo=None)


def _folder_bytes(folder: Path) -> int:
    """Disk space used under `folder` (0 for a store that is not a folder here: a Qdrant
    server). Blocks, not sizes: the store's files are sparse, with hundreds of megabytes
    reserved and never written."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue
    return total


def _llm(settings: Settings) -> str:
    llm = settings.llm
    if llm.provider == "none":
        return "none"
    return f"{llm.provider} ({llm.model})" if llm.model else llm.provider


def service_concerns(status: dict[str, Any] | None) -> list[Concern]:
    """What the local service's status (`local_service.status`; None: nothing answers)
    asks of the user."""
    if status is None:
        return [
            Concern(
                found="the service is not running: the next hook starts it and waits for it, "
                "and nothing captures the spool meanwhile",
                fix="`cortex-tui serve` starts it; if it stopped by itself, logs/service.log "
                "says why",
            )
        ]
    concerns = []
    if status.get("store_damage"):
        concerns.append(
            Concern(
                found=f"the service found the store damaged: {status['store_damage']}",
                fix="`cortex-tui health --deep`, then `cortex-tui repair` or `restore-backup`",
            )
        )
    if status.get("watch_error"):
        concerns.append(
            Concern(
                found=f"file sync stopped watching: {status['watch_error']}",
                fix="see logs/service.log, then restart the service: `cortex-tui serve --stop` "
                "(the next command or hook starts it again)",
            )
        )
    return concerns
