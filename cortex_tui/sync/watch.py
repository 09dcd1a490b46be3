"""Watching paths and running a sync pass after each burst of changes.

`watchfiles` (Rust `notify` underneath: inotify, FSEvents, ReadDirectoryChangesW) is
used rather than polling or a hand-written inotify loop: it is cross-platform, groups a
burst of events into one batch (an editor's save is often write + rename + chmod), and
stops on an event, which lets the service shut its watch down promptly.

A named file is watched through its folder: editors save by writing a new file and
renaming it over the old one, which ends a watch on the file itself. Each batch runs a
whole pass over the watched paths (a `stat` per unchanged file), so renames and removals
are seen exactly as `sync` sees them.

The service can own a watch (`cortex-tui watch --service PATH`): the paths are kept in
`$CORTEX_HOME/sync/watched.json`, and the service watches them for as long as it runs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cortex_tui.errors import InvalidInputError
from cortex_tui.indexer.sources import SKIPPED_FOLDERS
from cortex_tui.sync.files import database_of, kind_of
from cortex_tui.sync.run import SyncReport, sync_paths
from cortex_tui.sync.state import replace_file

WATCHED = "watched.json"
STEP_MS = 50
"""Quiet time that ends a burst of changes: a save is taken in this long after it."""
DEBOUNCE_MS = 1600
"""Longest a burst is collected before a pass runs anyway."""

log = logging.getLogger(__name__)


class WatchList(BaseModel):
    """What the service watches."""

    model_config = ConfigDict(extra="forbid")

    paths: list[str] = Field(default_factory=list)
    project: str | None = None


def load_watch_list(home: Path) -> WatchList:
    try:
        return WatchList.model_validate_json((home / "sync" / WATCHED).read_bytes())
    except FileNotFoundError:
        return WatchList()
    except ValidationError as exc:
        log.warning("ignoring %s: %s", home / "sync" / WATCHED, exc)
        return WatchList()


def save_watch_list(home: Path, watched: WatchList) -> None:
    replace_file(home / "sync" / WATCHED, watched.model_dump_json())


def watch_paths(
    paths: Sequence[Path],
    on_batch: Callable[[], None],
    *,
    stop: threading.Event | None = None,
    ready: Callable[[], None] | None = None,
) -> None:
    """Call `on_batch` after each burst of changes to the notes and transcripts under
    `paths`, until `stop` is set (or Ctrl-C in the foreground). `ready` is called once
    the watch is in place: a catch-up pass run there misses nothing, since a change made
    meanwhile is the next batch."""
    import watchfiles

    wanted = [p.expanduser().resolve() for p in paths]
    folders = sorted({p if p.is_dir() else p.parent for p in wanted})
    files = {p for p in wanted if not p.is_dir()}

    watched_folders = [p for p in wanted if p not in files]

    def relevant(_change: watchfiles.Change, name: str) -> bool:
        """A watched file, or under a watched folder a notes file, a transcript or a
        folder (a folder made and filled at once: the events of the files in it can come
        before its own watch is in place, and the pass finds them)."""
        path = database_of(Path(name))  # OpenClaw writes its store's `-wal` file
        if path in files:
            return True
        under = next((f for f in watched_folders if path.is_relative_to(f)), None)
        if under is None or not _walked(path.relative_to(under)):
            return False
        return kind_of(path, named=False) is not None or path.is_dir() or not path.suffix

    for folder in folders:
        if not folder.is_dir():
            raise InvalidInputError(f"{folder} does not exist; create it or watch another path")
    changes = watchfiles.watch(
        *folders,
        watch_filter=relevant,
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        stop_event=stop,
        yield_on_timeout=True,
        rust_timeout=500,
        raise_interrupt=False,
    )
    # The first answer (a batch, or an empty one at `rust_timeout`) comes once the
    # watcher is in place: from then on no save is missed.
    first = next(changes, None)
    if ready:
        ready()
    if first:
        on_batch()
    for batch in changes:
        if batch:
            on_batch()


def _walked(relative: Path) -> bool:
    """Whether `sync` walks into this path (no hidden or dependency folder on the way)."""
    return not any(part.startswith(".") or part in SKIPPED_FOLDERS for part in relative.parts)


class ServiceWatch:
    """The service's own watch: a thread running `watch_paths` over the watch list,
    restarted when the list changes, stopped with the service."""

    def __init__(self, home: Path, on_synced: Callable[[SyncReport], None]) -> None:
        self.home = home
        self.on_synced = on_synced
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.watched = WatchList()
        self.error: str | None = None

    def reload(self) -> WatchList:
        """Read the watch list and (re)start watching it; a first pass catches up."""
        self.stop()
        self.watched = load_watch_list(self.home)
        self.error = None
        if self.watched.paths:
            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._run, name="sync-watch", daemon=True)
            self._thread.start()
        return self.watched

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None

    def _run(self) -> None:
        paths = [Path(p) for p in self.watched.paths]
        try:
            watch_paths(
                paths, lambda: self._pass(paths), stop=self._stop, ready=lambda: self._pass(paths)
            )
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            log.exception("the sync watch stopped")

    def _pass(self, paths: list[Path]) -> None:
        try:
            report = sync_paths(paths, self.home, project=self.watched.project, log=log)
        except Exception as exc:  # one bad pass must not end the watch
            log.warning("sync pass failed: %s: %s", type(exc).__name__, exc)
            return
        for change in report.changes:
            log.info("sync: %s", change.describe())
        for skipped in report.skipped:
            log.info("sync: %s", skipped)
        if report.keys:
            self.on_synced(report)
