"""What the docs' tests read: the pages, README, and the parts of Markdown they check."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "cortex_tui" / "docs"
DOCUMENTS = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]
"""Everything a reader is sent to: README and every page."""


def document_id(document: Path) -> str:
    return str(document.relative_to(REPO))


FENCE = re.compile(r"^(```+|~~~+)")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class CodeBlock:
    document: Path
    line: int
    """1-based line of the opening fence."""
    language: str
    text: str
    mark: str
    """The `<!-- not run: … -->` or `<!-- setup: … -->` line just before the fence, or ''."""

    @property
    def name(self) -> str:
        return f"{self.document.relative_to(REPO)}:{self.line}"


def code_blocks(document: Path) -> list[CodeBlock]:
    lines = document.read_text(encoding="utf-8").split("\n")
    blocks: list[CodeBlock] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence = opening.group(1)
        end = index + 1
        while end < len(lines) and not lines[end].startswith(fence):
            end += 1
        before = lines[index - 1] if index else ""
        mark = before if before.startswith("<!--") else ""
        language = lines[index][len(fence) :].strip()
        text = "\n".join(lines[index + 1 : end])
        blocks.append(CodeBlock(document, index + 1, language, text, mark))
        index = end + 1
    return blocks


def prose(document: Path) -> str:
    """The document without its code blocks (whose `#` lines are comments, not headings)."""
    text = document.read_text(encoding="utf-8")
    kept: list[str] = []
    inside: str | None = None
    for line in text.split("\n"):
        opening = FENCE.match(line)
        if inside is None and opening:
            inside = opening.group(1)
        elif inside is not None and line.startswith(inside):
            inside = None
        elif inside is None:
            kept.append(line)
    return "\n".join(kept)


def anchors(document: Path) -> set[str]:
    """The `#anchors` GitHub gives the document's headings."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in prose(document).split("\n"):
        heading = re.match(r"^#{1,6} (.+)$", line)
        if not heading:
            continue
        slug = github_slug(heading.group(1))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def github_slug(heading: str) -> str:
    """Lower case; letters, digits, spaces, '-' and '_' kept; each space a '-'."""
    kept = "".join(
        char
        for char in heading.strip().lower()
        if char in " -_" or unicodedata.category(char)[0] in "LN"
    )
    return kept.replace(" ", "-")


def links(document: Path) -> list[str]:
    return LINK.findall(prose(document))
