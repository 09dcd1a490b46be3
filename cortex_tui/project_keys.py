"""Project keys and the names people call them by.

Memories are filed under a repository's key (`github.com/acme/api`, or `api@1a2b3c4d5e6f`
for a repository without a network remote: see `agent_turn/project.py`); people and
models say `api`. Standard library only: the hook process imports it.
"""

from __future__ import annotations

import re

ROOT_KEY = re.compile(r"^(?P<name>.+)@(?P<root>[0-9a-f]{12})$")
"""A repository without a network remote: its folder's name and first commit."""


def readable(key: str) -> str:
    """The short name of a project key: `api` for `github.com/acme/api` and for
    `api@1a2b3c4d5e6f`; a name that is not a repository's key as it is."""
    root = ROOT_KEY.match(key)
    if root:
        return root["name"]
    return key.rstrip("/").rpartition("/")[2] or key


def is_repository_key(name: str) -> bool:
    """Whether `name` is a key as a repository gives it, not a short name to look up."""
    return "/" in name or ROOT_KEY.match(name) is not None
