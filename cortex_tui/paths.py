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
