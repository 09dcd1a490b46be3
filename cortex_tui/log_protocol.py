"""The two logging calls the code a hook runs makes, as a type: a `logging.Logger` is
one, and so is the hook's own file log (`hooks/logs.py`), which the hook process uses
instead of `logging` to start faster. Imported for type checking only."""

from __future__ import annotations

from typing import Protocol


class Log(Protocol):
    def info(self, msg: str, *args: object) -> None: ...

    def warning(self, msg: str, *args: object) -> None: ...
