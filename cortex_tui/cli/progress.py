"""A one-line progress bar on a terminal, redrawn in place (`\\r`, erase to end of line).

Plain text rather than rich: the CLI stays free of the TUI's rendering stack (the layer
contracts forbid it), and one redrawn line is all a long command needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

_WIDTH = 30


class ProgressBar:
    """Call with (done, total, what). `keep_finished` ends a full bar with a newline so
    it stays on screen; otherwise the next phase draws over it and `clear()` removes it."""

    def __init__(self, stream: TextIO, *, keep_finished: bool = True) -> None:
        self._stream = stream
        self._keep_finished = keep_finished

    def __call__(self, done: int, total: int, what: str) -> None:
        filled = _WIDTH * done // total if total else _WIDTH
        bar = "#" * filled + "." * (_WIDTH - filled)
        self._stream.write(f"\r[{bar}] {done}/{total} {what[-50:]}\x1b[K")
        if done >= total and self._keep_finished:
            self._stream.write("\n")
        self._stream.flush()

    def clear(self) -> None:
        self._stream.write("\r\x1b[K")
        self._stream.flush()


def terminal_progress(stream: TextIO, *, keep_finished: bool = True) -> ProgressBar | None:
    """A bar when `stream` is a terminal; None for pipes and files (no control codes)."""
    return ProgressBar(stream, keep_finished=keep_finished) if stream.isatty() else None


def phase_progress(stream: TextIO, what: str, *, quiet: bool) -> Callable[[int, int], None] | None:
    """A (done, total) callback drawing one named phase on a bar; None under `quiet`
    (`--json`) or when `stream` is not a terminal."""
    bar = None if quiet else terminal_progress(stream)
    if bar is None:
        return None
    return lambda done, total: bar(done, total, what)
