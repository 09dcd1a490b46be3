"""Markdown → sections: the heading tree (H1–H4) a document's chunks are filed under.

Only what chunking needs is parsed, following CommonMark where it matters:
- ATX headings (`#` to `####`, up to three spaces of indent, optional closing `#`s);
  H5/H6 are too fine to file chunks under and stay in their section's text;
- fenced code blocks (``` and ~~~, closed by the same character at least as long): a
  `#` line inside a fence is code, not a heading; an unclosed fence runs to the end;
- text before the first heading, or a file with no heading, is a section with an empty
  heading path;
- a YAML front matter block (`---` … `---` on the first lines) is metadata, not prose,
  and is skipped.
Setext headings (text underlined with `===` / `---`) are not recognised: `---` also
means a thematic break, and ATX is what current docs use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_SLUG_DROP = re.compile(r"[^\w\- ]")
MAX_SECTION_LEVEL = 4


@dataclass(frozen=True, slots=True)
class Section:
    """The text under one heading, up to the next H1–H4 heading.

    `path` holds the heading titles from the top level down (empty before the first
    heading); `slug` is the GitHub-style anchor of the deepest heading ("" when none).
    """

    path: tuple[str, ...]
    slug: str
    body: str


@dataclass(frozen=True, slots=True)
class Fence:
    char: str
    length: int

    @classmethod
    def opening(cls, line: str) -> Fence | None:
        match = _FENCE.match(line)
        if match is None:
            return None
        marker = match.group(1)
        if marker[0] == "`" and "`" in line[match.end() :]:
            return None  # a backtick fence's info string cannot contain backticks
        return cls(marker[0], len(marker))

    def closed_by(self, line: str) -> bool:
        match = _FENCE.match(line)
        return (
            match is not None
            and match.group(1)[0] == self.char
            and len(match.group(1)) >= self.length
            and not line[match.end() :].strip()
        )


def parse_sections(text: str) -> list[Section]:
    """Sections in document order; sections whose body is blank are left out (their
    titles live on in their subsections' paths)."""
    lines = text.splitlines()
    lines = lines[front_matter_end(lines) :]
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    slug = ""
    body: list[str] = []
    slugs = _SlugCounter()
    fence: Fence | None = None

    def close() -> None:
        if "".join(body).strip():
            sections.append(Section(tuple(t for _, t in stack if t), slug, "\n".join(body)))

    for line in lines:
        if fence is not None:
            if fence.closed_by(line):
                fence = None
        else:
            fence = Fence.opening(line)
            heading = None if fence else _heading(line)
            if heading is not None:
                level, title = heading
                close()
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, title))
                slug, body = slugs.next(title), []
                continue
        body.append(line)
    close()
    return sections


def atx_heading(line: str) -> tuple[int, str] | None:
    """(level 1–6, title without closing `#`s) when the line is an ATX heading."""
    match = _HEADING.match(line)
    if match is None:
        return None
    return len(match.group(1)), _CLOSING_HASHES.sub("", match.group(2) or "").strip()


def front_matter_end(lines: list[str]) -> int:
    """Index of the first line after a YAML front matter block (0 when there is none)."""
    if not lines or lines[0].strip() != "---":
        return 0
    for end, line in enumerate(lines[1:], 1):
        if line.strip() in ("---", "..."):
            return end + 1
    return 0


def _heading(line: str) -> tuple[int, str] | None:
    heading = atx_heading(line)
    if heading is None or heading[0] > MAX_SECTION_LEVEL:
        return None
    return heading[0], _LINK.sub(r"\1", heading[1])


class _SlugCounter:
    """GitHub's anchors: lowercase, punctuation dropped, spaces → `-`, repeats numbered."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def next(self, title: str) -> str:
        base = _SLUG_DROP.sub("", title.lower()).replace(" ", "-")
        count = self._seen.get(base, 0)
        self._seen[base] = count + 1
        return base if count == 0 else f"{base}-{count}"
