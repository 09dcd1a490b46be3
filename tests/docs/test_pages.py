"""The pages `cortex-tui docs` knows are the pages that exist, the index lists them all,
and what they say about settings and keys is what the code has."""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path

import pytest
from pydantic import BaseModel

from cortex_tui.cli.parser import build_parser
from cortex_tui.config import Settings, load_settings
from cortex_tui.docs import settings_reference
from cortex_tui.docs.pages import FOLDER, INDEX, PAGES, find, reader_text
from cortex_tui.errors import InvalidInputError
from tests.docs.markdown_files import DOCUMENTS, CodeBlock, code_blocks, document_id, links, prose


def test_every_page_file_is_a_topic_and_every_topic_a_file() -> None:
    files = {path.stem for path in FOLDER.glob("*.md")} - {INDEX.removesuffix(".md")}
    assert files == {page.topic for page in PAGES}


def test_the_index_links_every_page() -> None:
    linked = set(links(FOLDER / INDEX))
    assert {f"{page.topic}.md" for page in PAGES} <= linked


def test_a_topic_is_found_by_name_file_or_unique_start() -> None:
    assert find("configuration").topic == "configuration"
    assert find("write-path.md").topic == "write-path"
    assert find("conf").topic == "configuration"
    with pytest.raises(InvalidInputError, match="the pages are: agents, mcp"):
        find("m")  # mcp or measurements
    with pytest.raises(InvalidInputError, match="no page 'nothing'"):
        find("nothing")


def test_the_reader_does_not_see_the_marks_tests_act_on() -> None:
    raw = (FOLDER / "sync.md").read_text(encoding="utf-8")
    assert "<!-- setup:" in raw and "<!-- not run:" in raw
    shown = reader_text(FOLDER / "sync.md")
    assert "<!--" not in shown
    assert "cortex-tui sync ~/.openclaw/workspace/MEMORY.md" in shown


def test_the_configuration_tables_are_the_settings_model_as_it_is() -> None:
    page = settings_reference.PAGE.read_text(encoding="utf-8")
    assert settings_reference.page_with_tables(page) == page, (
        "stale: run python -m cortex_tui.docs.settings_reference"
    )


def setting_keys() -> dict[str, object]:
    """Every dotted key of config.toml with its default."""
    keys: dict[str, object] = {}

    def walk(model: type[BaseModel], prefix: str) -> None:
        for name, field in model.model_fields.items():
            annotation = field.annotation
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                walk(annotation, f"{prefix}{name}.")
            else:
                keys[prefix + name] = field.get_default(call_default_factory=True)

    walk(Settings, "")
    return keys


def test_every_setting_is_a_row_of_the_configuration_page_with_its_default() -> None:
    page = settings_reference.PAGE.read_text(encoding="utf-8")
    for key, default in setting_keys().items():
        if key == "profiles":
            assert "[profiles.NAME]" in page
            continue
        row = re.search(rf"^\| `{re.escape(key)}` \| ([^|]+) \|", page, re.MULTILINE)
        assert row is not None, f"{key} has no row"
        if isinstance(default, (bool, int, float)):
            shown = str(default).lower() if isinstance(default, bool) else str(default)
            assert row.group(1).strip() == f"`{shown}`", key


SECTIONS = "|".join(
    name
    for name, field in Settings.model_fields.items()
    if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)
)
NAMED_SETTING = re.compile(
    rf"`((?:{SECTIONS})(?:\.[a-z_]+)+)`(?:\s+\(([\d.,]+)( s| h| ms)?[),;: ])?"
)
"""A setting named in prose, and the default given beside it: `hooks.pre_timeout` (1.5 s)."""
FILE_SUFFIXES = {"py", "json", "jsonl", "md", "toml", "sqlite"}


@pytest.mark.parametrize("document", DOCUMENTS, ids=document_id)
def test_every_setting_named_is_real_and_so_is_the_default_beside_it(document: Path) -> None:
    keys = setting_keys()
    wrong = []
    for key, shown, unit in NAMED_SETTING.findall(prose(document)):
        if key.rsplit(".", 1)[-1] in FILE_SUFFIXES:
            continue  # a file, such as `backup.py`
        if key not in keys:
            wrong.append(f"{key}: no such setting")
            continue
        if not shown or not isinstance(keys[key], (int, float)):
            continue
        default = float(keys[key])  # type: ignore[arg-type]
        if unit == " h":
            default /= 3600
        if float(shown.replace(",", "")) != default:
            wrong.append(f"{key}: documented as {shown}{unit}, the default is {keys[key]}")
    assert wrong == []


TOML_BLOCKS = [block for doc in DOCUMENTS for block in code_blocks(doc) if block.language == "toml"]


@pytest.mark.parametrize("block", TOML_BLOCKS, ids=[block.name for block in TOML_BLOCKS])
def test_a_config_example_is_valid_and_names_only_real_settings(
    block: CodeBlock, tmp_path: Path
) -> None:
    """Loaded as config.toml, the example is accepted, and each key it sets is a setting
    (or the TUI's own `[tui]` table, which the app reads)."""
    (tmp_path / "config.toml").write_text(block.text, encoding="utf-8")
    load_settings(tmp_path)
    keys = setting_keys()

    def unknown(table: dict[str, object], prefix: str) -> list[str]:
        found = []
        for name, value in table.items():
            key = prefix + name
            if key in keys or key == "tui" or key.startswith("privacy.patterns."):
                continue
            if isinstance(value, dict):
                found += unknown(value, f"{key}.")
            else:
                found.append(key)
        return found

    assert unknown(tomllib.loads(block.text), "") == []


def test_every_command_is_on_the_commands_page() -> None:
    parser = build_parser()
    (commands,) = [a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    page = (FOLDER / "commands.md").read_text(encoding="utf-8")
    missing = [
        name
        for name in [*commands, "serve"]
        if not re.search(rf"`(cortex-tui )?{re.escape(name)}[ `]", page)
    ]
    assert missing == []
