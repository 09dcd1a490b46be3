"""Which files an index run reads, and how a chunk's `source` names its file and version.

A chunk's source is `index:KEY@SHA#SLUG`:
- KEY names the file the same way whatever the working directory and whether the file
  or a folder above it in the same repository was indexed: inside a git repository, the
  path from the repository's parent folder (`cortex-tui/docs/setup.md`, so it reads as
  a path and two repositories' READMEs stay apart); elsewhere the absolute path;
- SHA is the first 12 hex digits of the SHA-256 of the file's bytes;
- SLUG is the section's GitHub-style anchor (absent for text before the first heading).

Why the content hash lives in the source and not in a tag: re-indexing must decide
"unchanged" from stored payloads alone, without embedding anything, and `source` is the
one field that stays exactly as the indexer wrote it. Tags are merged by consolidation
and by the write path (a survivor would carry two files' hashes), edited by people,
shown in facets and indexed for lexical search; a source is never merged. The prefix
index on `source` then makes "every chunk of this file" (`index:KEY@`) and "every chunk
under this folder" (`index:KEY/`) one filtered scroll.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

SCHEME = "index:"
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
# Never indexed when walking a folder: tool and dependency folders, not documentation.
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "site-packages"})
_SOURCE = re.compile(r"^index:(?P<key>.+)@(?P<sha>[0-9a-f]{12})(?:#(?P<slug>.*))?$")


@dataclass(frozen=True, slots=True)
class ChunkSource:
    key: str
    sha: str
    slug: str

    def __str__(self) -> str:
        anchor = f"#{self.slug}" if self.slug else ""
        return f"{SCHEME}{self.key}@{self.sha}{anchor}"

    @classmethod
    def parse(cls, source: str) -> ChunkSource | None:
        """None for any source the indexer did not write."""
        match = _SOURCE.match(source)
        if match is None:
            return None
        return cls(match["key"], match["sha"], match["slug"] or "")


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def file_key(path: Path) -> str:
    """KEY for a resolved path (file or folder), as described in the module docstring."""
    for folder in (path, *path.parents):
        if (folder / ".git").exists():
            return path.relative_to(folder.parent).as_posix()
    return path.as_posix()


def file_prefix(key: str) -> str:
    """Source prefix of every chunk of the file named `key`."""
    return f"{SCHEME}{key}@"


def folder_prefix(key: str) -> str:
    """Source prefix of every chunk of every file under the folder named `key`."""
    return f"{SCHEME}{key.rstrip('/')}/"


def is_markdown(path: Path) -> bool:
    return path.suffix.lower() in MARKDOWN_SUFFIXES


def markdown_files(folder: Path) -> list[Path]:
    """Markdown files under `folder`, recursively, in path order; hidden files and
    folders (`.git`, `.venv`) and dependency folders are skipped without being walked."""
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS]
        found.extend(
            Path(root, name)
            for name in files
            if not name.startswith(".") and is_markdown(Path(name))
        )
    return sorted(found)
