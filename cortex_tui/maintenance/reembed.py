"""Re-embedding a store with another embedder, without ever holding a half-converted store.

The new store is built beside the old one (`reembed_sites.py`: a folder beside the
embedded store, collections beside a server's); only when it is complete is it swapped
in, and only then are `embedder.kind` and `embedder.model` saved in config.toml.
A crash or Ctrl-C before the swap leaves the old store untouched and the new one half
built: the next run to the same embedder resumes it, keeping every vector already made
for a memory whose text has not changed since (at 100k memories the embedding is most
of an hour for a large model), and brings the rest up to date with the old store. A
half-built store for another embedder is removed.

With the embedder the store already has, it is a rebuild: the vectors are copied, not
computed again, and everything the index derives is made anew — lexical vectors with
today's tokenizer, each conversation memory's neighbour context, and the context and part
vector slots a store made before them lacks (the parts embedded then: `write/parts.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import get_args

from cortex_tui.config import EmbedderConfig, EmbedderKind, PartsConfig, Settings, save_setting
from cortex_tui.embed.base import Embedder
from cortex_tui.embed.factory import make_embedder
from cortex_tui.maintenance.reembed_sites import site_of
from cortex_tui.models import Memory
from cortex_tui.store.base import MemoryFilter, Parts, Store, Vector
from cortex_tui.write.neighbours import NeighbourIndex
from cortex_tui.write.parts import embed_parts, part_texts

BATCH = 128
Progress = Callable[[int, int], None]


@dataclass
class ReembedReport:
    source: str
    target: str
    memories: int
    entities: int
    resumed: int = 0
    """Memories whose new vectors an interrupted run had already made."""


def target_config(settings: Settings, to: str) -> EmbedderConfig:
    """`to` names a kind (keeping the configured model) or an ONNX model."""
    if to in get_args(EmbedderKind):
        return settings.embedder.model_copy(update={"kind": to})
    return settings.embedder.model_copy(update={"kind": "onnx", "model": to})


def reembed(settings: Settings, to: str, progress: Progress | None = None) -> ReembedReport:
    wanted = target_config(settings, to)
    embedder = make_embedder(wanted, settings.models_path)
    site = site_of(settings)
    source = site.open_live(embedder)
    try:
        source_name = source.meta.embedder
        target = site.open_building(source, embedder)
    except BaseException:
        source.close()
        raise
    try:
        copied = _copy(source, target, embedder, settings.parts, progress)
        NeighbourIndex(target, settings.context).rebuild()
    except BaseException:
        target.close()
        source.close()
        raise
    site.switch(source, target)
    save_setting(settings.home, "embedder.kind", wanted.kind)
    if wanted.kind == "onnx":
        save_setting(settings.home, "embedder.model", wanted.model)
    return ReembedReport(source=source_name, target=embedder.name, **copied.__dict__)


@dataclass
class _Copied:
    memories: int = 0
    entities: int = 0
    resumed: int = 0


def _copy(
    source: Store,
    target: Store,
    embedder: Embedder,
    parts: PartsConfig,
    progress: Progress | None,
) -> _Copied:
    """Copy everything with new vectors, over whatever an interrupted run left in
    `target`: its memories the source no longer has are deleted. The turn archive's
    messages are memory-shaped and copied the same way."""
    copied = _Copied()
    _copy_records(source, target, embedder, parts, progress, copied)
    _copy_records(source.archive, target.archive, embedder, parts, None, _Copied())
    entities = source.all_entities()
    if entities:
        target.upsert_entities(entities, list(embedder.embed([e.name for e in entities])))
    _drop_others(
        {e.id for e in entities}, [e.id for e in target.all_entities()], target.delete_entities
    )
    relations = source.all_relations()
    if relations:
        target.upsert_relations(relations)
    _drop_others(
        {r.id for r in relations}, [r.id for r in target.all_relations()], target.delete_relations
    )
    # Entries keep their ids, so a resumed run rewrites the ones it copied before, in
    # the same order.
    entries = source.journal(limit=1_000_000)
    for entry in reversed(entries):
        target.append_journal(entry)
    _drop_others(
        {e.id for e in entries},
        [e.id for e in target.journal(limit=1_000_000)],
        target.delete_journal,
    )
    copied.entities = len(entities)
    return copied


def _copy_records(
    source: Store,
    target: Store,
    embedder: Embedder,
    parts: PartsConfig,
    progress: Progress | None,
    copied: _Copied,
) -> None:
    everything = MemoryFilter(current_only=False, statuses=None)
    total = source.count_memories(everything)
    seen: set[str] = set()
    batch: list[Memory] = []
    for memory in source.iter_memories(everything):
        batch.append(memory)
        if len(batch) == BATCH:
            _copy_batch(batch, source, target, embedder, parts, copied)
            seen.update(m.id for m in batch)
            batch = []
            if progress:
                progress(copied.memories, total)
    _copy_batch(batch, source, target, embedder, parts, copied)
    seen.update(m.id for m in batch)
    if progress:
        progress(copied.memories, total)
    _drop_others(seen, [m.id for m in target.iter_memories(everything)], target.delete_memories)


def _drop_others(kept: set[str], present: list[str], delete: Callable[[list[str]], None]) -> None:
    """Delete what an interrupted run copied that the source no longer has."""
    others = [item for item in present if item not in kept]
    if others:
        delete(others)


def _copy_batch(
    batch: list[Memory],
    source: Store,
    target: Store,
    embedder: Embedder,
    parts: PartsConfig,
    copied: _Copied,
) -> None:
    """Memories with new vectors, or with their own when the embedder is the same (a
    memory without a stored vector, which no write makes, is embedded). A vector an
    interrupted run made is kept while the memory's text is unchanged; the memory itself
    is always written again, as the source has it now. Parts likewise: copied, or kept
    from the interrupted run, while they are as many as the memory's part texts under
    today's settings; else embedded (a memory of one sentence has none to embed)."""
    if not batch:
        return
    ids = [m.id for m in batch]
    same = source.meta.embedder == embedder.name
    kept: dict[str, Vector] = dict(source.get_vectors(ids)) if same else {}
    kept_parts: dict[str, Parts] = dict(source.get_parts(ids)) if same else {}
    if not same:
        content = {m.id: m.content for m in batch}
        done = [m.id for m in target.get_memories(ids) if content[m.id] == m.content]
        kept.update(target.get_vectors(done))
        kept_parts.update(target.get_parts(done))
        copied.resumed += len(kept)
    missing = [m for m in batch if m.id not in kept]
    if missing:
        fresh = embedder.embed([m.content for m in missing])
        kept.update((m.id, row) for m, row in zip(missing, fresh, strict=True))
    texts = {m.id: part_texts(m.content, parts) for m in batch}
    unsplit = [m.id for m in batch if len(kept_parts.get(m.id, [])) != len(texts[m.id])]
    fresh_parts = embed_parts(embedder, [texts[memory_id] for memory_id in unsplit])
    kept_parts.update(zip(unsplit, fresh_parts, strict=True))
    target.upsert_memories(
        batch, [kept[m.id] for m in batch], parts=[kept_parts.get(m.id, []) for m in batch]
    )
    copied.memories += len(batch)
