"""The engine layer: the `Engine` facade and its in-process implementation."""
