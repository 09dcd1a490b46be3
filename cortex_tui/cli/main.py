"""CLI entry: parse, dispatch, and turn every failure into one line and an exit code."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from cortex_tui.cli import memory_commands as mem
from cortex_tui.cli import store_commands as st
from cortex_tui.cli.context import CommandContext
from cortex_tui.cli.parser import COMMAND_GROUPS, build_parser
from cortex_tui.errors import CortexError
from cortex_tui.untrusted.text import clean_text

Handler = Callable[[CommandContext], int]

COMMANDS: dict[str, Handler] = {
    "remember": mem.cmd_remember,
    "recall": mem.cmd_recall,
    "explain": mem.cmd_explain,
    "search": mem.cmd_search,
    "get": mem.cmd_get,
    "show": mem.cmd_get,
    "history": mem.cmd_history,
    "list": mem.cmd_list,
    "update": mem.cmd_update,
    "forget": mem.cmd_forget,
    "purge": mem.cmd_purge,
    "stats": st.cmd_stats,
    "health": st.cmd_health,
    "export": st.cmd_export,
    "import": st.cmd_import,
    "eval": st.cmd_eval,
    "demo": st.cmd_demo,
    "bench": st.cmd_bench,
    "reembed": st.cmd_reembed,
    **{name: handler for group in COMMAND_GROUPS for name, handler in group.HANDLERS.items()},
}

INTERNAL_ERROR = 70


def run(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    # Python hands over invalid UTF-8 in arguments as lone surrogates, which nothing can
    # store: they become U+FFFD here, once, like every other edge's text.
    args = parser.parse_args([clean_text(arg) for arg in (sys.argv[1:] if argv is None else argv)])
    if args.command is None:
        parser.print_help()
        return 0
    ctx = CommandContext(args)
    try:
        return COMMANDS[args.command](ctx)
    except CortexError as exc:
        print(f"cortex-tui: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("cortex-tui: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if os.environ.get("CORTEX_DEBUG"):
            raise
        print(
            f"cortex-tui: internal error: {type(exc).__name__}: {exc} "
            "(set CORTEX_DEBUG=1 for the traceback and report it)",
            file=sys.stderr,
        )
        return INTERNAL_ERROR
    finally:
        try:
            ctx.close()
        except Exception as exc:  # closing must not mask the command's own outcome
            print(f"cortex-tui: warning: closing the store failed: {exc}", file=sys.stderr)
