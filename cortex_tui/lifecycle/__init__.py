"""Lifecycle maintenance: expire, decay, consolidate, auto-resolve; see `runner.py`."""

from cortex_tui.lifecycle.report import LifecycleReport, Merge, Resolution
from cortex_tui.lifecycle.runner import run_lifecycle

__all__ = ["LifecycleReport", "Merge", "Resolution", "run_lifecycle"]
