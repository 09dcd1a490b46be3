"""Where cortex-tui keeps its files. Light on purpose: the hooks import it every turn."""

from __future__ import annotations

import os
from pathlib import Path


def default_home() -> Path:
    """`CORTEX_HOME`, else the platform's user-data directory."""
    explicit = os.environ.get("CORTEX_HOME")
    if explicit:
        return Path(explicit).expanduser()
    from platformdirs import user_data_path

    return user_data_path("cortex-tui", appauthor=False)
