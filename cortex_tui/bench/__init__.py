"""Benchmarks behind `cortex-tui bench`."""
