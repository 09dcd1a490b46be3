"""The Ollama embedder against a real HTTP server on loopback (no mocked client)."""

from __future__ import annotations

import socket

import numpy as np
import pytest

from cortex_tui.embed.ollama import OllamaEmbedder
from cortex_tui.errors import EmbedderError

from .fake_ollama import FAKE_DIMENSION, FakeOllama, fake_vector


class RecordedSleep:
    """Stands in for time.sleep: records the backoff instead of waiting it out."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_batches_requests_and_normalises(fake_ollama: FakeOllama) -> None:
    texts = [f"note {i}" for i in range(7)]
    embedder = OllamaEmbedder(fake_ollama.url, batch_size=3)

    vectors = embedder.embed(texts)

    assert [len(request["input"]) for request in fake_ollama.requests] == [3, 3, 1]
    assert {request["model"] for request in fake_ollama.requests} == {"nomic-embed-text"}
    expected = np.array([fake_vector(text) for text in texts])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vectors, expected, atol=1e-6)


def test_dimension_is_probed_once_then_known(fake_ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder(fake_ollama.url)
    assert embedder.name == "ollama:nomic-embed-text"
    assert fake_ollama.requests == []

    assert embedder.dimension == FAKE_DIMENSION
    embedder.embed(["a", "b"])
    assert embedder.dimension == FAKE_DIMENSION
    assert len(fake_ollama.requests) == 2


def test_retries_busy_answers_with_exponential_backoff(fake_ollama: FakeOllama) -> None:
    fake_ollama.failures = [503, 429]
    sleep = RecordedSleep()
    embedder = OllamaEmbedder(fake_ollama.url, retries=3, backoff=0.2, sleep=sleep)

    vector = embedder.embed_query("hello")

    assert len(fake_ollama.requests) == 3
    assert sleep.delays == pytest.approx([0.2, 0.4])
    assert vector.shape == (FAKE_DIMENSION,)


def test_gives_up_after_the_configured_retries(fake_ollama: FakeOllama) -> None:
    fake_ollama.failures = [500] * 10
    sleep = RecordedSleep()
    embedder = OllamaEmbedder(fake_ollama.url, retries=2, sleep=sleep)

    with pytest.raises(EmbedderError, match=r"answered HTTP 500: busy \(tried 3 times\)"):
        embedder.embed(["hello"])
    assert len(fake_ollama.requests) == 3
    assert len(sleep.delays) == 2


def test_client_errors_are_not_retried(fake_ollama: FakeOllama) -> None:
    fake_ollama.failures = [400]
    embedder = OllamaEmbedder(fake_ollama.url, sleep=RecordedSleep())

    with pytest.raises(EmbedderError, match="answered HTTP 400"):
        embedder.embed(["hello"])
    assert len(fake_ollama.requests) == 1


def test_missing_model_says_how_to_pull_it(fake_ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder(fake_ollama.url, model="mxbai-embed-large", sleep=RecordedSleep())

    with pytest.raises(EmbedderError, match=r"run `ollama pull mxbai-embed-large`"):
        embedder.embed(["hello"])
    assert len(fake_ollama.requests) == 1


def test_server_without_the_embed_endpoint(fake_ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder(fake_ollama.url + "/not-ollama", sleep=RecordedSleep())

    with pytest.raises(EmbedderError, match=r"HTTP 404.*0\.3\.4 or newer"):
        embedder.embed(["hello"])


def test_nothing_listening_says_how_to_start_ollama() -> None:
    url = closed_port_url()
    sleep = RecordedSleep()
    embedder = OllamaEmbedder(url, retries=2, sleep=sleep)

    with pytest.raises(EmbedderError) as caught:
        embedder.embed(["hello"])
    message = str(caught.value)
    assert f"cannot reach Ollama at {url}" in message
    assert "ollama serve" in message
    assert "CORTEX_EMBEDDER__KIND=onnx" in message
    assert sleep.delays == pytest.approx([0.2, 0.4])


def test_slow_server_times_out_with_a_clear_error(fake_ollama: FakeOllama) -> None:
    fake_ollama.delay = 0.5
    embedder = OllamaEmbedder(fake_ollama.url, timeout=0.05, retries=1, sleep=RecordedSleep())

    with pytest.raises(EmbedderError, match=r"did not answer within 0\.05 s"):
        embedder.embed(["hello"])
    assert len(fake_ollama.requests) == 2
