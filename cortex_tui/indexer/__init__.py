"""The markdown indexer: documentation files → chunk memories; see `run.py`."""

from cortex_tui.indexer.run import IndexReport, Progress, Summarize, index_path

__all__ = ["IndexReport", "Progress", "Summarize", "index_path"]
