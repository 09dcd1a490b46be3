"""Where a hook runs: the project (git root name of `cwd`) and its own files."""

from __future__ import annotations

import os
import re
from pathlib import Path

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def project_for(cwd: str | None) -> str | None:
    """`CORTEX_PROJECT`, else the name of the git root above `cwd`, else None (global)."""
    explicit = os.environ.get("CORTEX_PROJECT")
    if explicit:
        return explicit
    if not cwd:
        return None
    here = Path(cwd).expanduser()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder.name
    return None


def safe_name(session_id: str | None) -> str:
    """A session id usable as a file name: no path separators, no dots-only names."""
    cleaned = _UNSAFE.sub("_", session_id or "")[:100].strip(".")
    return cleaned or "no-session"
