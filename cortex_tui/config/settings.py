"""Settings: `$CORTEX_HOME/config.toml`, overridden by `CORTEX_*` environment variables.

Nested keys use `__` (`CORTEX_RECALL__WEIGHTS__SIMILARITY=0.5`). Each section is a model
of its own module in this package; `Settings` holds them all."""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    Field,
    ValidationError,
    field_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from cortex_tui.config.archive import ArchiveConfig
from cortex_tui.config.models import EmbedderConfig, LLMConfig
from cortex_tui.config.recall import RecallConfig, RecallWeights
from cortex_tui.config.serving import HooksConfig, InjectionsConfig, ServiceConfig, TenantsConfig
from cortex_tui.config.storage import BackupConfig, LimitsConfig, PrivacyConfig, StoreConfig
from cortex_tui.config.write import (
    ContextConfig,
    GraphConfig,
    LifecycleConfig,
    PartsConfig,
    WritePathConfig,
)
from cortex_tui.errors import ConfigError, InvalidInputError
from cortex_tui.paths import default_home
from cortex_tui.private import open_private, private_dir


class Settings(BaseSettings):
    """All settings. Build with `load_settings()`, which resolves `CORTEX_HOME` first."""

    model_config = SettingsConfigDict(
        env_prefix="CORTEX_",
        env_nested_delimiter="__",
        extra="ignore",
        validate_assignment=True,
    )

    home: Path = Field(
        default_factory=default_home,
        description="the data home: store, spool, logs, models, config.toml (CORTEX_HOME)",
    )
    recall: RecallConfig = Field(default_factory=RecallConfig)
    embedder: EmbedderConfig = Field(default_factory=EmbedderConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    parts: PartsConfig = Field(default_factory=PartsConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    write: WritePathConfig = Field(default_factory=WritePathConfig)
    graph: GraphConfig = Field(default_factory=GraphConfig)
    lifecycle: LifecycleConfig = Field(default_factory=LifecycleConfig)
    backup: BackupConfig = Field(default_factory=BackupConfig)
    hooks: HooksConfig = Field(default_factory=HooksConfig)
    injections: InjectionsConfig = Field(default_factory=InjectionsConfig)
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    service: ServiceConfig = Field(default_factory=ServiceConfig)
    tenants: TenantsConfig = Field(default_factory=TenantsConfig)
    privacy: PrivacyConfig = Field(default_factory=PrivacyConfig)
    archive: ArchiveConfig = Field(default_factory=ArchiveConfig)
    daemon: bool = Field(
        default=True,
        description="reach the engine through the local service (CORTEX_DAEMON=0: in-process)",
    )
    profiles: dict[str, RecallWeights] = Field(
        default_factory=dict,
        description=(
            "named weight profiles ([profiles.NAME], the keys of recall.weights) for `recall "
            "--profile` and the TUI"
        ),
    )
    url: str | None = Field(
        default=None,
        pattern=r"^https?://[^\s/]+(/\S*)?$",
        description="a cortex-tui server to use instead of this machine's store "
        "(CORTEX_URL, e.g. https://memory.example.com:8765); needs api_key",
    )
    api_key: str | None = Field(
        default=None, description="the key a server gave this machine's user (CORTEX_API_KEY)"
    )
    ca_cert: Path | None = Field(
        default=None,
        description="a certificate (PEM) to trust for `url`, for a server whose certificate "
        "no public authority signed (CORTEX_CA_CERT)",
    )

    @field_validator("url", "api_key", "ca_cert", mode="before")
    @classmethod
    def _unset_when_empty(cls, value: object) -> object:
        """`CORTEX_URL=` (set to nothing) means none, as for an unset variable."""
        return None if isinstance(value, str) and not value.strip() else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_file = _config_path_for_env()
        return (
            init_settings,
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=toml_file),
        )

    @property
    def config_path(self) -> Path:
        return self.home / "config.toml"

    @property
    def store_path(self) -> Path:
        return self.home / "store"

    @property
    def backups_path(self) -> Path:
        return self.backup.folder or self.home / "backups"

    @property
    def models_path(self) -> Path:
        return self.embedder.models_dir or self.home / "models"

    def weight_profile(self, name: str | None) -> RecallWeights:
        """The named profile's weights; None or "default" means `recall.weights`."""
        if name in (None, "default"):
            return self.recall.weights
        try:
            return self.profiles[name]
        except KeyError:
            known = ", ".join(["default", *sorted(self.profiles)])
            raise ConfigError(f"unknown weight profile {name!r}; known profiles: {known}") from None


def _config_path_for_env() -> Path:
    return default_home() / "config.toml"


def load_settings(home: Path | None = None, **overrides: Any) -> Settings:
    """Load settings for `home` (default: `CORTEX_HOME` or the platform dir).

    Raises `ConfigError` with the offending key instead of a pydantic traceback.
    """
    previous = os.environ.get("CORTEX_HOME")
    if home is not None:
        os.environ["CORTEX_HOME"] = str(home)
    try:
        config_file = _config_path_for_env()
        if config_file.exists():
            _check_toml(config_file)
        return Settings(**overrides)
    except ValidationError as exc:
        raise ConfigError(_describe_validation_error(exc)) from None
    finally:
        if home is not None:
            if previous is None:
                os.environ.pop("CORTEX_HOME", None)
            else:
                os.environ["CORTEX_HOME"] = previous


def _check_toml(path: Path) -> None:
    try:
        tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix or remove the file") from None


def _describe_validation_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    location = ".".join(str(part) for part in first["loc"]) or "settings"
    env_name = "CORTEX_" + "__".join(str(part).upper() for part in first["loc"])
    return (
        f"invalid setting {location}: {first['msg']} "
        f"(check config.toml or the environment variable {env_name})"
    )


def save_setting(home: Path, dotted_key: str, value: Any) -> Path:
    """Set one key of `home/config.toml`, keeping the rest; atomic (temp file + rename)."""
    import tomli_w

    path = home / "config.toml"
    data: dict[str, Any] = {}
    if path.exists():
        _check_toml(path)
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    node = data
    *parents, leaf = dotted_key.split(".")
    for part in parents:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"{path}: {part} is not a table; fix the file by hand")
        node = child
    node[leaf] = value
    private_dir(home)
    tmp = path.with_suffix(".toml.tmp")
    with open_private(tmp, "wb") as handle:
        tomli_w.dump(data, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    return path


def setting_keys(section: str) -> list[str]:
    """Every dotted key under one top-level section, e.g. `recall.weights.similarity`."""

    def walk(model: type[BaseModel], prefix: str) -> list[str]:
        keys = []
        for name, field in model.model_fields.items():
            nested = field.annotation
            if isinstance(nested, type) and issubclass(nested, BaseModel):
                keys.extend(walk(nested, f"{prefix}{name}."))
            else:
                keys.append(prefix + name)
        return keys

    annotation = Settings.model_fields[section].annotation
    assert isinstance(annotation, type) and issubclass(annotation, BaseModel)
    return walk(annotation, f"{section}.")


def with_override(settings: Settings, key: str, value: str, sections: Sequence[str]) -> Settings:
    """A copy of `settings` with one dotted key set from text, validated as config.toml is.

    Only keys under `sections` may change (an eval variant, say, must not change the
    embedder its shared store was built with). The text is coerced by the field's type
    ("0.3" → 0.3, "true" → True); a bad key or value raises `InvalidInputError` naming it.
    """
    known = [k for section in sections for k in setting_keys(section)]
    if key not in known:
        inner = [k for k in known if k.startswith(key + ".")]
        if inner:
            raise InvalidInputError(f"{key} is a section; set one of its keys, e.g. {inner[0]}")
        close = difflib.get_close_matches(key, known, n=1)
        hint = f"did you mean {close[0]}?" if close else f"keys start with {' or '.join(sections)}"
        raise InvalidInputError(f"unknown setting {key!r}; {hint}")
    copy = settings.model_copy(deep=True)
    *parents, leaf = key.split(".")
    node: BaseModel = copy
    for part in parents:
        node = getattr(node, part)
    try:
        setattr(node, leaf, value)
    except ValidationError as exc:
        raise InvalidInputError(
            f"invalid value {value!r} for {key}: {exc.errors()[0]['msg']}"
        ) from None
    return copy
