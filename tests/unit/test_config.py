"""Settings: TOML file, CORTEX_* environment with nested `__` keys, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from cortex_tui.config import MAX_PRIOR_WEIGHT, RecallWeights, load_settings, save_setting
from cortex_tui.config.recall import LegacyWeightsWarning
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
    assert all(0 <= value <= MAX_PRIOR_WEIGHT for value in w.model_dump().values())
    assert "similarity" not in w.model_dump()  # relevance leads; it has no weight
    assert s.recall.supersession_penalty == 0.3
    assert s.recall.conflict_penalty == 0.8
    assert s.recall.budget_tokens == 2000
    assert s.store_path == tmp_path / "store"


def test_nested_env_override_really_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORTEX_RECALL__WEIGHTS__TYPE", "0.3")
    monkeypatch.setenv("CORTEX_EMBEDDER__KIND", "hashing")
    s = load_settings(tmp_path)
    assert s.recall.weights.type == 0.3
    assert s.recall.weights.recency == RecallWeights().recency  # siblings keep defaults
    assert s.embedder.kind == "hashing"


def test_toml_file_is_read_and_env_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "config.toml").write_text(
        "[recall]\ndefault_limit = 7\n[recall.weights]\ntype = 0.3\nrecency = 0.2\n"
        "[profiles.fresh]\nrecency = 0.4\n"
    )
    monkeypatch.setenv("CORTEX_RECALL__WEIGHTS__RECENCY", "0.1")
    s = load_settings(tmp_path)
    assert s.recall.default_limit == 7
    assert s.recall.weights.type == 0.3
    assert s.recall.weights.recency == 0.1
    assert s.weight_profile("fresh").recency == 0.4


def test_a_weight_table_of_the_additive_score_is_mapped_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        "[profiles.fresh]\nsimilarity = 0.4\nrecency = 0.1\ntype = 0.3\nscope = 0\n"
    )
    with pytest.warns(LegacyWeightsWarning, match="weight ÷ similarity") as caught:
        fresh = load_settings(tmp_path).weight_profile("fresh")
    assert "recency 0.25" in str(caught[0].message)
    assert (fresh.recency, fresh.type, fresh.scope) == (0.25, MAX_PRIOR_WEIGHT, 0)
    assert fresh.frequency == RecallWeights().frequency  # unset keys keep the defaults


def test_a_prior_weight_above_the_bound_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORTEX_RECALL__WEIGHTS__RECENCY", "0.9")
    with pytest.raises(ConfigError, match=r"recall\.weights\.recency.*less than or equal to 0\.5"):
        load_settings(tmp_path)


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
