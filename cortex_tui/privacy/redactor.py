"""One text in, the same text with no secret and no `<private>` span out.

A secret becomes a typed placeholder (`[secret: AWS secret key]`): the memory keeps its
sense ("the staging deploys use AWS_SECRET_ACCESS_KEY=[secret: AWS secret key]") and the
placeholder says what was there, never the value. A `<private>…</private>` span is left
out whole (an unclosed one runs to the end of its paragraph: a person who marked it
meant it kept out, and a notes file's later paragraphs are not theirs to lose), whether
or not secret detection is on; the tag in backticks or quotes is a mention, not a mark.

Redacting is idempotent — a placeholder is never taken for a secret — so a text may pass
through the write path, the judge and the read guard in turn.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from cortex_tui.config import PrivacyConfig

if TYPE_CHECKING:
    from cortex_tui.privacy.detectors import SecretFinder, Span

PLACEHOLDER = "[secret: {kind}]"
_PLACEHOLDERS = re.compile(r"\[secret: [^\]\n]{1,60}\]")
_MARK = r"[ \t]*(?<![`'\"])<private>"
_PRIVATE = (
    re.compile(_MARK + r".*?</private>[ \t]*", re.IGNORECASE | re.DOTALL),
    re.compile(_MARK + r".*?(?=\n[ \t]*\n|\Z)[ \t]*", re.IGNORECASE | re.DOTALL),
)
"""A marked span, to its closing tag or, left open, to the end of its paragraph; the
tag in backticks or quotes is named (documentation, code), not a mark."""
_CACHED_CHARS = 4096
"""Texts up to this long are remembered with their result: the read guard sees the same
memories on every turn."""


@dataclass(frozen=True, slots=True)
class Redacted:
    """A text made safe to store, and what was taken out of it."""

    text: str
    kinds: tuple[str, ...] = ()
    """The kind of each secret replaced, in order (one entry per secret)."""
    private_spans: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.kinds or self.private_spans)

    def describe(self) -> str:
        """What was removed, for a decision record or a log line; never a value."""
        parts = []
        if self.kinds:
            counted = {kind: self.kinds.count(kind) for kind in self.kinds}
            named = ", ".join(k if n == 1 else f"{k} ×{n}" for k, n in counted.items())
            parts.append(f"{_count(len(self.kinds), 'secret')} replaced ({named})")
        if self.private_spans:
            parts.append(f"{_count(self.private_spans, 'span')} marked private left out")
        return "; ".join(parts)


class Redactor:
    """The privacy step every way into the store and out of it shares. Cheap to build:
    the detectors (and detect-secrets, ~90 ms to import) load on the first text that
    needs them, once per process, or ahead of it through `warm`."""

    def __init__(self, config: PrivacyConfig) -> None:
        self.config = config
        self._finder: SecretFinder | None = None
        self._loading = threading.Lock()
        self._allowed = tuple(a for a in config.allowed if a)
        self._cached = lru_cache(maxsize=8192)(self._redact)

    def warm(self) -> None:
        """Load the detectors now (the service does it in the background at start)."""
        if self.config.detect_secrets:
            self._secret_finder()

    def redact(self, text: str) -> Redacted:
        if len(text) <= _CACHED_CHARS:
            return self._cached(text)
        return self._redact(text)

    def clean(self, text: str) -> str:
        return self.redact(text).text

    def secrets_in(self, text: str) -> list[tuple[str, str]]:
        """Each secret in `text`: its value and kind (what `scrub` looks for again in
        the texts derived from it)."""
        text, _ = _without_private(text)
        return [(text[s.start : s.end], s.kind) for s in self._spans(text)]

    def _spans(self, text: str) -> list[Span]:
        if not self.config.detect_secrets:
            return []
        return [s for s in self._secret_finder().find(text) if self._counts(text, s)]

    def _redact(self, text: str) -> Redacted:
        text, private_spans = _without_private(text)
        spans = self._spans(text)
        if not spans:
            return Redacted(text, private_spans=private_spans)
        pieces: list[str] = []
        position = 0
        for span in spans:
            pieces.extend((text[position : span.start], PLACEHOLDER.format(kind=span.kind)))
            position = span.end
        pieces.append(text[position:])
        return Redacted("".join(pieces), tuple(s.kind for s in spans), private_spans)

    def _counts(self, text: str, span: Span) -> bool:
        """Whether a found span is a secret to replace: not a placeholder already, and
        not one of the strings the user allowed."""
        for placeholder in _PLACEHOLDERS.finditer(text, max(0, span.start - 80), span.end + 80):
            if placeholder.start() < span.end and span.start < placeholder.end():
                return False
        value = text[span.start : span.end]
        return not any(value in allowed for allowed in self._allowed)

    def _secret_finder(self) -> SecretFinder:
        if self._finder is None:
            with self._loading:
                if self._finder is None:
                    from cortex_tui.privacy.detectors import SecretFinder

                    self._finder = SecretFinder(self.config.patterns)
        return self._finder


class WithKnownValues(Redactor):
    """The privacy step that also replaces values found elsewhere, wherever they appear
    (`scrub`): a judge's reason written before secrets were kept out may quote a value
    in pieces — a URL's password among its other words — that no detector knows for one.
    Each line of a value of several lines counts too (a private key's lines). Values
    shorter than `MIN_CHARS` are left to the detectors (too common to replace)."""

    MIN_CHARS = 6

    LINE_CHARS = 16

    def __init__(self, config: PrivacyConfig, values: dict[str, str]) -> None:
        super().__init__(config)
        self._kinds = dict(values)
        for value, kind in values.items():  # a key's lines may be quoted one by one
            for line in value.splitlines():
                if len(line.strip()) >= self.LINE_CHARS:
                    self._kinds.setdefault(line.strip(), kind)
        longest_first = sorted((v for v in self._kinds if len(v) >= self.MIN_CHARS), key=len)
        longest_first.reverse()
        self._known = re.compile("|".join(map(re.escape, longest_first))) if longest_first else None

    def _spans(self, text: str) -> list[Span]:
        spans = super()._spans(text)
        if self._known is None:
            return spans
        from cortex_tui.privacy.detectors import Span

        for match in self._known.finditer(text):
            known = Span(match.start(), match.end(), self._kinds[match.group()])
            overlaps = any(s.start < known.end and known.start < s.end for s in spans)
            if not overlaps and self._counts(text, known):
                spans.append(known)
        return sorted(spans, key=lambda span: span.start)


def _without_private(text: str) -> tuple[str, int]:
    """`text` without its `<private>` spans, the words either side joined by one space."""
    if "<private>" not in text.casefold():  # the common case: no regex at all
        return text, 0
    count = 0

    def joined(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        before = match.string[match.start() - 1 : match.start()]
        after = match.string[match.end() : match.end() + 1]
        return " " if before.strip() and after.strip() else ""

    kept = text
    for spans in _PRIVATE:  # closed marks first: a span may hold blank lines
        kept = spans.sub(joined, kept)
    return (kept.strip(), count) if count else (text, 0)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
