"""The reference pages, shipped with the package so they are there offline: Markdown
that reads well on GitHub, printed by `cortex-tui docs` and shown by the TUI."""
