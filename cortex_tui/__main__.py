"""`cortex-tui` and `python -m cortex_tui`: parse arguments first, import heavy parts later."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from cortex_tui.cli.main import run

    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
