"""Settings: `$CORTEX_HOME/config.toml`, overridden by `CORTEX_*` environment variables.

One module per group of sections (`archive.py`, `recall.py`, `write.py`, `models.py`, `storage.py`,
`serving.py`); `settings.py` holds them all and reads them. What the rest of the
package uses is named here, so `from cortex_tui.config import Settings` does not depend
on which module a section lives in; `docs/configuration.md`'s tables are made from the
models (`docs/settings_reference.py`).
"""

from cortex_tui.config.archive import ArchiveConfig
from cortex_tui.config.base import RelevanceFloor
from cortex_tui.config.models import EmbedderConfig, EmbedderKind, LLMConfig
from cortex_tui.config.recall import (
    MAX_PRIOR_WEIGHT,
    FusionMode,
    Normalisation,
    RecallConfig,
    RecallWeights,
)
from cortex_tui.config.serving import HooksConfig, InjectionsConfig
from cortex_tui.config.settings import Settings, load_settings, save_setting, with_override
from cortex_tui.config.storage import (
    COMPACT_AFTER,
    LimitsConfig,
    PrivacyConfig,
    StoreConfig,
)
from cortex_tui.config.write import (
    ContextConfig,
    GraphConfig,
    LifecycleConfig,
    PartsConfig,
    WritePathConfig,
)

__all__ = [
    "COMPACT_AFTER",
    "MAX_PRIOR_WEIGHT",
    "ArchiveConfig",
    "ContextConfig",
    "EmbedderConfig",
    "EmbedderKind",
    "FusionMode",
    "GraphConfig",
    "HooksConfig",
    "InjectionsConfig",
    "LLMConfig",
    "LifecycleConfig",
    "LimitsConfig",
    "Normalisation",
    "PartsConfig",
    "PrivacyConfig",
    "RecallConfig",
    "RecallWeights",
    "RelevanceFloor",
    "Settings",
    "StoreConfig",
    "WritePathConfig",
    "load_settings",
    "save_setting",
    "with_override",
]
