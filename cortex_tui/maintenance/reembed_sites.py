"""Where a re-embed builds its new store, and how it swaps it in: beside the embedded
store's folder (two renames), or beside a Qdrant server's collections (one write of the
store's meta). Either way the old store is untouched until the new one is complete, and
a half-built store for the same embedder is handed back to be resumed.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from cortex_tui.config import Settings
from cortex_tui.errors import StoreError
from cortex_tui.store.base import COLLECTIONS, Store
from cortex_tui.store.factory import open_store

if TYPE_CHECKING:
    from cortex_tui.store.qdrant_server import QdrantServerStore

SERVER_SLOTS = ("reembed-a", "reembed-b")
"""A server store's collections alternate between these generations, one per re-embed."""


class VectorSpace(Protocol):
    """What a store is made for: an embedder, or the one a backup's vectors came from."""

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...


class Site(Protocol):
    def open_live(self, embedder: VectorSpace) -> Store:
        """The store in use, whatever embedder made it."""
        ...

    def open_building(self, live: Store, embedder: VectorSpace) -> Store:
        """The store to build: what an interrupted run left for `embedder`, or a new one."""
        ...

    def switch(self, live: Store, building: Store) -> None:
        """Put the complete `building` store in `live`'s place; closes both."""
        ...


def site_of(settings: Settings) -> Site:
    return ServerSite(settings) if settings.store.qdrant_url else FolderSite(settings)


def _made_for(store: Store, embedder: VectorSpace) -> bool:
    return (store.meta.embedder, store.meta.dimension) == (embedder.name, embedder.dimension)


class FolderSite:
    """The embedded store: the new one is built in `store.reembed/` beside `store/`."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._live = settings.store_path
        self._building = _building(self._live)

    def open_live(self, embedder: VectorSpace) -> Store:
        recover_interrupted(self._live)
        if not self._live.exists():
            raise StoreError(f"no store at {self._live}; nothing to re-embed")
        return self._open(self._live, embedder, check=False)

    def open_building(self, live: Store, embedder: VectorSpace) -> Store:
        # Opened after the live store, whose lock keeps a second re-embed away from it.
        if self._building.exists():
            try:
                leftover = self._open(self._building, embedder, check=False)
            except Exception:  # damaged by whatever cut the run off: start again
                shutil.rmtree(self._building)
            else:
                if _made_for(leftover, embedder):
                    return leftover
                leftover.close()
                shutil.rmtree(self._building)
        return self._open(self._building, embedder, check=True)

    def switch(self, live: Store, building: Store) -> None:
        building.close()
        live.close()
        swap_folders(self._live, self._building)

    def _open(self, path: Path, embedder: VectorSpace, *, check: bool) -> Store:
        return open_store(
            self._settings.store, path, embedder.name, embedder.dimension, check_embedder=check
        )


class ServerSite:
    """A Qdrant server: the new store is built under `{prefix}_reembed-a` (or `-b`, the
    slot not in use) and the store's meta switches to it. Other machines' services that
    have the store open keep writing the old collections until they restart: stop them
    before a re-embed."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    def open_live(self, embedder: VectorSpace) -> Store:
        return self._open(self._settings.store.collection_prefix, embedder, check=False)

    def open_building(self, live: Store, embedder: VectorSpace) -> Store:
        server_store = _server_store(live)
        in_use = server_store.meta.generation
        slot = SERVER_SLOTS[1] if in_use == SERVER_SLOTS[0] else SERVER_SLOTS[0]
        prefix = f"{server_store.prefix}_{slot}"
        leftover = _server_store(self._open(prefix, embedder, check=False))
        if _made_for(leftover, embedder):
            return leftover
        leftover.drop()
        return self._open(prefix, embedder, check=True)

    def open_empty(self, live: Store, space: VectorSpace) -> Store:
        """A new, empty store in the slot not in use (whatever was left there dropped)."""
        leftover = self.open_building(live, space)
        if not any(leftover.count_points(name) for name in COLLECTIONS):
            return leftover
        _server_store(leftover).drop()
        return self.open_building(live, space)

    def switch(self, live: Store, building: Store) -> None:
        try:
            _server_store(live).switch_to(_server_store(building))
        finally:
            building.close()
            live.close()

    def _open(self, prefix: str, embedder: VectorSpace, *, check: bool) -> Store:
        config = self._settings.store.model_copy(update={"collection_prefix": prefix})
        return open_store(
            config, self._settings.store_path, embedder.name, embedder.dimension,
            check_embedder=check,
        )  # fmt: skip


def _server_store(store: Store) -> QdrantServerStore:
    from cortex_tui.store.qdrant_server import QdrantServerStore

    if not isinstance(store, QdrantServerStore):
        raise StoreError(f"{store.location} is not a Qdrant server store")
    return store


def _building(live: Path) -> Path:
    return live.with_name(live.name + ".reembed")


def swap_folders(live: Path, built: Path, *, keep_old_as: Path | None = None) -> None:
    """Put the store folder `built` in `live`'s place: two renames, then the old folder
    is removed (or, with `keep_old_as`, renamed there). A crash between the renames is
    undone by `recover_interrupted` on the next open."""
    retired = _retired(live)
    live.rename(retired)
    built.rename(live)
    if keep_old_as is None:
        shutil.rmtree(retired)
    else:
        retired.rename(keep_old_as)


def _retired(live: Path) -> Path:
    return live.with_name(live.name + ".old")


def recover_interrupted(live: Path) -> None:
    """Finish or undo an embedded re-embed cut off between its two renames.

    Old store moved aside but the new one not moved in: put the old one back (the new
    one may be incomplete). Both renames done but the old folder not yet removed: remove
    it.
    """
    retired = _retired(live)
    if not retired.exists():
        return
    if live.exists():
        shutil.rmtree(retired)
    else:
        retired.rename(live)
