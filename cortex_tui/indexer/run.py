"""`index_path`: markdown files → chunk memories, re-indexing only what changed.

Per file: unchanged (every current chunk carries the file's content hash, see
`sources.py`) costs one read and one hash, no embedding; changed or new: the file is
chunked, the chunks are materialised (type classified, scope from the project) and
inserted through the engine, which embeds them in batches, then the stale chunks are
marked deleted (soft: `purge` removes them). New chunks are written before old ones are
retired, so an interrupted run leaves both versions current (the next run replaces both)
rather than neither. Indexing a folder also retires the chunks of files that are gone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from cortex_tui.errors import CortexError, InvalidInputError
from cortex_tui.indexer.chunking import chunk_text
from cortex_tui.indexer.markdown import parse_sections
from cortex_tui.indexer.sources import (
    ChunkSource,
    content_hash,
    file_key,
    file_prefix,
    folder_prefix,
    is_markdown,
    markdown_files,
)
from cortex_tui.models import Memory, MemoryDraft, MemoryStatus
from cortex_tui.store.base import MemoryFilter
from cortex_tui.untrusted.files import MIB, read_whole

if TYPE_CHECKING:
    from cortex_tui.engine.local import LocalEngine

Progress = Callable[[int, int, str], None]
"""Called with (files done, files in total, the file's key) as a run advances."""
Summarize = Callable[[str], str]
"""Document text in, a short summary out (an LLM call); may raise `CortexError`."""

SUMMARY_TAG = "summary"
SUMMARY_SLUG = "summary"
# The summarizer sees the start of a long document: enough for what it is about.
SUMMARY_INPUT_CHARS = 12_000
WRITE_BATCH = 256
FILE_LIMIT = 16 * MIB
"""Largest markdown file indexed: notes are KBs; a file this big is generated output."""


class IndexReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    files_seen: int = 0
    files_changed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    chunks_stored: int = 0
    chunks_retired: int = 0
    summaries_stored: int = 0
    summaries_failed: int = 0
    changed: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)


@dataclass
class _Tracked:
    """The current chunks of one file and the content hashes they were made from."""

    memories: list[Memory] = field(default_factory=list)
    hashes: set[str] = field(default_factory=set)


def document_chunks(text: str, name: str) -> list[tuple[str, str]]:
    """(section slug, chunk content) pairs; each content starts with its heading path
    ("Guide > Setup > Database: …") or, before the first heading, the file's name."""
    chunks: list[tuple[str, str]] = []
    for section in parse_sections(text):
        label = " > ".join(section.path) or name
        chunks.extend((section.slug, f"{label}: {chunk}") for chunk in chunk_text(section.body))
    return chunks


def index_path(
    engine: LocalEngine,
    path: Path,
    *,
    project: str | None,
    summarize: Summarize | None = None,
    progress: Progress | None = None,
) -> IndexReport:
    """Index a markdown file, or every markdown file under a folder.

    Under a folder, a file's key is the folder's key plus the relative path, so every
    chunk of the folder shares its source prefix (even a file in a nested repository).
    """
    project = project or None  # "" is no project, as `materialise` stores it
    root = path.expanduser().resolve()
    if root.is_dir():
        base = file_key(root)
        keys = {f"{base}/{f.relative_to(root).as_posix()}": f for f in markdown_files(root)}
        prefix = folder_prefix(base)
    elif root.is_file() and is_markdown(root):
        keys = {file_key(root): root}
        prefix = file_prefix(file_key(root))
    elif root.exists():
        raise InvalidInputError(
            f"{path} is not a markdown file (.md, .markdown); give one, or a folder of them"
        )
    else:
        raise InvalidInputError(f"{path} does not exist; give a markdown file or a folder")
    tracked = _tracked(engine, prefix, project)
    if root.is_dir():
        gone = sorted(tracked.keys() - keys.keys())
    else:  # `index:KEY@` also matches a sibling file named "KEY@…"
        tracked, gone = {k: v for k, v in tracked.items() if k in keys}, []
    run = _Run(engine, project, summarize, tracked)
    for key in gone:
        run.remove_file(key)
    for done, (key, file) in enumerate(sorted(keys.items())):
        if progress:
            progress(done, len(keys), key)
        run.index_file(file, key)
    if progress:
        progress(len(keys), len(keys), "")
    run.report.files_seen = len(keys)
    return run.report


