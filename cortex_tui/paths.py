"""Where cortex-tui keeps its files. Light on purpose: the hooks import it every turn."""

from __future__ import annotations

import os
from pathlib import Path


def default_home() -> Path:
    """`CORTEX_HOME`, else the platform's user-data directory."""
    explicit = os.environ.get("CORTEX_HOME")
    if explicit:
        return Path(explicit).expanduser()
    return platform_home()


def platform_home() -> Path:
    """The home a program started without `CORTEX_HOME` uses (an agent starting a hook
    or an MCP server, say)."""
    from platformdirs import user_data_path

    return user_data_path("cortex-tui", appauthor=False)
