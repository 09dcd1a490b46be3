"""The data home is private: what people told their agent is readable by them alone.

Two mechanisms, because either alone leaves a gap. The process umask (set once at the
entry point, `private_process`) covers every file anything in the process creates,
Qdrant Edge's own shard files included; explicit modes (`open_private`, `private_dir`)
cover the project's own writers when the engine is used as a library from a process
that kept a looser umask. A home made by an older version (0644 files in 0755 folders)
is tightened once when a store is opened (`tighten`), with one log line saying what
changed. Light on purpose: the hooks import it every turn.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import IO, Any, TypeVar

    StrPath = TypeVar("StrPath", bound=str | os.PathLike[str])

FILE_MODE = 0o600
DIR_MODE = 0o700
PRIVATE_UMASK = 0o077


def private_process() -> None:
    """Make everything this process creates from now on readable by its user alone."""
    os.umask(PRIVATE_UMASK)


def private_dir(path: StrPath) -> StrPath:
    """`path` and any missing parents, created 0700 (an existing folder is left as is:
    `tighten` is what changes existing ones). A string or a `Path`: the hooks use
    strings (importing `pathlib` costs a hook ~4 ms)."""
    os.makedirs(path, mode=DIR_MODE, exist_ok=True)
    return path


_FLAGS = {
    "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
    "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
    "a+": os.O_RDWR | os.O_CREAT | os.O_APPEND,
}


def open_private(path: str | Path, mode: str, encoding: str | None = None) -> IO[Any]:
    """`open(path, mode)` for writing ("w", "a", "a+", each optionally with "b"), a file
    it creates being 0600 whatever the umask."""
    fd = os.open(path, _FLAGS[mode.replace("b", "")], FILE_MODE)
    if "b" in mode:
        return os.fdopen(fd, mode)
    return os.fdopen(fd, mode, encoding=encoding or "utf-8")


class Tightened:
    """What `tighten` changed (a plain class: `dataclasses` costs a hook ~15 ms)."""

    __slots__ = ("files", "folders")

    def __init__(self, files: int = 0, folders: int = 0) -> None:
        self.files = files
        self.folders = folders

    def __bool__(self) -> bool:
        return bool(self.files or self.folders)


def tighten(home: Path) -> Tightened:
    """Take group and other permissions off every folder and file under `home` (and
    `home` itself); symlinks are not followed, so nothing outside the home changes.
    Logs one line when anything changed."""
    changed = [path for path in open_to_others(home) if _restrict(path)]
    folders = sum(path.is_dir() for path in changed)
    done = Tightened(len(changed) - folders, folders)
    if done:
        import logging

        logging.getLogger(__name__).warning(
            "made %d files and %d folders under %s private (they were open to other users)",
            done.files,
            done.folders,
            home,
        )
    return done


def open_to_others(home: Path) -> list[Path]:
    """Folders and files under `home` (and `home`) that group or others may use."""
    if not home.is_dir():
        return []
    found = []
    for path in [home, *home.rglob("*")]:
        try:
            info = path.lstat()
        except OSError:
            continue
        if not stat.S_ISLNK(info.st_mode) and info.st_mode & 0o077:
            found.append(path)
    return found


def _restrict(path: Path) -> bool:
    """Clear the group and other bits, keeping the owner's; False when that failed."""
    try:
        os.chmod(path, stat.S_IMODE(path.lstat().st_mode) & ~0o077)
    except OSError:
        return False
    return True
