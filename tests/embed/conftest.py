"""A fake Ollama on loopback (the ONNX model fixture lives in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .fake_ollama import FakeOllama, serve_fake_ollama


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    with serve_fake_ollama() as state:
        yield state
