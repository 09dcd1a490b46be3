"""Wiring cortex-tui into agents: their hook events and outputs, their settings files."""
