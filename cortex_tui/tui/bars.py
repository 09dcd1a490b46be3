"""Horizontal bars drawn with eighth blocks, so small differences stay visible in a cell."""

from __future__ import annotations

_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(value: float, maximum: float, width: int) -> str:
    """`value` as a bar of `width` cells, full when it reaches `maximum`; always `width` long."""
    if maximum <= 0 or value <= 0:
        return " " * width
    eighths = round(min(value / maximum, 1.0) * width * 8)
    full, part = divmod(eighths, 8)
    text = "█" * full + (_EIGHTHS[part] if part else "")
    return text.ljust(width)
