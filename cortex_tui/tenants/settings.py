"""A tenant's settings (or a team's shared store's): the server's, with a data home of its
own.

Everything a tenant's requests can write lands under that home: its store (or, on a
Qdrant server, collections of its own), spool, logs and backups — a `backup.folder` the
server's config names is the server owner's, never shared. The only settings a tenant
keeps for itself are the recall weight profiles it saved (`PUT /v1/profiles/NAME`
writes them to its home's config.toml); whatever else that file says is ignored, so a
tenant cannot change how the server runs.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cortex_tui.config import RecallWeights, Settings
from cortex_tui.errors import ConfigError


def tenant_settings(server: Settings, data_home: Path, collections: str) -> Settings:
    """`collections`: what names its collections on a Qdrant server apart (after the
    server's prefix): `t-NAME` for a tenant, `team-NAME` for a team's shared store."""
    update: dict[str, Any] = {
        "home": data_home,
        "backup": server.backup.model_copy(update={"folder": None}),
        "store": server.store.model_copy(
            update={"collection_prefix": f"{server.store.collection_prefix}-{collections}"}
        ),
        "embedder": server.embedder.model_copy(update={"models_dir": server.models_path}),
    }
    weights, profiles = _saved_profiles(data_home / "config.toml")
    if weights is not None:
        update["recall"] = server.recall.model_copy(update={"weights": weights})
    update["profiles"] = {**server.profiles, **profiles}
    return server.model_copy(update=update, deep=True)


def _saved_profiles(path: Path) -> tuple[RecallWeights | None, dict[str, RecallWeights]]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix or remove the file") from None
    try:
        recall = data.get("recall", {})
        weights = recall.get("weights") if isinstance(recall, dict) else None
        saved = data.get("profiles", {})
        return (
            RecallWeights.model_validate(weights) if weights is not None else None,
            {key: RecallWeights.model_validate(value) for key, value in saved.items()},
        )
    except (ValidationError, AttributeError) as exc:
        raise ConfigError(f"{path}: a saved weight profile is not valid ({exc})") from None
