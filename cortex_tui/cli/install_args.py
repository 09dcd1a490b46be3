"""What the commands that wire cortex-tui into an agent share.

`hook`, `mcp`, `openclaw` and `skill` each have one action, `install`, which edits the
agent's own files (or, with --uninstall, takes our part out of them again): they are
registered alike so that their options read alike.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cortex_tui.cli.args import OneLineParser, Subparsers, actions_of


def install_parser(
    sub: Subparsers,
    common: OneLineParser,
    command: str,
    *,
    help: str,
    install_help: str,
    description: str,
) -> OneLineParser:
    """`cortex-tui COMMAND install`'s parser, for the caller to add its options to."""
    parent = sub.add_parser(command, help=help)
    return actions_of(parent, f"{command}_action").add_parser(
        "install", parents=[common], help=install_help, description=description
    )


def program_option(parser: OneLineParser, *, dest: str, metavar: str, help: str) -> None:
    """`--command`: how the agent starts cortex-tui. Stored under `dest`, because
    `command` is the subcommand's own dest."""
    parser.add_argument("--command", dest=dest, metavar=metavar, help=help)


def print_or_uninstall(parser: OneLineParser, *, prints: str, removes: str) -> None:
    """`--print` (show what to add by hand) or `--uninstall`: printing writes nothing, so
    it cannot go with a removal."""
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--print", action="store_true", help=prints)
    what.add_argument("--uninstall", action="store_true", help=removes)


def file_to_edit(given: str | None, default: Callable[[], Path]) -> Path:
    """The file named by the user (absolute, so the output says exactly which), else the
    agent's own."""
    return Path(given).expanduser().absolute() if given else default()