def _tracked(engine: LocalEngine, prefix: str, project: str | None) -> dict[str, _Tracked]:
    """Current chunks under `prefix` in exactly this project (or global), by file key."""
    flt = MemoryFilter(source_prefix=prefix, project=project, project_only=project is not None)
    tracked: dict[str, _Tracked] = {}
    for memory in engine.store.iter_memories(flt):
        source = ChunkSource.parse(memory.source)
        if source is None or memory.project != project:
            continue
        entry = tracked.setdefault(source.key, _Tracked())
        entry.memories.append(memory)
        entry.hashes.add(source.sha)
    return tracked


class _Run:
    def __init__(
        self,
        engine: LocalEngine,
        project: str | None,
        summarize: Summarize | None,
        tracked: dict[str, _Tracked],
    ) -> None:
        self.engine = engine
        self.project = project
        self.summarize = summarize
        self.tracked = tracked
        self.report = IndexReport()
        # Summary texts already stored: the same summary twice is one memory.
        self.summaries = {
            m.content for t in tracked.values() for m in t.memories if SUMMARY_TAG in m.tags
        }

    def index_file(self, file: Path, key: str) -> None:
        try:
            data = read_whole(
                file, limit=FILE_LIMIT, what="markdown file", fix="split it to index it"
            )
        except InvalidInputError as exc:
            self.report.skipped.append(str(exc))
            return
        sha = content_hash(data)
        old = self.tracked.pop(key, _Tracked())
        if old.hashes == {sha}:
            self.report.files_unchanged += 1
            return
        # Through the privacy step whole, before it is cut into sections: a private
        # span across a heading would otherwise leave its second half in the next
        # chunk, and the summarizer (an LLM) gets only what may be stored.
        text = self.engine.privacy.clean(data.decode("utf-8", errors="replace"))
        chunks = document_chunks(text, file.name)
        if not chunks and not old.memories:
            self.report.files_unchanged += 1  # empty then, empty now: nothing to track
            return
        memories = [self._memory(content, ChunkSource(key, sha, slug)) for slug, content in chunks]
        self._forget_summaries(old.memories)
        summary = self._summary(text, ChunkSource(key, sha, SUMMARY_SLUG)) if chunks else None
        if summary is not None:
            memories.append(summary)
        self.engine.insert(memories)
        self.retire(old.memories)
        self.report.files_changed += 1
        self.report.changed.append(key)
        self.report.chunks_stored += len(chunks)
        self.report.summaries_stored += len(memories) - len(chunks)

    def remove_file(self, key: str) -> None:
        self.retire(self.tracked.pop(key).memories)
        self.report.files_removed += 1
        self.report.removed.append(key)

    def retire(self, memories: Sequence[Memory]) -> None:
        now = self.engine.clock()
        retired = [
            m.model_copy(update={"status": MemoryStatus.DELETED, "updated_at": now})
            for m in memories
        ]
        for start in range(0, len(retired), WRITE_BATCH):
            self.engine.store.update_memories(retired[start : start + WRITE_BATCH])
        self.report.chunks_retired += len(retired)
        self._forget_summaries(memories)

    def _forget_summaries(self, memories: Sequence[Memory]) -> None:
        """Summaries of retired chunks no longer count as stored (for deduplication)."""
        self.summaries -= {m.content for m in memories if SUMMARY_TAG in m.tags}

    def _memory(self, content: str, source: ChunkSource, tags: Sequence[str] = ()) -> Memory:
        draft = MemoryDraft(
            content=content, project=self.project, source=str(source), tags=list(tags)
        )
        return self.engine.materialise(draft)

    def _summary(self, text: str, source: ChunkSource) -> Memory | None:
        """The file's summary memory; None without a summarizer, when it fails (counted,
        the chunks are stored anyway) or when the same text is already stored for
        another file (which then owns the one memory)."""
        if self.summarize is None:
            return None
        try:
            summary = " ".join(self.summarize(text[:SUMMARY_INPUT_CHARS]).split())
        except CortexError:
            self.report.summaries_failed += 1
            return None
        if not summary or summary in self.summaries:
            return None
        self.summaries.add(summary)
        return self._memory(summary, source, tags=[SUMMARY_TAG])
