"""A word-level diff of two versions of a memory, as styled `Content`.

Memories are prose and change a word or a number at a time ("60 requests/minute" →
"100 requests/minute"); a line diff would mark the whole sentence. Words are compared
with `difflib`, whitespace is kept as it was, and the colours are the theme variables
`$diff-added` / `$diff-removed`. Removed words are also struck through and added ones
bold, so the diff reads without colour too; the shape and the colour are separate spans,
so a theme without the colour variables still shows the shape.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from textual.content import Content

ADDED = ("bold", "$diff-added")
REMOVED = ("strike", "$diff-removed")

_TOKENS = re.compile(r"\s+|\S+")

REWRITE_RATIO = 0.3
"""Below this share of words in common the new version is a rewrite, not an edit: a word
diff of two different sentences is a soup of struck and bold words, so it is shown plain
(the older version is listed right below it)."""


@dataclass(frozen=True)
class WordDiff:
    """The diff to show, how many words went in and out (for a one-line summary), and
    whether the change was a rewrite (then `content` is the new text, unmarked)."""

    content: Content
    added: int
    removed: int
    rewritten: bool = False


def _marked(text: str, style: tuple[str, str]) -> Content:
    shape, colour = style
    return Content.styled(text, shape).stylize(colour)


def _words(tokens: list[str]) -> int:
    return sum(1 for token in tokens if not token.isspace())


def word_diff(old: str, new: str) -> WordDiff:
    """`new` with the words `old` lacked marked added and the words it lost marked removed.

    Content is built from plain strings (never parsed as markup), so memory text such as
    `[harbor] [ingest]` shows intact.
    """
    before, after = _TOKENS.findall(old), _TOKENS.findall(new)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    parts: list[Content] = []
    added = removed = 0
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            parts.append(Content("".join(after[j1:j2])))
            continue
        if op in ("delete", "replace"):
            removed += _words(before[i1:i2])
            parts.append(_marked("".join(before[i1:i2]), REMOVED))
        if op == "replace":
            parts.append(Content(" "))
        if op in ("insert", "replace"):
            added += _words(after[j1:j2])
            parts.append(_marked("".join(after[j1:j2]), ADDED))
    words = difflib.SequenceMatcher(None, new.split(), old.split(), autojunk=False)
    if words.ratio() < REWRITE_RATIO:
        return WordDiff(Content(new), added, removed, rewritten=True)
    return WordDiff(Content("").join(parts), added, removed)
