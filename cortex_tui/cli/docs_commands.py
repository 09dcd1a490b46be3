"""`cortex-tui docs [TOPIC]`: the reference pages that ship with the package, offline.

The pages are Markdown written to read as plain text, so the terminal gets them as they
are: through the pager at a terminal, as `git help` does, straight out when piped (for
`grep` or a Markdown viewer of one's own). The TUI renders them (`f1`).
"""

from __future__ import annotations

import os
import pydoc
import sys
from collections.abc import Callable

from cortex_tui.cli.args import OneLineParser, Subparsers
from cortex_tui.cli.context import CommandContext
from cortex_tui.docs.pages import PAGES, find, reader_text


def register(sub: Subparsers, common: OneLineParser) -> None:
    p = sub.add_parser(
        "docs",
        parents=[common],
        help="the reference pages: hooks, MCP, sync, TUI, settings, scoring, operations…",
        description="Print a reference page (with no TOPIC: the list of pages), through "
        "the pager at a terminal. The TUI shows them rendered: f1.",
    )
    p.add_argument("topic", nargs="?", help="a page's name, or the start of one (e.g. conf)")


def cmd_docs(ctx: CommandContext) -> int:
    if ctx.args.topic is None:
        width = max(len(page.topic) for page in PAGES)
        ctx.emit(
            [{"topic": page.topic, "title": page.title, "summary": page.summary} for page in PAGES],
            "\n".join(f"{page.topic:<{width}}  {page.summary}" for page in PAGES)
            + "\n\ncortex-tui docs TOPIC prints one; in the TUI, f1 opens them.",
        )
        return 0
    page = find(ctx.args.topic)
    text = reader_text(page.path)
    if ctx.json:
        ctx.emit({"topic": page.topic, "title": page.title, "markdown": text}, "")
    elif sys.stdout.isatty():
        # less: quit by itself when the page fits the screen (F), leave it on screen (X)
        os.environ.setdefault("LESS", "FRX")
        pydoc.pager(text)
    else:
        sys.stdout.write(text)
    return 0


HANDLERS: dict[str, Callable[[CommandContext], int]] = {"docs": cmd_docs}
