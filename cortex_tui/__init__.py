"""cortex-tui: long-term memory for AI coding agents.

The package root imports nothing heavy: hooks and `--help` must start in milliseconds.
"""

__version__ = "0.1.0"
