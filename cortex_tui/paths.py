"""Where cortex-tui keeps its files. Light on purpose: the hooks import it every turn."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # the hook process does not import `typing`
if TYPE_CHECKING:
    from pathlib import Path


def default_home() -> Path:
    """`CORTEX_HOME`, else the platform's user-data directory."""
    from pathlib import Path

    return Path(home_dir())


def home_dir() -> str:
    """`default_home` as a string, for the hooks (importing `pathlib` costs a hook ~4 ms)."""
    explicit = os.environ.get("CORTEX_HOME")
    if explicit:
        return os.path.expanduser(explicit)
    return str(platform_home())


def platform_home() -> Path:
    """The home a program started without `CORTEX_HOME` uses (an agent starting a hook
    or an MCP server, say)."""
    from platformdirs import user_data_path

    return user_data_path("cortex-tui", appauthor=False)


RAM_FOLDER = "/dev/shm"


def ram_folder(min_free: int) -> str | None:
    """A RAM-backed folder with `min_free` bytes of room for files that need no
    durability, unless TMPDIR chooses where temporary files go; else None.

    In RAM a store skips the disk syncs that are most of what creating and writing a
    small one costs (its payload indexes: 0.20 s on disk, 0.04 s in RAM on this
    project's reference machine), and a process killed halfway leaves the same files
    as on disk: only a machine that stops loses them.
    """
    if os.environ.get("TMPDIR"):
        return None
    try:
        stats = os.statvfs(RAM_FOLDER)
    except OSError:
        return None
    if not os.access(RAM_FOLDER, os.W_OK | os.X_OK):
        return None
    return RAM_FOLDER if stats.f_bavail * stats.f_frsize >= min_free else None
