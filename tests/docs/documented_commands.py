"""The commands a page shows, read as a shell reads them, and checked by the real parsers."""

from __future__ import annotations

import importlib.util
import re
import shlex
from collections.abc import Callable, Iterator

from cortex_tui.cli.parser import build_parser
from cortex_tui.mcp.main import mcp_parser
from cortex_tui.server.main import serve_parser
from cortex_tui.tui import run as tui_run
from tests.docs.markdown_files import REPO

NOT_RUN = re.compile(r"^<!-- not run: (?P<why>.{12,}) -->$")
SETUP = re.compile(r"^<!-- setup: (?P<shell>.+) -->$")
SEPARATORS = re.compile(r"\s(?:&&|\|\||;|\|)\s")


def command_lines(script: str) -> list[str]:
    """Each command of a block: continuation lines joined, comments and blank lines left out."""
    joined = re.sub(r"\\\n\s*", " ", script)
    lines = [line.strip() for line in joined.split("\n")]
    return [line for line in lines if line and not line.startswith("#")]


def simple_commands(line: str) -> Iterator[list[str]]:
    """The words of each command of a line (`a && b; c`), without VAR=value in front."""
    for part in SEPARATORS.split(line):
        words = shlex.split(part, comments=True)
        while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
            words.pop(0)
        if words and words[0] == "export":
            continue
        if words:
            yield words


def problem_with(words: list[str]) -> str | None:
    """Why the command could not run as written (an unknown option, a missing module), or
    None. Commands of other programs (pip, curl, git) are theirs to check."""
    program, args = words[0], words[1:]
    if program == "cortex-tui":
        return _parse_problem(args)
    if program in ("python", "python3"):
        if args[:1] == ["-m"] and len(args) > 1:
            found = importlib.util.find_spec(args[1])
            return None if found else f"no module {args[1]}"
        if args and args[0].endswith(".py") and not (REPO / args[0]).is_file():
            return f"no script {args[0]} in the repository"
    return None


def _parse_problem(args: list[str]) -> str | None:
    """Parsed as `cortex_tui.__main__` dispatches: the TUI, `serve` and `mcp` have their
    own parsers, every other command the CLI's."""
    parse: Callable[[list[str]], object]
    if "--hook" in args or args[:2] in (["hook", "pre"], ["hook", "post"]):
        return None  # the hook path reads an agent's event, not options
    if not args or args[0] in ("--demo", "--tui"):
        parse, args = tui_run.parse, [arg for arg in args if arg != "--tui"]
    elif args[0] == "serve":
        parse, args = serve_parser().parse_args, args[1:]
    elif args[0] == "mcp" and args[1:2] != ["install"]:
        parse, args = mcp_parser().parse_args, args[1:]
    else:
        parse = build_parser().parse_args
    try:
        parse(args)
    except SystemExit as exit:
        return None if exit.code == 0 else f"cortex-tui {shlex.join(args)}: refused by its parser"
    return None
