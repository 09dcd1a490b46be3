"""What a CLI command needs: settings, a lazily opened engine, and output helpers."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from cortex_tui.engine.local import LocalEngine

from cortex_tui.config import Settings, load_settings
from cortex_tui.engine.protocol import Engine
from cortex_tui.errors import InvalidInputError
from cortex_tui.untrusted.text import decode_bytes


class CommandContext:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self._engine: Engine | None = None

    @cached_property
    def settings(self) -> Settings:
        home = Path(self.args.home).expanduser() if self.args.home else None
        return load_settings(home)

    @property
    def engine(self) -> Engine:
        """The service's engine (started when needed), or in-process with --no-daemon."""
        if self._engine is None:
            from cortex_tui.engine.connect import connect_engine

            daemon = False if getattr(self.args, "no_daemon", False) else None
            self._engine = connect_engine(self.settings, daemon=daemon)
        return self._engine

    @property
    def local_engine(self) -> LocalEngine:
        """An engine in this process, for work that needs the store itself (indexing,
        loading the demo, building the index); a running service is stopped first."""

        from cortex_tui.engine.local import LocalEngine as InProcess

        if not isinstance(self._engine, InProcess):
            from cortex_tui.engine.open import open_engine

            self.stop_service("to open the store here")
            self._engine = open_engine(self.settings)
        return self._engine

    def stop_service(self, purpose: str) -> None:
        """Stop a running service so this process may own the store, saying so."""
        from cortex_tui.engine.connect import stop_service_for_exclusive_use

        if stop_service_for_exclusive_use(self.settings):
            print(f"stopped the cortex-tui service {purpose}", file=sys.stderr)

    @property
    def json(self) -> bool:
        return bool(getattr(self.args, "json", False))

    def now(self) -> datetime:
        return self._engine.now() if self._engine else datetime.now().astimezone()

    def emit(self, data: Any, text: str) -> None:
        """Print `data` as JSON under --json, else `text`."""
        if self.json:
            print(json.dumps(to_jsonable(data), ensure_ascii=False, indent=2))
        elif text:
            print(text)

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()
            self._engine = None


def to_jsonable(data: Any) -> Any:
    if isinstance(data, BaseModel):
        return data.model_dump(mode="json")
    if isinstance(data, list):
        return [to_jsonable(item) for item in data]
    if isinstance(data, dict):
        return {key: to_jsonable(value) for key, value in data.items()}
    return data


def parse_time(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInputError(
            f"--as-of {value!r} is not an ISO time; use e.g. 2026-05-01 or 2026-05-01T12:00Z"
        ) from None
    return parsed if parsed.tzinfo else parsed.astimezone()


def read_text_arg(value: str) -> str:
    """The argument, or standard input for "-" (invalid UTF-8 there becomes U+FFFD, as
    it does in arguments: see `run`)."""
    return decode_bytes(sys.stdin.buffer.read()) if value == "-" else value
