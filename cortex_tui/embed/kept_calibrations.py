"""Where a model's calibrations are kept: one JSON file per vector space, in a hidden
folder of the models folder (the catalogue never reads it as a model), written whole or
not at all. The write path's thresholds (`embed/calibration.py`) and the relevance
gate's cosine scale (`recall/gate_calibration.py`) each keep theirs here."""

from __future__ import annotations

import logging
import os
import re
import tempfile
from pathlib import Path

from cortex_tui.private import private_dir

log = logging.getLogger(__name__)


def kept_path(models_dir: Path, folder: str, embedder_name: str) -> Path:
    return models_dir / folder / (re.sub(r"[^A-Za-z0-9._-]", "_", embedder_name) + ".json")


def keep(models_dir: Path, folder: str, embedder_name: str, text: str, what: str) -> None:
    """Write `text` beside, then rename it in: a crash leaves the old file or none, never
    half of one. A models folder that cannot be written only costs a calibration next
    time (logged, naming `what`)."""
    staging: str | None = None
    try:
        private_dir(models_dir / folder)
        handle, staging = tempfile.mkstemp(dir=models_dir / folder, prefix=".", suffix=".json")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(staging, kept_path(models_dir, folder, embedder_name))
    except OSError as exc:
        log.warning("%s for %s is not kept: %s", what, embedder_name, exc)
        if staging is not None:
            Path(staging).unlink(missing_ok=True)
