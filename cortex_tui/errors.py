"""The project's exception hierarchy.

Every error a user can cause derives from `CortexError` and carries a one-line message
that names the problem and the fix, so surfaces can print it as-is and exit non-zero
without a traceback.
"""

from __future__ import annotations


class CortexError(Exception):
    """Base of every error cortex-tui raises on purpose."""

    exit_code = 1


class ConfigError(CortexError):
    """Configuration is invalid (bad TOML, out-of-range weight, unknown option)."""


class InvalidInputError(CortexError):
    """A request's input is invalid (empty content, unknown type, malformed JSONL)."""

    exit_code = 2


class TooLargeError(InvalidInputError):
    """A request is over one of the configured size limits (`limits.*`); the service
    answers 413."""


class NotFoundError(CortexError):
    """A memory, entity or other object named by id does not exist."""


class AmbiguousIdError(CortexError):
    """A short id prefix matches more than one object."""

    exit_code = 2


class StoreError(CortexError):
    """The store cannot be opened or used."""


class ServiceUnreachableError(StoreError):
    """Nothing answered on the service's socket, so the request was never sent (safe to
    send again once a service runs)."""


class StoreLockedError(StoreError):
    """Another process owns the store."""


class StoreDamagedError(StoreError):
    """The store's files do not hold what was written to them (cut, deleted, garbled)."""

    def __init__(self, message: str, what: str = "") -> None:
        super().__init__(message)
        self.what = what or message
        """What is wrong, without the way out (for reports that give the way out apart)."""


class EmbedderMismatchError(StoreError):
    """The store was built by a different embedder than the one configured."""

    def __init__(self, message: str, recorded: str = "") -> None:
        super().__init__(message)
        self.recorded = recorded
        """The embedder the store records."""


class EmbedderError(CortexError):
    """The embedder cannot produce vectors (model missing, Ollama down)."""
