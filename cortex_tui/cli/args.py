"""argparse pieces shared by every command module."""

from __future__ import annotations

import argparse
from typing import NoReturn, TypeAlias


class OneLineParser(argparse.ArgumentParser):
    """Usage errors as one line naming the fix, exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def csv_list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


Subparsers: TypeAlias = "argparse._SubParsersAction[OneLineParser]"


def actions_of(parser: argparse.ArgumentParser, dest: str) -> Subparsers:
    """The actions of a command that does nothing by itself (`model add`, `hook install`):
    one must be named, and each reports a usage error as one line like every other parser."""
    return parser.add_subparsers(
        dest=dest, metavar="ACTION", required=True, parser_class=OneLineParser
    )
