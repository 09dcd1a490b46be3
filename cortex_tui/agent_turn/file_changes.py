"""Applying a notes file's changes (spooled by file sync) to the store.

File sync (`cortex_tui.sync`) reads the files and decides what changed; it spools one
entry per file change holding the operations, and whoever drains the spool (the service,
or the process itself with the service off) applies them here:

- `add`: a new line or section goes through the write path (`remember`): it may be new,
  repeat a memory already stored, update or contradict one;
- `edit`: the memory made from the old text gets a new version (`update`, history kept);
  when that memory is gone (forgotten, superseded by someone else, or the old text had
  folded into another memory) the new text goes through the write path instead;
- `retire`: the memory made from a removed line is forgotten (status deleted, kept with
  its history: `restore` brings it back).

A line's memory is found by its source, `sync:KEY:LINE@SHA` (the file, the line it was
read at, the hash of its text), which the sync process wrote into the operation. That
makes a replay exact: an operation whose result is already stored is skipped, so a
crash anywhere (the service killed mid-batch) redoes only what is missing. Operations
run in batches of `BATCH`: one model call embeds the batch's texts, one store flush
ends it, the caller's lock is held for it alone, and the spool records it when done.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cortex_tui.errors import InvalidInputError, NotFoundError
from cortex_tui.models import Memory, MemoryDraft, MemoryStatus, WriteAction
from cortex_tui.store.base import MemoryFilter

if TYPE_CHECKING:
    from cortex_tui.agent_turn.drain import Locked
    from cortex_tui.embed.base import Matrix
    from cortex_tui.engine.local import LocalEngine
    from cortex_tui.spool.entries import FileChanges, FileOperation
    from cortex_tui.write.turn_capture import CaptureProgress

BATCH = 32
EXACT_LOOKUPS = 64
"""Up to this many sources are looked up one by one rather than by scrolling a file's."""
SOURCE_SCHEME = "sync:"

ADD, EDIT, RETIRE = "add", "edit", "retire"
_SAID = {
    WriteAction.CREATED.value: "new",
    WriteAction.DUPLICATE.value: "repeated",
    WriteAction.REINFORCED.value: "repeated",
    WriteAction.SUPERSEDED.value: "updated a memory",
    WriteAction.CONFLICT.value: "in conflict",
    "updated": "edited",
    "retired": "retired",
    "already": "already stored",
    "gone": "nothing to retire",
}


def unit_source(key: str, line: int, sha: str) -> str:
    """The source of a memory made from the text at `line` of the file named `key`."""
    return f"{SOURCE_SCHEME}{key}:{line}@{sha}"


def source_prefix(source: str) -> str:
    """`sync:KEY:` of a unit's source: every memory read from that file starts so."""
    return source[: source.rindex(":", 0, source.rindex("@")) + 1]


def apply_file_changes(
    engine: LocalEngine,
    changes: FileChanges,
    progress: CaptureProgress,
    locked: Locked,
) -> str:
    """Apply the spooled operations not applied yet; a one-line summary for the log."""
    ops: list[FileOperation] = list(changes.get("ops", []))
    tally: Counter[str] = Counter()
    known: dict[str, Memory] | None = None

    for number, start in enumerate(range(0, len(ops), BATCH)):
        if progress.is_written(number):
            tally["before a restart"] += min(BATCH, len(ops) - start)
            continue
        batch = ops[start : start + BATCH]

        def run_batch(batch: Sequence[FileOperation] = batch) -> None:
            nonlocal known
            if known is None:
                known = _by_source(engine, ops)
            drafts = [op["draft"]["content"] for op in batch if "draft" in op]
            vectors = iter(engine.document_vectors(drafts)) if drafts else iter(())
            with engine.store.deferred_commits():
                for op in batch:
                    vector = next(vectors) if "draft" in op else None
                    tally[_apply(engine, op, known, vector)] += 1

        locked(run_batch)
        progress.mark_written(number)
    said = ", ".join(f"{n} {_SAID.get(k, k)}" for k, n in tally.items())
    return f"{changes.get('file', '?')}: {said or 'nothing to do'}"


def _by_source(engine: LocalEngine, ops: Sequence[FileOperation]) -> dict[str, Memory]:
    """The stored versions these operations name, by source (the current one when a
    source has several): looked up one by one for a few, else every memory read from
    the files they touch in one scroll (a long file's first pass)."""
    sources = {s for op in ops for s in (op.get("was"), op.get("draft", {}).get("source")) if s}
    prefixes = sources if len(sources) <= EXACT_LOOKUPS else {source_prefix(s) for s in sources}
    found: dict[str, Memory] = {}
    for prefix in sorted(prefixes):
        flt = MemoryFilter(source_prefix=prefix, current_only=False, statuses=None)
        for memory in engine.store.iter_memories(flt):
            if memory.source in sources and (memory.source not in found or memory.is_current):
                found[memory.source] = memory
    return found


def _apply(
    engine: LocalEngine, op: FileOperation, known: dict[str, Memory], vector: Matrix | None
) -> str:
    kind = op.get("op")
    if kind == RETIRE:
        old = _still_current(engine, known.get(str(op.get("was"))))
        if old is None:
            return "gone"
        known[old.source] = engine.forget(old.id)
        return "retired"
    if kind not in (ADD, EDIT):
        raise InvalidInputError(f"unknown file-sync operation {kind!r}")
    draft = MemoryDraft.model_validate(op["draft"])
    if _still_current(engine, known.get(draft.source)) is not None:
        return "already"  # a replay; a line removed and written again is stored again
    old = _still_current(engine, known.get(str(op.get("was")))) if kind == EDIT else None
    if old is not None:
        tags = list(dict.fromkeys([*old.tags, *draft.tags]))  # a person's tags stay
        new = engine.update(
            old.id, content=draft.content, type=draft.type, tags=tags, source=draft.source
        )
        known[new.source] = new
        return "updated"
    result = engine.remember(draft, vector=vector)
    if result.memory.source == draft.source:
        known[draft.source] = result.memory
    return result.action.value


def _still_current(engine: LocalEngine, memory: Memory | None) -> Memory | None:
    """The memory as stored now, when it is still the current, active version."""
    if memory is None:
        return None
    try:
        stored = engine.get(memory.id)
    except NotFoundError:
        return None
    return stored if stored.is_current and stored.status is MemoryStatus.ACTIVE else None
