"""A notes file's statements then and now → the operations that bring memory in step.

Statements are matched by the hash of their text first, whatever their position: a
statement still present is unchanged even when it moved (it keeps its memory). What is
left on both sides is paired by similarity: a new statement at least `EDIT_SIMILARITY`
like a vanished one is an edit of it (its memory gets a new version); an unpaired new
statement is added, an unpaired vanished one retired. Retirements come first, so a
statement rewritten beyond recognition is not folded into the memory about to retire.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from cortex_tui.agent_turn.file_changes import ADD, EDIT, RETIRE
from cortex_tui.spool.entries import DraftFields, FileOperation
from cortex_tui.sync.notes import Note
from cortex_tui.sync.state import TakenNote

EDIT_SIMILARITY = 60.0
"""rapidfuzz `ratio` (0–100) from which a new statement counts as an edit of an old one."""

PAIRING_CELLS = 4_000_000
"""Above this many (vanished × fresh) pairs, pairing goes statement by statement."""

Draft = Callable[[Note], DraftFields]
"""A statement → the draft (as JSON) its memory is written from, its source included."""


@dataclass
class NotesDiff:
    ops: list[FileOperation] = field(default_factory=list)
    taken: list[TakenNote] = field(default_factory=list)
    added: int = 0
    edited: int = 0
    retired: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.ops)


def diff_notes(old: list[TakenNote], new: list[Note], draft: Draft) -> NotesDiff:
    result = NotesDiff()
    waiting: dict[str, deque[TakenNote]] = defaultdict(deque)
    for taken in old:
        waiting[taken.sha].append(taken)
    kept: dict[int, TakenNote] = {}
    fresh: list[int] = []
    for index, note in enumerate(new):
        same = waiting.get(note.sha)
        if same:
            kept[index] = same.popleft()
        else:
            fresh.append(index)
    left = {id(taken) for queue in waiting.values() for taken in queue}
    vanished = [taken for taken in old if id(taken) in left]
    edits = _pair(vanished, {i: new[i] for i in fresh})
    paired = {id(taken) for taken in edits.values()}
    for taken in vanished:
        if id(taken) not in paired:
            result.ops.append({"op": RETIRE, "was": taken.source})
            result.retired += 1
    for index, note in enumerate(new):
        if index in kept:
            result.taken.append(kept[index])
            continue
        made = draft(note)
        if index in edits:
            result.ops.append({"op": EDIT, "was": edits[index].source, "draft": made})
            result.edited += 1
        else:
            result.ops.append({"op": ADD, "draft": made})
            result.added += 1
        result.taken.append(TakenNote(sha=note.sha, text=note.text, source=made["source"]))
    return result


def _pair(vanished: list[TakenNote], fresh: dict[int, Note]) -> dict[int, TakenNote]:
    """Fresh statement (by its index in the file) → the vanished statement it edits:
    the most similar pairs first, each statement in one pair at most."""
    if not vanished or not fresh:
        return {}
    indexes = list(fresh)
    if len(vanished) * len(fresh) > PAIRING_CELLS:
        return _pair_in_order(vanished, fresh)
    scores = process.cdist(
        [fresh[i].text for i in indexes],
        [t.text for t in vanished],
        scorer=fuzz.ratio,
        score_cutoff=EDIT_SIMILARITY,
        workers=1,
    )
    candidates = sorted(
        ((float(scores[a, b]), a, b) for a, b in zip(*scores.nonzero(), strict=True)),
        key=lambda c: (-c[0], c[1], c[2]),
    )
    pairs: dict[int, TakenNote] = {}
    used: set[int] = set()
    for _, a, b in candidates:
        if indexes[a] not in pairs and b not in used:
            pairs[indexes[a]] = vanished[b]
            used.add(b)
    return pairs


def _pair_in_order(vanished: list[TakenNote], fresh: dict[int, Note]) -> dict[int, TakenNote]:
    """For a rewrite too large to score every pair: each fresh statement, in file order,
    takes the most similar vanished one still free."""
    free = {i: t.text for i, t in enumerate(vanished)}
    pairs: dict[int, TakenNote] = {}
    for index, note in fresh.items():
        best = process.extractOne(note.text, free, scorer=fuzz.ratio, score_cutoff=EDIT_SIMILARITY)
        if best is not None:
            pairs[index] = vanished[best[2]]
            del free[best[2]]
    return pairs
