"""What a turn was given, as styled text for the Given pane: the turn, its memories, and
one memory's score as computed on that turn beside the score the same prompt gives it now.

Numbers come from the record and from `explain`, never recomputed here. Memory text
enters as plain `Content` (the block's XML escaping undone), never as markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.content import Content

from cortex_tui.format import line_text
from cortex_tui.given.record import GivenMemory, GivenRecord, LeftOut
from cortex_tui.given.usefulness import Unhelpful
from cortex_tui.models import Explanation, HeldBack, ScoreBreakdown
from cortex_tui.signals import SIGNAL_NAMES
from cortex_tui.tui.colours import signal_variable
from cortex_tui.tui.formatting import one_line
from cortex_tui.tui.score_text import signal_label

_NAME_WIDTH = 16
MARKS = {"useful": "✓", "wrong": "✗"}


def turn_label(turn: GivenRecord, width: int) -> Content:
    """A turn in the list: its time and what asked, the prompt's start, how much it got."""
    said = one_line(turn.prompt, width) if turn.prompt else f"({turn.trigger})"
    counts = f"{len(turn.given)} given"
    if turn.left_out:
        counts += f", {len(turn.left_out)} left out"
    if turn.held_back:
        counts += f", {len(turn.held_back)} held back"
    return Content.assemble(
        (f"{turn.at:%m-%d %H:%M} ", "$text-muted"),
        Content(said),
        "\n",
        (f"      {turn.trigger} · {counts} · {turn.used_tokens} tokens", "$text-muted"),
    )


def session_label(turn: GivenRecord, turns: int) -> Content:
    """A session in the list: its agent, the start of its id, its project."""
    where = f" · {turn.project}" if turn.project else ""
    session = turn.session[:8] if turn.session else "no session"
    return Content.assemble(
        (f"{turn.agent} ", "bold $accent"),
        (f"{session}{where} · {turns} turn{'s' * (turns != 1)}", "bold"),
    )


def turn_heading(turn: GivenRecord) -> Content:
    budget = f" of {turn.budget_tokens}" if turn.budget_tokens is not None else ""
    standing = sum(memory.block == "standing" for memory in turn.given)
    given = f"{len(turn.given)} given" + (f" ({standing} standing)" if standing else "")
    left = f"{len(turn.left_out)} left out for want of room" if turn.left_out else "none left out"
    if turn.outcome is not None:
        left += f" · nothing given: {turn.outcome}"
    elif turn.held_back:
        left += f" · {len(turn.held_back)} held back: they do not bear on the prompt"
    return Content.assemble(
        (
            f"{turn.at:%Y-%m-%d %H:%M:%S} · {turn.agent} · {turn.trigger} · "
            f"session {turn.session or '—'}",
            "$text-muted",
        ),
        "\n",
        Content(turn.prompt or "(no prompt: the session's standing rules)"),
        "\n",
        (f"{given}, {left} · {turn.used_tokens}{budget} tokens", "$text-muted"),
    )


def given_cells(turn: GivenRecord, memory: GivenMemory, width: int) -> list[Text]:
    """Table cells as `Text` (never markup; the table sizes its columns by them)."""
    mark = MARKS.get(turn.judged.get(memory.id, ""), "")
    if memory.rank is None or memory.score is None:
        place, score = "std", ""
    else:
        place, score = f"{memory.rank}", f"{memory.score:.3f}"
    text = one_line(line_text(turn.line_of(memory)), width)
    values = (mark, place, score, memory.short_id, memory.type.value, text)
    return [Text(value, no_wrap=True) for value in values]


def left_out_cells(memory: LeftOut, width: int) -> list[Text]:
    return _dim_cells(memory.rank, f"{memory.score:.3f}", memory.id, "no room", memory.text, width)


def held_back_cells(memory: HeldBack, width: int) -> list[Text]:
    """A memory the relevance gate kept out, its relevance where a score would be."""
    relevance = f"{memory.relevance:.2f}"
    return _dim_cells(memory.rank, relevance, memory.id, "held back", memory.text, width)


def _dim_cells(
    rank: int, number: str, memory_id: str, why: str, text: str, width: int
) -> list[Text]:
    """A ranked memory the block did not give, in grey."""
    values = ("", f"{rank}", number, memory_id[:8], why, one_line(text, width))
    return [Text(value, style="dim", no_wrap=True) for value in values]


def held_back_why(memory: HeldBack) -> Content:
    """Why the relevance gate kept a ranked memory out of the block."""
    return Content.assemble(
        ("Held back by the relevance gate: ", "bold"),
        Content(memory.reason),
        "\n",
        (
            "A prompt gets memories only when they bear on it (hooks.relevance_gate, "
            "recall.gate_floor).",
            "$text-muted",
        ),
    )


def unhelpful_cells(item: Unhelpful, width: int) -> list[Text]:
    values = (
        MARKS["wrong"] if item.wrong else "",
        f"{item.given}×",
        f"{item.wrong}✗" if item.wrong else "",
        item.id[:8],
        f"{item.last_at:%m-%d}",
        one_line(line_text(item.line), width),
    )
    return [Text(value, no_wrap=True) for value in values]


def then_and_now(then: ScoreBreakdown, rank: int | None, now: Explanation | None) -> Content:
    """Each signal's points on that turn and for the same prompt now, then the final
    scores and ranks; `now` None: still being asked."""
    current = now.result.breakdown if now is not None and now.result is not None else None
    rows = [
        Content.styled(
            f"{'signal':<{_NAME_WIDTH}}{'then':>8}{'now':>9}{'change':>9}", "$text-muted"
        )
    ]
    quiet: list[str] = []
    for name in SIGNAL_NAMES:
        before = then.signals.get(name)
        if before is None:
            continue
        after = current.signals.get(name) if current is not None else None
        if not before.contribution and not (after and after.contribution):
            quiet.append(signal_label(name))
            continue
        now_text = f"{after.contribution:>9.4f}" if after is not None else f"{'—':>9}"
        change = _change(before.contribution, after.contribution if after else None)
        rows.append(
            Content.assemble(
                (f"{signal_label(name):<{_NAME_WIDTH}}", f"${signal_variable(name)}"),
                f"{before.contribution:>8.4f}{now_text}",
                change,
            )
        )
    final_now = f"{current.final:>9.4f}" if current is not None else f"{'—':>9}"
    rows.append(
        Content.assemble(
            (f"{'final':<{_NAME_WIDTH}}{then.final:>8.4f}{final_now}", "bold"),
            _change(then.final, current.final if current else None),
        )
    )
    rows.append(Content.assemble(("rank  ", "$text-muted"), f"#{rank} then, ", _now_rank(now)))
    if quiet:
        rows.append(Content.styled(f"no points then or now: {', '.join(quiet)}", "$text-muted"))
    return Content("\n").join(rows)


def _change(before: float, after: float | None) -> Content:
    if after is None or abs(after - before) < 5e-5:
        return Content("")
    delta = after - before
    return Content.styled(f"{delta:>+9.4f}", "$success" if delta > 0 else "$error")


def _now_rank(now: Explanation | None) -> Content:
    if now is None:
        return Content.styled("now: asking…", "$text-muted")
    if now.excluded_by:
        return Content.styled(f"now: left out ({now.excluded_by})", "$warning")
    if now.rank is None:
        return Content.styled("now: not among the candidates", "$warning")
    held = "" if now.rank <= now.limit else f" (recall returns the top {now.limit})"
    return Content(f"now #{now.rank}{held}")
