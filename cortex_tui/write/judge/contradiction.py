"""Offline judgement of how a new statement relates to a similar existing one.

Embeddings say two statements are about the same thing; they cannot say whether the new
one *changes* it ("the billing service is written in Go" after "… in Ruby" is as similar
as a restatement). So both statements are read (`statement.read`: subject, claim words,
canonical values, negation, change cue) and aligned token by token. What differs is then
one of:

- nothing but form → a **repeat** (the same words) or a **restatement** (the same claim:
  "2 pm" / "14:00", "Mum" / "my mother");
- one slot filled differently — a value, a name, a negation, an antonym — with the rest
  of the claim shared → the same subject and attribute with a new value: an **update**
  when the new statement announces a change ("moved to", "raised to", "no longer",
  "from now on", "going forward", "renamed", "as of"), else a **contradiction** (both
  claim the present);
- a change announced about the same subject with no value seen to change → a
  **change**, an update only when the embeddings agree they are about one thing;
- other words with the same values → a **paraphrase**, the same claim naming
  something more ("hosted in AWS Route 53") → an **elaboration**, and one verb for
  another with the rest the same → **reworded**: restatements only when the embeddings
  agree (each has its own threshold in the write path);
- anything else — another subject, another attribute, other values → **distinct**.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from cortex_tui.write.judge.rename import find_rename
from cortex_tui.write.judge.slots import (
    bare,
    differing_slot,
    opposed_terms,
    opposite,
    shown_words,
)
from cortex_tui.write.judge.statement import Statement, Token, read

Verdict = Literal[
    "update",
    "change",
    "contradiction",
    "repeat",
    "restatement",
    "paraphrase",
    "elaboration",
    "reworded",
    "distinct",
]

WHEN = frozenset({"clock", "day", "period", "date", "month"})
ORDERED = frozenset({"over", "than", "instead", "before", "after", "from", "to", "not"})
"""Words that make order matter: "tabs over spaces" is not "spaces over tabs", nor
"Postgres, not MySQL" "MySQL, not Postgres"."""
MAX_SLOT = 4
"""Most tokens one side of a substituted slot may hold ("the head of product")."""
DIFFERENT_VALUE = "same claim, a different value"
"""The reason of a contradiction found as one slot filled differently, with no cue."""


@dataclass(frozen=True, slots=True)
class PairCall:
    """What a new statement is next to an old one (`verdict`), and why."""

    verdict: Verdict
    reason: str


@dataclass(frozen=True, slots=True)
class _Block:
    """One place where the aligned statements differ."""

    old: tuple[Token, ...]
    new: tuple[Token, ...]

    @property
    def substitution(self) -> bool:
        return bool(self.old) and bool(self.new)

    def describe(self) -> str:
        return f"{shown_words(self.old) or '∅'} → {shown_words(self.new) or '∅'}"


FOLDS = frozenset({"repeat", "restatement", "paraphrase", "elaboration", "reworded"})
"""Verdicts that fold the new statement into the old memory: it is kept only as a note."""


def kept_apart(old: str, new: str) -> PairCall | None:
    """The verdict for two statements that would fold but fill a slot differently
    (`slots.differing_slot`); None when they agree on every slot.

    A fold would lose a claim, so both are kept: as an update when the new one
    announces a change, as a conflict when both claim the present about one subject,
    else as two memories ("only" narrows a claim without denying it)."""
    a, b = read(old), read(new)
    slot = differing_slot(a, b)
    if slot is None:
        return None
    same_subject = _same_subject(a, b)
    cue = b.cue if b.cue and b.cue != a.cue else None
    if cue is not None and same_subject:
        return PairCall("update", f"a change is announced ('{cue}'): {slot.describe()}")
    grown = _grown_total(a, b)
    if grown and same_subject:
        return PairCall("update", f"a running total grew: {grown}")
    if same_subject and slot.kind != "scope":
        return PairCall("contradiction", f"{slot.describe()}, so not folded")
    return PairCall("distinct", f"{slot.describe()}, so not folded")


def judge_offline(old: str, new: str) -> PairCall:
    a, b = read(old), read(new)
    if a.wording == b.wording:
        if a.texts != b.texts and a.wording & ORDERED:
            return PairCall("contradiction", "the same words in reverse order")
        return PairCall("repeat", "the same words")
    blocks, shared = _align(a, b)
    negation_flips = a.denies != b.denies
    if not blocks and not negation_flips:
        return PairCall("restatement", "the same claim, worded differently")
    if not shared:
        return PairCall("distinct", "no claim in common")
    names = {t.text for t in (*a.tokens, *b.tokens) if t.value}
    substitutions = [blk for blk in blocks if _is_substitution(blk, a, b)]
    cue = b.cue if b.cue and b.cue != a.cue else None
    slot = _one_slot(blocks, substitutions, names) or _anchored_value(a, b, names)
    announced = cue is not None and _same_subject(a, b)
    if announced:
        renamed = find_rename(old, new)
        changed = slot or _changed_value(a, b, substitutions, names, negation_flips, renamed)
        if changed:
            return PairCall("update", f"a change is announced ('{cue}'): {changed}")
    if negation_flips and (slot or not substitutions) and _mostly_shared(blocks, shared):
        if b.additive:
            return PairCall("distinct", "adds to the existing statement")
        return PairCall("contradiction", "one statement negates the other")
    grown = _grown_total(a, b) if slot else ""
    if grown:
        return PairCall("update", f"a running total grew: {grown}")
    if slot and not b.additive:
        return PairCall("contradiction", f"{DIFFERENT_VALUE}: {slot}")
    opposed = _opposed(a, b)
    if opposed and _same_subject(a, b) and shared >= 2 and not b.additive:
        return PairCall("contradiction", f"opposite claims: {opposed}")
    if announced:
        return PairCall("change", f"a change is announced ('{cue}') about the same subject")
    certain = {t.text for t in (*a.tokens, *b.tokens) if t.value and not t.guessed}
    parallel = [
        blk for blk in substitutions if len(blk.old) == len(blk.new) == 1 and not blk.old[0].verb
    ]
    swapped = [blk for blk in substitutions if _content_swap(blk)]
    if (
        any(_value_kinds(blk.old, certain) for blk in substitutions)
        or len(parallel) >= 2
        or swapped
    ):
        what = "; ".join(x.describe() for x in substitutions)
        return PairCall("distinct", f"a different claim: {what}")
    for blk in substitutions:
        if all(t.subject and not t.verb for t in (*blk.old, *blk.new)):
            return PairCall("distinct", f"another subject: {blk.describe()}")
    if len(blocks) == 1 and _one_verb_for_another(blocks[0]):
        return PairCall("reworded", f"one verb for another: {blocks[0].describe()}")
    added = [t for t in b.tokens if t.text in certain and t.text not in a.texts]
    if added:
        return PairCall("elaboration", f"names what the old does not ({_listed(added)})")
    return PairCall("paraphrase", "the same values in other words")


def _changed_value(
    a: Statement,
    b: Statement,
    substitutions: list[_Block],
    names: set[str],
    flips: bool,
    renamed: tuple[str, str] | None,
) -> str | None:
    """What an announced change changed, if the new statement changes the old claim:
    a negation, a rename of something the old statement names (`write/judge/rename.py`:
    "the upstream team renamed a column" renames nothing a note on time zones names),
    a value of one kind replaced by another of that kind, or a new value (a new owner,
    a new place) while the rest of the old claim stays."""
    if flips:
        return "negated"
    fresh = [t for t in b.tokens if not t.verb and t.text not in a.texts]
    if renamed is not None:
        return f"renamed to {renamed[1]}"
    for blk in substitutions:
        short = len(blk.old) <= MAX_SLOT and len(blk.new) <= MAX_SLOT
        if short and _value_kinds(blk.old, names) & _value_kinds(blk.new, names):
            return blk.describe()
    opposed = _opposed(a, b)
    if opposed:
        return opposed
    claim = [t.text for t in a.tokens if not t.verb and t.text not in names]
    kept = [w for w in claim if w in b.texts]
    if fresh and len(kept) * 2 >= len(claim):
        return "new value " + _listed(fresh)
    return None


def _align(a: Statement, b: Statement) -> tuple[list[_Block], int]:
    """The blocks where the token sequences differ, and how many tokens they share."""
    matcher = SequenceMatcher(None, a.texts, b.texts, autojunk=False)
    blocks = [
        _Block(a.tokens[i1:i2], b.tokens[j1:j2])
        for op, i1, i2, j1, j2 in matcher.get_opcodes()
        if op != "equal"
    ]
    return blocks, sum(size for _, _, size in matcher.get_matching_blocks())


def _is_substitution(block: _Block, a: Statement, b: Statement) -> bool:
    """One slot truly filled differently: words on both sides, each of them gone from
    (or new to) the other statement, not merely moved elsewhere in it (a reordering is
    not a new value)."""
    if not block.substitution:
        return False
    old_counts, new_counts = Counter(a.texts), Counter(b.texts)
    return all(new_counts[t.text] < old_counts[t.text] for t in block.old) and all(
        old_counts[t.text] < new_counts[t.text] for t in block.new
    )


def _same_subject(a: Statement, b: Statement) -> bool:
    """The new statement is about what the old one is about: they share a subject word,
    open with the same pronoun ("we…" / "we…"), or, when one of them has no subject
    before its verb ("Use…"), share two words of the claim."""
    subject_a, subject_b = _subject(a), _subject(b)
    words_a, words_b = set(a.texts), set(b.texts)
    if subject_a & words_b or subject_b & words_a:
        return True
    if a.person and a.person == b.person:
        return True
    return (not subject_a or not subject_b) and len(words_a & words_b) >= 2


def _one_slot(blocks: list[_Block], substitutions: list[_Block], names: set[str]) -> str:
    """The one slot a shared claim fills differently ("ruby → go"), or "" when the
    statements differ otherwise.

    The slot holds values of a shared kind (a name for a name, a time for a time), or,
    as the only difference, a word or two for a word or two ("violin" / "trumpet",
    "[harbor] [ingest]" / "[lighthouse]"); never a verb (a different verb is a different
    attribute). Or it swaps antonyms ("closed" / "open"). Two substitutions count as one
    slot when both replace values by values of the same kinds (a day and a time moved
    together).
    """
    if not substitutions or len(substitutions) != len(blocks):
        return ""
    if len(substitutions) == 1 and _antonyms(substitutions[0]):
        return substitutions[0].describe()
    for blk in substitutions:
        if any(t.verb for t in (*blk.old, *blk.new)):
            return ""
        if len(blk.old) > MAX_SLOT or len(blk.new) > MAX_SLOT:
            return ""
        old_kinds, new_kinds = _value_kinds(blk.old, names), _value_kinds(blk.new, names)
        if old_kinds & new_kinds:
            continue
        plain = len(blk.old) <= 2 and len(blk.new) <= 2 and not (old_kinds or new_kinds)
        if len(substitutions) > 1 or not plain:
            return ""
    return "; ".join(x.describe() for x in substitutions)


def _content_swap(block: _Block) -> bool:
    """Two or more things named on each side, none shared: "those for the independence
    of former colonies" / "leftist groups in countries" says another thing, where a
    paraphrase rewords a word or rephrases with a verb."""
    return sum(not t.verb for t in block.old) >= 2 and sum(not t.verb for t in block.new) >= 2


def _one_verb_for_another(block: _Block) -> bool:
    """The only difference is one verb for another: "talks to" / "reaches" restates,
    "I cycle to work" / "I drive to work" does not, and only the embeddings can tell
    (the write path asks them for as much agreement as for an elaboration)."""
    return len(block.old) == len(block.new) == 1 and block.old[0].verb and block.new[0].verb


ANCHOR = 2
"""Words either side of a value that say what it measures ("page 200", "for 6 months")."""


def _anchored_value(a: Statement, b: Statement, names: set[str]) -> str:
    """A value replaced by another of its kind in the same place of the claim, however
    much else the two sentences say: "using my Fitbit for 6 months now, and it helps me
    stay on track" / "using my Fitbit for 9 months now". The same place is a word next
    to both values ("page", "fitbit", "each day"), which a value merely mentioned
    elsewhere does not share. Only measures (numbers, amounts, times, dates): a name
    in another place of the sentence is often another role. And the subject must not
    be replaced ("the staging cluster has 3 nodes" is another fact than "the
    production cluster has 12 nodes")."""
    if a.person != b.person or (_subject(a) - set(b.texts) and _subject(b) - set(a.texts)):
        return ""
    for old, new in _replaced_measures(a, b):
        kinds = _value_kinds((old,), names) & _value_kinds((new,), names)
        if kinds and _context(a, old) & _context(b, new):
            return f"{shown_words([old])} → {shown_words([new])}"
    return ""


def _grown_total(a: Statement, b: Statement) -> str:
    """A measure that grew in a statement reporting a total so far (`Statement.running`):
    "6 months" → "9 months" of using a tracker, "page 200" → "page 220". Totals reached
    so far only grow, so the larger one is the later state of the same fact, not a
    rival claim. Times of day and dates are places in time, not totals."""
    if not b.running:
        return ""
    for old, new in _replaced_measures(a, b):
        kind, _, amount = old.text.partition("=")
        new_kind, _, new_amount = new.text.partition("=")
        if kind == new_kind and kind not in WHEN and _amount(new_amount) > _amount(amount):
            return f"{shown_words([old])} → {shown_words([new])}"
    return ""


def _replaced_measures(a: Statement, b: Statement) -> Iterator[tuple[Token, Token]]:
    """Each value the old statement has and the new one lacks, with each the new one
    has and the old one lacks ("time=15552000", "time=23328000")."""
    gone = [t for t in a.tokens if "=" in t.text and t.text not in b.texts]
    came = [t for t in b.tokens if "=" in t.text and t.text not in a.texts]
    return ((old, new) for old in gone for new in came)


def _amount(text: str) -> float:
    """A value's amount; NaN (never larger) for one that is no number ("day=wed")."""
    try:
        return float(text)
    except ValueError:
        return float("nan")


def _context(statement: Statement, value: Token) -> set[str]:
    index = statement.tokens.index(value)
    near = statement.tokens[max(0, index - ANCHOR) : index + ANCHOR + 1]
    return {t.text for t in near if "=" not in t.text and t is not value}


def _subject(statement: Statement) -> set[str]:
    return {t.text for t in statement.tokens if t.subject}


def _value_kinds(tokens: tuple[Token, ...], names: set[str]) -> frozenset[str]:
    """Kinds of the values among `tokens`: "when" (a time, day, date, month or part of
    the day: a schedule moves between them), "number", "time", …, "name"."""
    kinds = set()
    for t in tokens:
        if "=" in t.text:
            kind = t.text.split("=")[0]
            kinds.add("when" if kind in WHEN else kind)
        elif t.text in names:
            kinds.add("name")
    return frozenset(kinds)


def _antonyms(block: _Block) -> bool:
    """A short slot whose words swap for their opposites ("closed" → "open")."""
    if len(block.old) > 2 or len(block.new) > 2:
        return False
    return any(opposite(bare(old), bare(new)) for old in block.old for new in block.new)


def _opposed(a: Statement, b: Statement) -> str:
    """An opposite pair anywhere among the words that differ ("short" … "long")."""
    terms = opposed_terms(a, b)
    return f"{terms[0]} → {terms[1]}" if terms else ""


def _mostly_shared(blocks: list[_Block], shared: int) -> bool:
    different = sum(max(len(blk.old), len(blk.new)) for blk in blocks)
    return shared >= 2 and different <= shared


LISTED = 4
"""Words a reason lists before it says "…": a reason is read at a glance."""


def _listed(tokens: Sequence[Token]) -> str:
    words = list(dict.fromkeys(t.shown or t.text for t in tokens))
    return ", ".join(words[:LISTED]) + (", …" if len(words) > LISTED else "")
