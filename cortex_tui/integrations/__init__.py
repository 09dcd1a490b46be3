"""Wiring cortex-tui into agents: their settings files, written safely."""
