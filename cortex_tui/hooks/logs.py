"""The hooks' own log: the only place a hook may say what went wrong.

Written directly rather than through `logging`, whose import (with its rotating
handler) costs a hook process more than the rest of its work on a warm service: one
line per call in logging's format (`%`-style arguments), the file rotated at 1 MB with
three old ones kept. An unwritable home loses the line, never the agent's turn.
"""

from __future__ import annotations

import os
import time

from cortex_tui.private import open_private, private_dir

TYPE_CHECKING = False  # the hook process does not import `typing`
if TYPE_CHECKING:
    from cortex_tui.clients.local_service import StrPath

MAX_BYTES = 1_000_000
BACKUPS = 3


class HookLog:
    """Appends to `path` (None: says nothing)."""

    def __init__(self, path: str | None) -> None:
        self._path = path

    def info(self, msg: str, *args: object) -> None:
        self._write("INFO", msg, args)

    def warning(self, msg: str, *args: object) -> None:
        self._write("WARNING", msg, args)

    def _write(self, level: str, msg: str, args: tuple[object, ...]) -> None:
        if self._path is None:
            return
        now = time.time()
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now))
        text = msg % args if args else msg
        line = f"{stamp},{int(now % 1 * 1000):03d} {level} {text}\n"
        try:
            self._rotate_if_full()
            with open_private(self._path, "a", encoding="utf-8") as out:
                out.write(line)
        except OSError:
            pass  # a full disk or a read-only home must not break the agent

    def _rotate_if_full(self) -> None:
        path = self._path
        assert path is not None
        try:
            if os.stat(path).st_size < MAX_BYTES:
                return
        except FileNotFoundError:
            return
        for number in range(BACKUPS - 1, 0, -1):
            older = f"{path}.{number}"
            if os.path.exists(older):
                os.replace(older, f"{path}.{number + 1}")
        os.replace(path, f"{path}.1")


def hook_logger(home: StrPath) -> HookLog:
    try:
        return HookLog(os.path.join(private_dir(os.path.join(home, "logs")), "hooks.log"))
    except OSError:
        return HookLog(None)
