"""The slots two readings of a claim must agree on before one may fold into the other.

Folding a statement into a memory (a duplicate, a reinforcement) keeps only the old
wording: if the two actually disagree, the newer claim is lost and recall never shows
the conflict. Embeddings put "logs are kept 30 days" and "… 90 days", or "contributors
must sign the CLA" and "… may sign", as close as any paraphrase, so closeness never
licenses a fold. A fold needs every slot to agree:

- **values** of each kind (a number with its unit, a time, a date, a name): one side
  replacing a value of a kind with another of that kind; naming more is an elaboration;
- **negation**: one side negated and the other not, unless an opposite term flips it
  back ("not public" / "private");
- **modality**: required (must, have to), advised (should), permitted (may, optional)
  and able (can) are different claims, and so are "always", "sometimes" and "rarely"; a
  plain statement reads as any of required, advised, able, always or usually;
- **scope**: "only" on one side shuts out what the other leaves open;
- **polarity and opposite terms**: enable / disable, allow / deny, add / remove,
  stateless / stateful, … among the words that differ.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from cortex_tui.write.judge.statement import Statement, Token, stem

SlotKind = Literal["value", "negation", "modality", "scope", "polarity"]

_PAIRS = (
    "day night, light dark, light heavy, short long, open closed, public private, "
    "enabled disabled, on off, allow forbid, allow ban, allow prohibit, allow deny, "
    "allowed denied, allow block, permit forbid, permit deny, grant revoke, add remove, "
    "add drop, include exclude, insert delete, create delete, show hide, shown hidden, "
    "visible hidden, lock unlock, accept reject, approve reject, pass fail, succeed fail, "
    "win lose, required optional, mandatory optional, sync async, start stop, early late, "
    "before after, min max, minimum maximum, upper lower, remote office, like hate, "
    "love hate, like dislike, prefer avoid, weekday weekend, increase decrease, raise lower, "
    "more less, more fewer, higher lower, faster slower, better worse, bigger smaller, "
    "larger smaller, up down, true false, sequential parallel, serial parallel, "
    "concurrent sequential, manual automatic, static dynamic, "
    "strict lenient, strict loose, internal external, inbound outbound, read write, "
    "import export, push pull, online offline, hot cold, cheap expensive, fast slow, "
    "hard soft, same different, agree disagree, trust distrust, old young, "
    "eldest youngest, oldest youngest, older younger, elder younger, first last, "
    "male female, positive negative, success failure, win loss, won lost, victory defeat, "
    "alive dead, north south, east west, winner loser, gain loss, profit loss, "
    "above below, inside outside, rise fall, major minor"
)


def _both_ways(pairs: str) -> dict[str, frozenset[str]]:
    opposites: dict[str, frozenset[str]] = {}
    for pair in pairs.split(", "):
        one, other = (stem(word) for word in pair.split())
        opposites[one] = opposites.get(one, frozenset()) | {other}
        opposites[other] = opposites.get(other, frozenset()) | {one}
    return opposites


ANTONYMS = _both_ways(_PAIRS)
"""Words, as stems ("private" → "privat"), whose swap reverses a claim ("open" /
"closed", "enable" / "disable")."""
_NEGATIVE_PREFIXES = ("un", "non")
_LATIN_PREFIXES = ("in", "im", "il", "ir", "dis")
_LATIN_ROOTS = ("abl", "ibl", "ent", "ant", "iv", "al", "ect", "et", "ur", "ar", "id", "ow")
"""Endings of the roots a Latin prefix negates ("incorrect", "immutable", "insecure"),
not of those it merely starts ("install", "import", "display")."""


def opposite(a: str, b: str) -> bool:
    """Two word stems that say opposite things: listed ("allow" / "deny"), one the
    other's negative form ("supported" / "unsupported", "valid" / "invalid"), or the
    same root with -less and -ful ("stateless" / "stateful")."""
    a, b = _adjective(a), _adjective(b)
    if b in ANTONYMS.get(a, ()):
        return True
    short, long = sorted((a, b), key=len)
    if len(short) > 3 and long.endswith(short):
        prefix = long[: -len(short)]
        if prefix in _NEGATIVE_PREFIXES:
            return True
        if prefix in _LATIN_PREFIXES and short.endswith(_LATIN_ROOTS):
            return True
    for x, y in ((a, b), (b, a)):
        root = x.removesuffix("less").removesuffix("les")  # "stateless" stems to "stateles"
        if root != x and len(root) > 2 and y == root + "ful":
            return True
    return False


def _adjective(word: str) -> str:
    """ "sequentially" → "sequential": an adverb says what its adjective says."""
    return word[:-2] if word.endswith("ly") and len(word) > 6 else word


def bare(token: Token) -> str:
    """The word of a token, without the kind of a value ("period=night" → "night")."""
    return token.text.rpartition("=")[2]


@dataclass(frozen=True, slots=True)
class SlotDifference:
    kind: SlotKind
    old: str
    new: str

    def describe(self) -> str:
        return f"{self.kind} differs: {self.old or '∅'} → {self.new or '∅'}"


def differing_slot(old: Statement, new: Statement) -> SlotDifference | None:
    """The first slot the two readings fill differently, or None when a fold keeps
    every claim either of them makes."""
    return (
        _values(old, new)
        or _negation_and_polarity(old, new)
        or _modality(old, new)
        or _scope(old, new)
    )


def _values(old: Statement, new: Statement) -> SlotDifference | None:
    """A value of one kind replaced by another of that kind, or a name put where a word
    or two stood ("priya owns…" / "Marco owns…": a name written in lower case is still
    replaced; "a science-fiction novel" / "a Southern Gothic novel"). Names count only
    when certain (a capitalised first word is a guess, and paraphrases often reword
    it)."""
    old_kinds, new_kinds = _by_kind(old.tokens), _by_kind(new.tokens)
    for kind in old_kinds.keys() & new_kinds.keys():
        gone = old_kinds[kind] - new_kinds[kind]
        came = new_kinds[kind] - old_kinds[kind]
        if gone and came:
            return SlotDifference("value", _shown(old, gone), _shown(new, came))
    matcher = SequenceMatcher(None, old.texts, new.texts, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace" or i2 - i1 > NAME_SLOT or j2 - j1 > NAME_SLOT:
            continue
        before, after = old.tokens[i1:i2], new.tokens[j1:j2]
        named = any(map(_certain_name, before)) or any(map(_certain_name, after))
        moved = any(t.text in new.texts for t in before) or any(  # passive voice
            t.text in old.texts for t in after
        )
        verbs = any(t.verb for t in (*before, *after))
        if named and not moved and not verbs:
            return SlotDifference("value", shown_words(before), shown_words(after))
    return None


NAME_SLOT = 2
"""Most tokens a name, or the words it replaces, may span ("science-fiction" →
"Southern Gothic", "priya" → "Marco")."""


def shown_words(tokens: Iterable[Token]) -> str:
    """The tokens as written, for a reason: "10 am", not "clock=10:00"; a word the
    reading split in two ("k8s" → kubernetes) shown once."""
    return " ".join(dict.fromkeys(t.shown or t.text for t in tokens))


def _certain_name(token: Token) -> bool:
    return token.value and not token.guessed and "=" not in token.text


def _by_kind(tokens: Iterable[Token]) -> dict[str, set[str]]:
    kinds: dict[str, set[str]] = {}
    for token in tokens:
        if not token.value or token.guessed:
            continue
        kind = token.text.split("=")[0] if "=" in token.text else "name"
        kinds.setdefault(kind, set()).add(token.text)
    return kinds


def _negation_and_polarity(old: Statement, new: Statement) -> SlotDifference | None:
    """A negation on one side only, or opposite terms among the words that differ; the
    two together cancel ("not public" restates "private")."""
    flipped = old.denies != new.denies
    opposed = opposed_terms(old, new)
    if flipped and opposed is None:
        return SlotDifference(
            "negation",
            "negated" if old.denies else "affirmed",
            "negated" if new.denies else "affirmed",
        )
    if opposed is not None and not flipped:
        return SlotDifference("polarity", *opposed)
    return None


def opposed_terms(old: Statement, new: Statement) -> tuple[str, str] | None:
    """An opposite pair among the words one statement has and the other lacks, as
    written ("closed", "open"); a word merely moved elsewhere is no difference."""
    old_counts, new_counts = Counter(map(bare, old.tokens)), Counter(map(bare, new.tokens))
    gone = [t for t in old.tokens if old_counts[bare(t)] > new_counts[bare(t)]]
    came = [t for t in new.tokens if new_counts[bare(t)] > old_counts[bare(t)]]
    for before in gone:
        for after in came:
            if opposite(bare(before), bare(after)):
                return before.shown or bare(before), after.shown or bare(after)
    return None


_COMPATIBLE_MODALITIES = (
    frozenset({None, "required"}),
    frozenset({None, "advised"}),
    frozenset({None, "able"}),
    frozenset({"able", "permitted"}),
)
"""A plain statement ("use tabs") holds its claim as firmly as "you must use tabs", or as
"you should use tabs"; "can" is "may" in other words. "Must" against "should", or a
plain claim against "may", are two claims."""
_COMPATIBLE_FREQUENCIES = (frozenset({None, "always"}), frozenset({None, "usually"}))


def _modality(old: Statement, new: Statement) -> SlotDifference | None:
    if _compatible(old.modality, new.modality, _COMPATIBLE_MODALITIES):
        return _frequency(old, new)
    return SlotDifference("modality", old.modality or "plain", new.modality or "plain")


def _frequency(old: Statement, new: Statement) -> SlotDifference | None:
    if _compatible(old.frequency, new.frequency, _COMPATIBLE_FREQUENCIES):
        return None
    return SlotDifference("modality", old.frequency or "plain", new.frequency or "plain")


def _compatible(a: str | None, b: str | None, groups: tuple[frozenset[str | None], ...]) -> bool:
    return a == b or any({a, b} <= group for group in groups)


def _scope(old: Statement, new: Statement) -> SlotDifference | None:
    if old.exclusive == new.exclusive:
        return None
    return SlotDifference(
        "scope", "only" if old.exclusive else "open", "only" if new.exclusive else "open"
    )


def _shown(statement: Statement, texts: set[str]) -> str:
    return shown_words(t for t in statement.tokens if t.text in texts)
