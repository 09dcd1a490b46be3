"""Settings: TOML file, CORTEX_* environment with nested `__` keys, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from cortex_tui.config import load_settings, save_setting
from cortex_tui.errors import ConfigError


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for key in list(os.environ):
        if key.startswith("CORTEX_"):
            monkeypatch.delenv(key)


def test_defaults_follow_the_design(tmp_path: Path) -> None:
    s = load_settings(tmp_path)
    w = s.recall.weights
    assert (w.similarity, w.recency, w.type, w.graph_proximity) == (0.45, 0.08, 0.10, 0.05)
    assert s.recall.supersession_penalty == 0.3
    assert s.recall.conflict_penalty == 0.8
    assert s.recall.budget_tokens == 2000
    assert s.store_path == tmp_path / "store"


def test_nested_env_override_really_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORTEX_RECALL__WEIGHTS__SIMILARITY", "0.6")
    monkeypatch.setenv("CORTEX_EMBEDDER__KIND", "hashing")
    s = load_settings(tmp_path)
    assert s.recall.weights.similarity == 0.6
    assert s.recall.weights.recency == 0.08  # siblings keep their defaults
    assert s.embedder.kind == "hashing"


def test_toml_file_is_read_and_env_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "config.toml").write_text(
        "[recall]\ndefault_limit = 7\n[recall.weights]\nsimilarity = 0.5\nrecency = 0.2\n"
        "[profiles.fresh]\nsimilarity = 0.3\nrecency = 0.4\n"
    )
    monkeypatch.setenv("CORTEX_RECALL__WEIGHTS__RECENCY", "0.1")
    s = load_settings(tmp_path)
    assert s.recall.default_limit == 7
    assert s.recall.weights.similarity == 0.5
    assert s.recall.weights.recency == 0.1
    assert s.weight_profile("fresh").recency == 0.4


def test_home_comes_from_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORTEX_HOME", str(tmp_path))
    assert load_settings().home == tmp_path


def test_invalid_weight_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORTEX_RECALL__WEIGHTS__TYPE", "-1")
    with pytest.raises(ConfigError, match=r"recall\.weights\.type.*CORTEX_RECALL__WEIGHTS__TYPE"):
        load_settings(tmp_path)


def test_broken_toml_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[recall\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(tmp_path)


def test_unknown_profile_lists_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="known profiles: default"):
        load_settings(tmp_path).weight_profile("nope")


def test_save_setting_keeps_other_keys(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[recall]\ndefault_limit = 7\n")
    save_setting(tmp_path, "embedder.kind", "hashing")
    s = load_settings(tmp_path)
    assert s.embedder.kind == "hashing"
    assert s.recall.default_limit == 7
