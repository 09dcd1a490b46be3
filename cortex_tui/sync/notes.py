"""A notes file (MEMORY.md, CLAUDE.md, a daily log) → the statements it holds.

Notes are kept as bullets and short paragraphs under headings, one fact or rule each,
so a statement is the unit of sync (the markdown indexer, by contrast, cuts documents
into ~800-character chunks):

- a list item is one statement, with its continuation lines and its nested items (a
  nested item details its parent and means little alone), up to `MAX_CHARS`;
- a paragraph (lines up to a blank line) is one statement;
- a fenced code block joins the statement right before it when nothing or only a blank
  line after a `:` separates them ("Deploy with:" + the command), else stands alone;
- headings (`#` to `######`) are not statements: they give the statements under them
  their heading path, from which type and tags come (`note_type`, `note_tags`);
- front matter, HTML comments and thematic breaks (`---`) are skipped.

A statement's identity is the hash of its text with whitespace collapsed: moving a line
to another place or section is not a change, and editing one character is.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from cortex_tui.indexer.markdown import Fence, atx_heading, front_matter_end
from cortex_tui.models import MemoryType

MAX_CHARS = 2000
"""A statement longer than this (a list item with a long tail) is cut into several."""

_ITEM = re.compile(r"^(?P<indent>[ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Note:
    """One statement of a notes file: where it starts (1-based line), its text as a
    memory holds it, and the headings it sits under (outermost first)."""

    line: int
    text: str
    headings: tuple[str, ...]

    @property
    def sha(self) -> str:
        return text_hash(self.text)


def text_hash(text: str) -> str:
    return hashlib.sha256(_SPACES.sub(" ", text).strip().encode()).hexdigest()[:12]


@dataclass
class _Open:
    """The statement being read."""

    line: int
    lines: list[str]
    item_indent: int | None  # the indent of its list marker; None for a paragraph or code
    ended_by_blank: bool = False

    @property
    def chars(self) -> int:
        return sum(len(x) + 1 for x in self.lines)


@dataclass
class _Reader:
    notes: list[Note] = field(default_factory=list)
    headings: list[tuple[int, str]] = field(default_factory=list)
    open: _Open | None = None

    def close(self) -> None:
        if self.open is None:
            return
        text = "\n".join(self.open.lines).strip()
        if _has_words(text):
            path = tuple(title for _, title in self.headings if title)
            self.notes.append(Note(self.open.line, text, path))
        self.open = None

    def heading(self, level: int, title: str) -> None:
        self.close()
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, title))


def parse_notes(text: str) -> list[Note]:
    """The statements of a notes file, in file order."""
    lines = text.splitlines()
    reader = _Reader()
    number = front_matter_end(lines)
    fence: Fence | None = None
    comment = False
    while number < len(lines):
        line = lines[number]
        number += 1
        if fence is not None:
            assert reader.open is not None
            reader.open.lines.append(line)
            if fence.closed_by(line):
                fence = None
            continue
        if comment or line.lstrip().startswith("<!--"):
            comment = "-->" not in line
            continue
        if (opening := Fence.opening(line)) is not None:
            fence = opening
            _open_code(reader, number, line)
            continue
        if not line.strip():
            if reader.open is not None:
                reader.open.ended_by_blank = True
            continue
        if (heading := atx_heading(line)) is not None:
            reader.heading(*heading)
            continue
        if _BREAK.match(line):
            reader.close()
            continue
        _read_line(reader, number, line)
    reader.close()
    return reader.notes


def _read_line(reader: _Reader, number: int, line: str) -> None:
    item = _ITEM.match(line)
    current = reader.open
    if item is not None:
        indent = len(item["indent"].expandtabs(4))
        if (
            current is not None
            and current.item_indent is not None
            and indent > current.item_indent
            and current.chars + len(line) <= MAX_CHARS
        ):
            current.lines.append(line.rstrip())  # a nested item details its parent
            current.ended_by_blank = False
            return
        reader.close()
        reader.open = _Open(number, [line[item.end() :].strip()], indent)
        return
    loose_item = current is not None and current.item_indent is not None and line[:1].isspace()
    if current is not None and (not current.ended_by_blank or loose_item):
        if current.chars + len(line) > MAX_CHARS:
            reader.close()
            reader.open = _Open(number, [line.strip()], None)
            return
        if current.item_indent is not None and len(current.lines) > 1:
            current.lines.append(line.rstrip())  # under nested items: keep the layout
        else:
            current.lines[-1] = f"{current.lines[-1]} {line.strip()}".strip()
        current.ended_by_blank = False
        return
    reader.close()
    reader.open = _Open(number, [line.strip()], None)


def _open_code(reader: _Reader, number: int, line: str) -> None:
    """A fence opens: join the statement before it, or start one of its own."""
    current = reader.open
    joins = current is not None and (
        not current.ended_by_blank or current.lines[-1].rstrip().endswith(":")
    )
    if current is not None and joins:
        current.lines.append(line.rstrip())
        current.ended_by_blank = False
        return
    reader.close()
    reader.open = _Open(number, [line.rstrip()], None)


def _has_words(text: str) -> bool:
    """Whether a statement says anything: "- [ ]" or a lone "|---|" does not."""
    return any(ch.isalnum() for ch in text)


_TYPE_WORDS: tuple[tuple[MemoryType, frozenset[str]], ...] = (
    (
        MemoryType.RULE,
        frozenset(
            "rule rules convention conventions guideline guidelines policy policies standard "
            "standards constraint constraints must never always dont don't style".split()
        ),
    ),
    (
        MemoryType.PROCEDURE,
        frozenset(
            "procedure procedures how howto steps workflow workflows runbook runbooks "
            "playbook setup install commands recipe recipes checklist".split()
        ),
    ),
    (
        MemoryType.PREFERENCE,
        frozenset("preference preferences prefer likes dislikes favourite favorite".split()),
    ),
    (
        MemoryType.EPISODE,
        frozenset("log journal timeline today yesterday done changelog standup".split()),
    ),
    (
        MemoryType.FACT,
        frozenset("fact facts decision decisions architecture context stack glossary".split()),
    ),
)
_WORD = re.compile(r"[a-z']+")
_TAG_DROP = re.compile(r"[^a-z0-9]+")
MAX_TAGS = 4


def note_type(headings: tuple[str, ...]) -> MemoryType | None:
    """The type the nearest telling heading gives ("Conventions" → rule, "How to
    release" → procedure); None leaves it to the classifier."""
    for title in reversed(headings):
        words = set(_WORD.findall(title.lower()))
        for kind, telling in _TYPE_WORDS:
            if words & telling:
                return kind
    return None


def note_tags(headings: tuple[str, ...]) -> list[str]:
    """The heading path as tags ("Conventions > Python" → conventions, python): the
    innermost `MAX_TAGS` headings, so a deep outline does not flood the tags."""
    tags = [_TAG_DROP.sub("-", title.lower()).strip("-")[:40] for title in headings]
    return [tag for tag in tags[-MAX_TAGS:] if tag]
