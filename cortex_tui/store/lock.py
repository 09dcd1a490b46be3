"""One owner per embedded store, enforced with an advisory lock on `<store>/.lock`.

Edge itself refuses a second opener (its WAL lock fails with "WouldBlock"), but only
after part of the store is open and with a message naming no culprit; and when two
processes took turns on one shard, payloads were lost. So the store takes an exclusive
`flock` first and records its pid, and a second owner gets a clear `StoreLockedError`.

`flock` locks belong to an open file description: a second open in the same process
conflicts too (unlike `fcntl` record locks), and the kernel drops the lock when the
owner dies, so a crashed owner never leaves a stale lock behind. The file itself is
never deleted: unlinking a lock file lets two processes lock two different inodes.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path
from typing import IO

from cortex_tui.errors import StoreError, StoreLockedError
from cortex_tui.private import open_private

LOCK_NAME = ".lock"


class StoreLock:
    """An acquired lock; `release()` is idempotent."""

    def __init__(self, handle: IO[str]) -> None:
        self._handle: IO[str] | None = handle

    @classmethod
    def acquire(cls, store_path: Path) -> StoreLock:
        """Lock `store_path` (an existing folder) or raise `StoreLockedError`."""
        path = store_path / LOCK_NAME
        try:
            # "a+" neither truncates the owner's pid before we hold the lock nor fails
            # when the file exists.
            handle = open_private(path, "a+", encoding="ascii")
        except OSError as exc:
            raise StoreError(f"cannot open the lock file {path}: {exc.strerror}") from None
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            handle.seek(0)
            owner = handle.read().strip() or "unknown"
            handle.close()
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise StoreError(f"cannot lock {path}: {exc.strerror}") from None
            if owner == str(os.getpid()):
                raise StoreLockedError(
                    f"store at {store_path} is already open in this process (pid {owner}); "
                    "close it before opening it again"
                ) from None
            raise StoreLockedError(
                f"store at {store_path} is in use by another process (pid {owner}); "
                "stop it (`cortex-tui serve --stop`) or use the running service"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        return cls(handle)

    def release(self) -> None:
        if self._handle is None:
            return
        handle, self._handle = self._handle, None
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        handle.close()
