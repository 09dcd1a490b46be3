"""Section text → chunks of about `target` characters, overlapping, code fences kept whole.

A chunk is what one memory holds, so it should be one retrievable idea: about 800
characters fits the embedded model's input (256 word pieces) with room for the heading
path that is prefixed to it.

- The text is cut into blocks: paragraphs (split at blank lines) and fenced code blocks.
- Blocks are packed greedily up to `target`. A code block is never split when it fits
  in `2 × target` (an oversized chunk beats code cut mid-function); a longer one is cut
  at line boundaries, each piece re-wrapped in the fence so it stays valid markdown.
  A paragraph longer than `target` is cut at sentences, then words.
- Each chunk after the first starts with the last ~`overlap` characters of the previous
  one (from a word boundary), so a statement cut at a chunk edge is whole in one of
  them. Code is never used as overlap: a code tail without its fence reads as prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cortex_tui.indexer.markdown import Fence

TARGET_CHARS = 800
OVERLAP_CHARS = 100
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True, slots=True)
class _Block:
    text: str
    code: bool


def chunk_text(text: str, target: int = TARGET_CHARS, overlap: int = OVERLAP_CHARS) -> list[str]:
    """The chunks of one section's text (none when it is blank)."""
    # Cut prose to leave room for the overlap a chunk starts with.
    limit = target - overlap if target > 2 * overlap else target
    pieces = [p for block in _blocks(text) for p in _fit(block, target, limit)]
    chunks: list[list[_Block]] = []
    size = 0
    for piece in pieces:
        if chunks and size + len(piece.text) + 2 <= target:
            chunks[-1].append(piece)
            size += len(piece.text) + 2
            continue
        tail = _tail(chunks[-1][-1], overlap) if chunks else ""
        start = [_Block(tail, code=False)] if tail and not piece.code else []
        chunks.append([*start, piece])
        size = sum(len(b.text) + 2 for b in chunks[-1])
    return ["\n\n".join(b.text for b in chunk) for chunk in chunks]


def _blocks(text: str) -> list[_Block]:
    blocks: list[_Block] = []
    lines: list[str] = []
    fence: Fence | None = None

    def flush(code: bool) -> None:
        joined = "\n".join(lines).strip("\n")
        if joined.strip():
            blocks.append(_Block(joined, code))
        lines.clear()

    for line in text.splitlines():
        if fence is not None:
            lines.append(line)
            if fence.closed_by(line):
                fence = None
                flush(code=True)
        elif (opening := Fence.opening(line)) is not None:
            flush(code=False)
            fence = opening
            lines.append(line)
        elif not line.strip():
            flush(code=False)
        else:
            lines.append(line)
    flush(code=fence is not None)
    return blocks


def _fit(block: _Block, target: int, prose_limit: int) -> list[_Block]:
    """The block as pieces: code up to `2 × target` whole, else cut at lines; prose
    cut to `prose_limit`."""
    if block.code:
        if len(block.text) <= 2 * target:
            return [block]
        return [_Block(t, code=True) for t in _split_code(block.text, target)]
    if len(block.text) <= prose_limit:
        return [block]
    return [_Block(t, code=False) for t in _split_prose(block.text, prose_limit)]


def _split_code(text: str, target: int) -> list[str]:
    """Line groups of about `target` characters, each wrapped in the block's fence; a
    line longer than `target` (minified data) is cut into `target`-sized lines."""
    opening, *body = text.split("\n")
    fence = Fence.opening(opening)
    closing = fence.char * fence.length if fence else "```"
    if body and fence is not None and fence.closed_by(body[-1]):
        body = body[:-1]
    lines = [line[i : i + target] for line in body for i in range(0, max(len(line), 1), target)]
    pieces: list[str] = []
    current: list[str] = []
    for line in lines:
        if current and sum(len(x) + 1 for x in current) + len(line) > target:
            pieces.append("\n".join([opening, *current, closing]))
            current = []
        current.append(line)
    if current:
        pieces.append("\n".join([opening, *current, closing]))
    return pieces


def _split_prose(text: str, target: int) -> list[str]:
    """Whole sentences packed up to `target`; a longer sentence is cut between words,
    a longer word (a URL, a hash) anywhere."""
    units: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        if len(sentence) <= target:
            units.append(sentence)
            continue
        for word in sentence.split():
            units.extend(word[i : i + target] for i in range(0, len(word), target))
    pieces: list[str] = []
    for unit in units:
        if pieces and len(pieces[-1]) + 1 + len(unit) <= target:
            pieces[-1] += " " + unit
        else:
            pieces.append(unit)
    return pieces


def _tail(block: _Block, overlap: int) -> str:
    """The end of `block`, at most `overlap` characters, starting at a sentence when one
    starts there, else at a word (a short block whole); "" for code."""
    if block.code or overlap <= 0:
        return ""
    if len(block.text) <= overlap:
        return block.text
    tail = block.text[-overlap:]
    sentence = _SENTENCE_END.search(tail)
    if sentence is not None and sentence.end() < len(tail):
        return tail[sentence.end() :]
    space = tail.find(" ")
    return tail[space + 1 :].strip() if space >= 0 else ""
