"""Markdown sections and chunks: headings, fences, text outside headings, size, overlap."""

from __future__ import annotations

import itertools
from pathlib import Path

from cortex_tui.indexer.chunking import chunk_text
from cortex_tui.indexer.markdown import parse_sections
from cortex_tui.indexer.run import document_chunks
from cortex_tui.indexer.sources import ChunkSource, file_key, markdown_files

GUIDE = """\
---
title: front matter is metadata
---
Text before any heading.

# Guide
Welcome to the guide.

## Setup ##
```bash
# install: a comment, not a heading
pip install cortex-tui
```

~~~~
## still code
~~~
still code after a shorter fence
~~~~

### Database
Use [Postgres](https://postgresql.org) 16.
##### Tuning
Raise shared_buffers.

#### `pg_hba.conf`
Allow local connections.

## Setup
Second setup section.
"""


def test_sections_follow_headings_outside_fences() -> None:
    sections = parse_sections(GUIDE)
    assert [(s.path, s.slug) for s in sections] == [
        ((), ""),
        (("Guide",), "guide"),
        (("Guide", "Setup"), "setup"),
        (("Guide", "Setup", "Database"), "database"),
        (("Guide", "Setup", "Database", "`pg_hba.conf`"), "pg_hbaconf"),
        (("Guide", "Setup"), "setup-1"),
    ]
    assert sections[0].body.strip() == "Text before any heading."
    setup = sections[2].body
    assert "# install" in setup and "## still code" in setup and "shorter fence" in setup
    database = sections[3].body
    assert "##### Tuning" in database and "Raise shared_buffers." in database


def test_heading_less_file_and_skipped_levels() -> None:
    assert [(s.path, s.body) for s in parse_sections("just text\n\nmore text")] == [
        ((), "just text\n\nmore text")
    ]
    nested = parse_sections("# A\n### C\ntext c\n## B\ntext b\n#\nuntitled")
    assert [s.path for s in nested] == [("A", "C"), ("A", "B"), ()]
    assert parse_sections("") == [] and parse_sections("# Only a title\n") == []
    unclosed = parse_sections("# Code\n```\n# not a heading\n")
    assert [s.path for s in unclosed] == [("Code",)]


def test_short_text_is_one_chunk_blank_text_none() -> None:
    assert chunk_text("One paragraph.\n\nAnother one.") == ["One paragraph.\n\nAnother one."]
    assert chunk_text("  \n\n ") == []


def test_long_prose_is_cut_near_the_target_with_overlap() -> None:
    prose = " ".join(f"Sentence {i} says something about the build." for i in range(80))
    chunks = chunk_text(prose, target=400, overlap=80)
    assert len(chunks) > 5
    assert all(len(c) <= 400 for c in chunks)
    for before, after in itertools.pairwise(chunks):
        start = after.split("\n\n")[0]
        assert before.endswith(start) and 0 < len(start) <= 80  # the overlap
        assert start.startswith("Sentence")  # from a sentence boundary
    joined = " ".join(chunks)
    assert all(f"Sentence {i} says" in joined for i in range(80))  # nothing lost


def test_a_code_block_is_kept_whole_when_it_fits_twice_the_target() -> None:
    code = "```python\n" + "\n".join(f"value_{i} = {i}" for i in range(40)) + "\n```"
    assert 400 < len(code) <= 800
    text = f"Intro paragraph.\n\n{code}\n\nOutro paragraph."
    chunks = chunk_text(text, target=400, overlap=80)
    assert any(c.count("```") == 2 and code in c for c in chunks)
    after_code = chunks[chunks.index(next(c for c in chunks if code in c)) + 1 :]
    assert all(not c.startswith("value_") for c in after_code)  # code is never overlap


def test_a_huge_code_block_is_cut_at_lines_into_valid_fences() -> None:
    lines = [f"print('line {i}')" for i in range(300)]
    code = "~~~py\n" + "\n".join(lines) + "\n~~~"
    chunks = chunk_text(code, target=400, overlap=80)
    assert len(chunks) > 5
    for chunk in chunks:
        body = chunk.split("\n")
        assert body[0] == "~~~py" and body[-1] == "~~~" and len(chunk) <= 400 + 20
    inner = [line for c in chunks for line in c.split("\n")[1:-1]]
    assert inner == lines  # nothing lost, nothing repeated


def test_document_chunks_carry_their_heading_path() -> None:
    chunks = document_chunks(GUIDE, "guide.md")
    assert chunks[0] == ("", "guide.md: Text before any heading.")
    contents = dict(chunks)
    assert contents["database"].startswith("Guide > Setup > Database: Use [Postgres](")
    assert contents["setup-1"] == "Guide > Setup: Second setup section."


def test_chunk_source_round_trips() -> None:
    source = ChunkSource("repo/docs/a b.md", "0123456789ab", "setup-1")
    assert str(source) == "index:repo/docs/a b.md@0123456789ab#setup-1"
    assert ChunkSource.parse(str(source)) == source
    assert ChunkSource.parse("index:/abs/x.md@0123456789ab") == ChunkSource(
        "/abs/x.md", "0123456789ab", ""
    )
    assert ChunkSource.parse("remember") is None
    assert ChunkSource.parse("index:x.md#setup") is None


def test_file_keys_and_discovery(tmp_path: Path) -> None:
    repo = tmp_path / "work" / "atlas"
    (repo / ".git").mkdir(parents=True)
    docs = repo / "docs"
    (docs / "deep").mkdir(parents=True)
    for name in ("a.md", "deep/b.MARKDOWN", "notes.txt", ".hidden.md"):
        (docs / name).write_text("# x\ny\n")
    for skipped in (".venv", "node_modules"):
        (docs / skipped).mkdir()
        (docs / skipped / "c.md").write_text("# x\n")
    assert file_key(docs / "a.md") == "atlas/docs/a.md"
    assert file_key(repo) == "atlas"
    assert markdown_files(docs) == [docs / "a.md", docs / "deep" / "b.MARKDOWN"]
    loose = tmp_path / "loose.md"
    assert file_key(loose) == loose.as_posix()
