"""The Recall pane's tables: one ranking, or two side by side with each memory's move.

Columns have fixed widths computed from the pane's width (no measuring pass, so a screen
is the same however fast it paints), and memory text is plain `Text`, never markup, so
brackets in memories survive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from rich.text import Text
from textual.widgets import DataTable

from cortex_tui.models import Memory, RecallResult
from cortex_tui.tui.bars import bar
from cortex_tui.tui.compare import Movement, label_style
from cortex_tui.tui.formatting import age, one_line

SCORE_BAR = 8
"""Cells of the inline score bar."""

Palette = Mapping[str, str]


def fill_results(
    table: DataTable[object],
    results: Sequence[RecallResult],
    width: int,
    now: datetime | None,
    palette: Palette,
) -> None:
    """One ranking in a table `width` cells wide; the cursor keeps its row."""
    top = max((r.score for r in results), default=0.0)
    content_width = max(width - 59, 20)
    row = table.cursor_row
    table.clear(columns=True)
    add_columns(
        table,
        [
            ("#", 3),
            ("score", 14),
            ("type", 10),
            ("scope", 9),
            ("age", 5),
            ("content", content_width),
        ],
    )
    for result in results:
        memory = result.memory
        table.add_row(
            Text(str(result.rank), justify="right"),
            score_cell(result.score, top, palette),
            memory.type.value,
            memory.scope.value,
            age(memory.last_accessed or memory.created_at, now) if now else "",
            content_cell(memory, content_width, palette),
            key=memory.id,
        )
    if results:
        table.move_cursor(row=min(row, len(results) - 1))


def fill_compare(
    table_a: DataTable[object],
    table_b: DataTable[object],
    results_a: Sequence[RecallResult],
    movements: Sequence[Movement],
    width: int,
    palette: Palette,
) -> None:
    """Ranking A beside B's moves over `width` cells; B's table is the wider (2fr : 3fr):
    its rows carry the moves and their causes. Both share one score scale."""
    width_a = max(width * 2 // 5 - 26, 12)
    width_b = max(width - width * 2 // 5 - 58, 12)
    top = max([r.score for r in results_a] + [m.b.score for m in movements if m.b], default=0.0)
    table_a.clear(columns=True)
    add_columns(table_a, [("#", 3), ("score A", 14), ("content", width_a)])
    for result in results_a:
        table_a.add_row(
            Text(str(result.rank), justify="right"),
            score_cell(result.score, top, palette),
            content_cell(result.memory, width_a, palette),
            key=result.memory.id,
        )
    row = table_b.cursor_row
    table_b.clear(columns=True)
    add_columns(
        table_b, [("#", 3), ("move", 7), ("score B", 14), ("because", 22), ("content", width_b)]
    )
    for movement in movements:
        cause = movement.cause()
        table_b.add_row(
            Text(str(movement.b.rank) if movement.b else "—", justify="right"),
            Text(movement.label, style=rich_style(label_style(movement.label), palette)),
            score_cell(movement.b.score, top, palette) if movement.b else Text("—"),
            Text(f"{cause[0]} {cause[1]:+.3f}" if cause else ""),
            content_cell(movement.memory, width_b, palette),
            key=movement.memory.id,
        )
    if movements:
        table_b.move_cursor(row=min(row, len(movements) - 1))


def score_cell(score: float, top: float, palette: Palette) -> Text:
    cell = Text(f"{score:.3f} ")
    cell.append(bar(score, top, SCORE_BAR), style=colour(palette, "score-bar"))
    return cell


def content_cell(memory: Memory, width: int, palette: Palette) -> Text:
    """One line of the memory within `width`, marked when in conflict or superseded."""
    if memory.conflict_status.value == "active":
        cell = Text("⚠ ", style=colour(palette, "conflict"))
        cell.append(one_line(memory.content, width - 2))
    else:
        cell = Text(one_line(memory.content, width))
    if not memory.is_current:
        cell.stylize(colour(palette, "superseded"))
    return cell


def add_columns(table: DataTable[object], columns: list[tuple[str, int]]) -> None:
    for label, width in columns:
        table.add_column(label, width=width, key=label)


def rich_style(style: str, palette: Palette) -> str:
    """Textual style markup (`bold $rank-up`) resolved to a Rich style string."""
    return " ".join(
        palette.get(part[1:], "default") if part.startswith("$") else part for part in style.split()
    )


def colour(palette: Palette, variable: str) -> str:
    return palette.get(variable, "default")
