"""Embeddings from a local Ollama server (`POST /api/embed`): the optional backend.

Ollama is a separate process the user runs, so it can be down, still loading a model, or
lack the model: transient failures are retried with backoff, the others become one-line
`EmbedderError`s that say how to fix them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import numpy as np

from cortex_tui.embed.base import Matrix
from cortex_tui.errors import EmbedderError

_PROBE_TEXT = "dimension probe"


class _Retryable(Exception):
    """A failure worth another attempt; its message is the user-facing reason."""


class OllamaEmbedder:
    """Vectors from Ollama, L2-normalised here because not every Ollama model does it."""

    def __init__(
        self,
        url: str = "http://127.0.0.1:11434",
        model: str = "nomic-embed-text",
        *,
        batch_size: int = 32,
        timeout: float = 30.0,
        retries: int = 3,
        backoff: float = 0.2,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """Connect lazily: building the embedder never touches the network."""
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self._url = url.rstrip("/")
        self._model = model
        self._batch_size = batch_size
        self._retries = retries
        self._backoff = backoff
        self._sleep = sleep
        self._timeout = timeout
        self._client = httpx.Client(base_url=self._url, timeout=timeout)
        self._dimension: int | None = None

    @property
    def name(self) -> str:
        return f"ollama:{self._model}"

    @property
    def dimension(self) -> int:
        """Known only from a response, so asking before any embed costs one probe request."""
        if self._dimension is None:
            return int(self._post([_PROBE_TEXT]).shape[1])
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Matrix:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_query() for one")
        if not texts:
            return np.empty((0, self.dimension), dtype=np.float32)
        batches = [
            self._post(list(texts[start : start + self._batch_size]))
            for start in range(0, len(texts), self._batch_size)
        ]
        vectors = np.concatenate(batches)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        normalised: Matrix = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
        return normalised

    def embed_query(self, text: str) -> Matrix:
        return self.embed([text]).reshape(self.dimension)

    def close(self) -> None:
        """Release pooled connections; a resident service calls this on shutdown."""
        self._client.close()

    def _post(self, texts: list[str]) -> Matrix:
        attempt = 0
        while True:
            try:
                return self._post_once(texts)
            except _Retryable as exc:
                if attempt >= self._retries:
                    raise EmbedderError(f"{exc} (tried {attempt + 1} times)") from None
                self._sleep(self._backoff * 2**attempt)
                attempt += 1

    def _post_once(self, texts: list[str]) -> Matrix:
        try:
            response = self._client.post("/api/embed", json={"model": self._model, "input": texts})
        except httpx.TimeoutException:
            raise _Retryable(
                f"Ollama at {self._url} did not answer within {self._timeout:g} s "
                "(raise CORTEX_EMBEDDER__OLLAMA_TIMEOUT, or set CORTEX_EMBEDDER__KIND=onnx)"
            ) from None
        except httpx.TransportError as exc:
            raise _Retryable(
                f"cannot reach Ollama at {self._url}: {exc} — start it with `ollama serve` "
                "or set CORTEX_EMBEDDER__KIND=onnx"
            ) from None
        if response.status_code != 200:
            self._raise_for_status(response.status_code, response.text)
        return self._parse(response.content, expected=len(texts))

    def _raise_for_status(self, status: int, body: str) -> None:
        detail = _error_detail(body)
        if "model" in detail.lower() and "not found" in detail.lower():
            raise EmbedderError(
                f"Ollama at {self._url} has no model {self._model!r} ({detail}): "
                f"run `ollama pull {self._model}`"
            )
        message = f"Ollama at {self._url} answered HTTP {status}: {detail}"
        if status == 404:
            # Ollama before 0.3.4 has no /api/embed; any other 404 is not Ollama at all.
            raise EmbedderError(f"{message} (is it Ollama 0.3.4 or newer?)")
        if status == 429 or status >= 500:
            raise _Retryable(message)
        raise EmbedderError(message)

    def _parse(self, content: bytes, expected: int) -> Matrix:
        try:
            vectors = np.asarray(json.loads(content)["embeddings"], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise EmbedderError(
                f"Ollama at {self._url} sent an unexpected /api/embed response ({exc!r}); "
                "is it a recent Ollama (0.3.4 or newer)?"
            ) from None
        if vectors.ndim != 2 or vectors.shape[0] != expected or vectors.shape[1] == 0:
            raise EmbedderError(
                f"Ollama at {self._url} returned embeddings of shape {vectors.shape} "
                f"for {expected} texts"
            )
        if self._dimension is None:
            self._dimension = int(vectors.shape[1])
        elif vectors.shape[1] != self._dimension:
            raise EmbedderError(
                f"Ollama model {self._model!r} changed dimension from {self._dimension} "
                f"to {vectors.shape[1]}; the store cannot mix them"
            )
        return vectors


def _error_detail(body: str) -> str:
    """Ollama reports errors as `{"error": "..."}`; fall back to the raw body."""
    try:
        parsed: Any = json.loads(body)
    except ValueError:
        return body.strip()[:200] or "no details"
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), str):
        return str(parsed["error"])
    return body.strip()[:200]
