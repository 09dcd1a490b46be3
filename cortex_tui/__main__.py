"""`cortex-tui` and `python -m cortex_tui`: parse arguments first, import heavy parts later."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # the hook process does not import `typing`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TextIO


def main(argv: Sequence[str] | None = None) -> int:
    from cortex_tui.private import private_process

    private_process()  # the data home is the user's alone: see private.py
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["hook"] and args[1:2] in (["pre"], ["post"]):
        args = ["--hook", *args[1:]]
    if "--hook" in args:
        # The hook path never loads the CLI's command modules.
        from cortex_tui.hooks.run import hook_main

        return hook_main(args)
    import warnings  # not on the hook path above

    warnings.showwarning = _note
    if args[:1] == ["--home"] and _own_entry(args[2:4]):
        args = [args[2], "--home", args[1], *args[3:]]
    if not args or args[0] in ("--demo", "--tui"):
        # The terminal UI; textual is imported only past this point.
        from cortex_tui.tui.run import main as tui_main

        return tui_main([arg for arg in args if arg != "--tui"])
    if _own_entry(args[:2]) and args[0] == "mcp":
        from cortex_tui.mcp.main import mcp_main

        return mcp_main(args[1:])
    if _own_entry(args[:2]):
        from cortex_tui.server.main import serve_main

        return serve_main(args[1:])
    from cortex_tui.cli.main import run

    return run(args)


def _own_entry(head: list[str]) -> bool:
    """`serve` and `mcp` (but not `mcp install`, a CLI command) parse their own options."""
    return head[:1] == ["serve"] or (head[:1] == ["mcp"] and head[1:2] != ["install"])


def _note(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """A warning (an old weight table mapped, say) as one plain line, not Python's form;
    the service logs them instead (`logging.captureWarnings`)."""
    print(f"cortex-tui: note: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
