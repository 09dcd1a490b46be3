"""`cortex-tui docs`: the pages that ship with the package, printed offline."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from cortex_tui.docs.pages import PAGES
from tests.conftest import Cli


def test_no_topic_lists_every_page(cli: Cli) -> None:
    done = cli("docs")
    assert done.code == 0
    listed = [line.split()[0] for line in done.out.splitlines() if line and line[0] != " "]
    assert [page.topic for page in PAGES] == listed[: len(PAGES)]
    assert "f1" in done.out


def test_a_topic_prints_its_page_as_markdown_without_the_test_marks(cli: Cli) -> None:
    done = cli("docs", "sync")
    assert done.code == 0
    assert done.out.startswith("# File sync\n")
    assert "cortex-tui watch --service" in done.out
    assert "<!--" not in done.out


def test_the_start_of_a_topic_is_enough_and_json_carries_the_page(cli: Cli) -> None:
    done = cli("docs", "conf", "--json")
    assert done.code == 0
    page = json.loads(done.out)
    assert page["topic"] == "configuration"
    assert "| `hooks.pre_timeout` | `1.5` |" in page["markdown"]


def test_an_unknown_topic_is_one_line_naming_the_pages(cli: Cli) -> None:
    done = cli("docs", "nonsense")
    assert done.code == 2
    assert done.out == ""
    assert done.err.count("\n") == 1
    assert "no page 'nonsense'; the pages are: agents, mcp" in done.err


def test_at_a_terminal_the_page_goes_through_the_pager(cli: Cli, tmp_path: Path) -> None:
    """The reader's $PAGER is used (here a script that marks what it was given)."""
    pager = tmp_path / "pager"
    pager.write_text('#!/bin/sh\necho "paged by $LESS:"; cat\n')
    pager.chmod(0o755)
    primary, secondary = pty.openpty()
    env = {key: value for key, value in os.environ.items() if not key.startswith("CORTEX_")}
    env |= {"PAGER": str(pager), "TERM": "dumb", "CORTEX_HOME": str(cli.home)}
    env.pop("LESS", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "cortex_tui", "docs", "mcp"],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env=env,
    )
    os.close(secondary)
    shown = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        shown += chunk
    os.close(primary)
    assert process.wait(timeout=60) == 0
    text = shown.decode().replace("\r\n", "\n")
    assert text.startswith("paged by FRX:\n# MCP server\n")
