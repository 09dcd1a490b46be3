"""The hooks' own log: the only place a hook may say what went wrong."""

from __future__ import annotations

import logging
from logging.handlers import RotatingFileHandler
from pathlib import Path

from cortex_tui.private import private_dir

LOGGER = "cortex_tui.hooks"


def hook_logger(home: Path) -> logging.Logger:
    log = logging.getLogger(LOGGER)
    if not log.handlers:
        try:
            folder = home / "logs"
            private_dir(folder)
            handler: logging.Handler = RotatingFileHandler(
                folder / "hooks.log", maxBytes=1_000_000, backupCount=3, encoding="utf-8"
            )
        except OSError:
            handler = logging.NullHandler()  # an unwritable home must not break the agent
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
    return log
