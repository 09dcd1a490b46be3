"""Notes → statements: what one memory holds, and the type and tags headings give it."""

from __future__ import annotations

from cortex_tui.models import MemoryType
from cortex_tui.sync.notes import MAX_CHARS, note_tags, note_type, parse_notes, text_hash


def test_each_item_and_paragraph_is_one_statement_under_its_headings() -> None:
    text = (
        "---\ntitle: memory\n---\n"
        "# Atlas\n\nThe API is written in Go\nand listens on 8443.\n\n"
        "## Conventions\n- Use ruff for linting.\n* Tabs are banned;\n  use 4 spaces.\n"
        "1. Run the tests first\n2) Then release\n"
        "<!-- a note to self\nthat spans lines -->\n"
        "---\n"
        "### Preferences\n+ Dark mode everywhere\n- [ ]\n"
    )
    notes = parse_notes(text)
    assert [(n.line, n.text, n.headings) for n in notes] == [
        (6, "The API is written in Go and listens on 8443.", ("Atlas",)),
        (10, "Use ruff for linting.", ("Atlas", "Conventions")),
        (11, "Tabs are banned; use 4 spaces.", ("Atlas", "Conventions")),
        (13, "Run the tests first", ("Atlas", "Conventions")),
        (14, "Then release", ("Atlas", "Conventions")),
        (19, "Dark mode everywhere", ("Atlas", "Conventions", "Preferences")),
    ]


def test_nested_items_stay_with_their_parent_up_to_the_size_cap() -> None:
    notes = parse_notes("- Deploy steps\n  - build the image\n  - push it\n- Next\n")
    assert [n.text for n in notes] == ["Deploy steps\n  - build the image\n  - push it", "Next"]
    long = "- parent\n" + "".join(f"  - detail number {i} of many\n" for i in range(200))
    cut = parse_notes(long)
    assert len(cut) > 1 and all(len(n.text) <= MAX_CHARS for n in cut)


def test_code_joins_the_statement_that_introduces_it() -> None:
    notes = parse_notes(
        "Deploy with:\n\n```bash\nfly deploy\n# not a heading\n```\n\nUnrelated.\n\n"
        "```\nlonely()\n```\n"
    )
    assert [n.text for n in notes] == [
        "Deploy with:\n```bash\nfly deploy\n# not a heading\n```",
        "Unrelated.",
        "```\nlonely()\n```",
    ]


def test_a_statement_is_identified_by_its_words_not_its_spacing() -> None:
    assert text_hash("Use  ruff\tfor linting") == text_hash("Use ruff for linting ")
    assert text_hash("Use ruff") != text_hash("Use ruff!")


def test_headings_give_type_and_tags() -> None:
    assert note_type(("Atlas", "Conventions")) is MemoryType.RULE
    assert note_type(("How to release",)) is MemoryType.PROCEDURE
    assert note_type(("Preferences", "Editor")) is MemoryType.PREFERENCE
    assert note_type(("Decisions",)) is MemoryType.FACT
    assert note_type(("Daily log",)) is MemoryType.EPISODE
    assert note_type(("Atlas",)) is None  # left to the classifier
    assert note_type(("Conventions", "Decisions")) is MemoryType.FACT  # the nearest wins
    assert note_tags(("Project Memory", "Code style: Python!")) == [
        "project-memory",
        "code-style-python",
    ]
    assert note_tags(tuple("abcdef")) == ["c", "d", "e", "f"]
