"""Building a `LocalEngine` from settings: the one place that wires adapters together."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from cortex_tui.clock import Clock, system_clock
from cortex_tui.config import Settings
from cortex_tui.embed.base import Embedder
from cortex_tui.embed.catalogue import DEFAULT_MODEL, PACKAGED_EMBEDDER, packaged_model
from cortex_tui.embed.factory import Loadable, make_embedder
from cortex_tui.embed.onnx import OnnxEmbedder
from cortex_tui.embed.query_cache import QueryCache
from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import EmbedderMismatchError
from cortex_tui.llm.base import LLMClient
from cortex_tui.maintenance.reembed_sites import recover_interrupted
from cortex_tui.private import private_process, tighten
from cortex_tui.store.factory import open_store
from cortex_tui.write.calibration import calibrated


def open_engine(
    settings: Settings,
    *,
    clock: Clock = system_clock,
    embedder: Embedder | None = None,
    store_path: Path | None = None,
    llm: LLMClient | None = None,
    cache_queries: bool = False,
) -> LocalEngine:
    """Open the configured store with the configured embedder (or the given one).

    The store is opened after the embedder exists, so a mismatch between the two is
    reported before any write. One mismatch is not an error: a store made with the
    packaged MiniLM file, when the configured model is the default MiniLM, keeps that
    file (its vectors stay as they are) and its recalls say how to move on.

    The write path's thresholds are the embedder's own (`write/calibration.py`): a
    model other than the default is never judged with the default's cosines.

    Whatever under the home (and the store) other users could read is made private
    first (`private.tighten`).

    `cache_queries`: for the service, which serves many recalls at once: query vectors
    are remembered per text (`embed/query_cache.py`), and a query or any other lone text
    is embedded on one thread (`OnnxEmbedder.run_lone_texts_on_one_thread`).
    """
    path = store_path or settings.store_path
    private_process()  # Edge creates its files with the process umask
    tighten(settings.home)  # a home an older version left readable by others
    if not path.is_relative_to(settings.home):
        tighten(path)
    recover_interrupted(path)
    chosen = embedder or make_embedder(settings.embedder, settings.models_path, lazy=True)
    if cache_queries and isinstance(chosen, OnnxEmbedder):
        chosen.run_lone_texts_on_one_thread()
    notices: list[str] = []
    # The model loads while the store opens: both mostly wait on files and native code,
    # and a service's cold start (the first prompt of a session waits for it) is their
    # sum otherwise. Leaving the block waits for any load still running.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="load-model") as loader:
        loading = _load(loader, chosen, given=embedder is not None)
        try:
            store = open_store(settings.store, path, chosen.name, chosen.dimension)
        except EmbedderMismatchError as mismatch:
            if embedder is not None or not _keeps_packaged_file(settings, mismatch.recorded):
                raise
            chosen = OnnxEmbedder(packaged_model(), settings.embedder.batch_size, lazy=True)
            if cache_queries:
                chosen.run_lone_texts_on_one_thread()
            loading = _load(loader, chosen, given=False)
            store = open_store(settings.store, path, chosen.name, chosen.dimension)
            notices.append(
                f"this store's vectors come from the packaged MiniLM file, which embeds about "
                f"2x slower than the default model; `cortex-tui reembed --to {DEFAULT_MODEL}` "
                "converts it"
            )
        try:
            if loading is not None:
                loading.result()
        except BaseException:
            store.close()
            raise
    write = calibrated(settings.write, chosen, settings.models_path)
    if write is not settings.write:
        settings = settings.model_copy(update={"write": write})
    if cache_queries:
        chosen = QueryCache(chosen)
    return LocalEngine(settings, store, chosen, clock, llm, notices=notices)


def _load(loader: ThreadPoolExecutor, chosen: Embedder, *, given: bool) -> Future[None] | None:
    """The model's load under way, for an embedder made here (a given one is the
    caller's to load)."""
    if given or not isinstance(chosen, Loadable):
        return None
    return loader.submit(chosen.load)


def _keeps_packaged_file(settings: Settings, recorded: str) -> bool:
    config = settings.embedder
    return config.kind == "onnx" and config.model == DEFAULT_MODEL and recorded == PACKAGED_EMBEDDER
