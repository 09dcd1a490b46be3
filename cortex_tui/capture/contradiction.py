"""Offline judgement of how a new statement relates to a similar existing one.

Embeddings say two statements are about the same thing; they cannot say whether the new
one *changes* it ("Alice works at Globex" after "Alice works at Initech" is as similar as
a restatement). This module compares the two texts word by word:

- the **subject** is the part before the first main verb; statements whose subjects
  differ ("the web app is…" / "the mobile app is…") are distinct facts;
- a **change signal** in the new statement ("now", "moved to", "no longer", "upgraded")
  with the same subject makes it an update;
- the same subject with a different value after the verb (a number, time, version, day,
  name) or an added/removed negation, and no change signal, is a contradiction;
- otherwise the new statement either says nothing new (a restatement) or adds
  information (a distinct memory).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Verdict = Literal["update", "contradiction", "restatement", "distinct"]

_CHANGE = re.compile(
    r"\b(now|no longer|not anymore|any ?more|moved|switched|changed|change[sd]? to|"
    r"upgraded|downgraded|migrated|replaced|renamed|took over|taken over|as of|"
    r"from now on|starting (today|tomorrow|next|on|in)|since (last|this)|instead|"
    r"has become|became|was promoted|handed over|stepped down|left|retired|deprecated)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(not|never|no|n't|cannot|without)\b", re.IGNORECASE)
_VERB = re.compile(
    r"\b(is|are|was|were|be|been|uses?|used|runs?|ran|lives?|lived|works?|worked|leads?|led|"
    r"starts?|started|ends?|ended|deploys?|deployed|hosts?|hosted|has|have|had|owns?|owned|"
    r"requires?|required|needs?|needed|depends?|depended|reads?|writes?|wrote|takes?|took|"
    r"should|must|will|can|goes|go|went|stays?|stayed|sits?|meets?|met|happens?|costs?|"
    r"moved|switched|changed|upgraded|migrated|replaced|prefers?|preferred|manages?|"
    r"managed|reports?|reported|owns|maintains?|maintained|supports?|supported)\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[a-z0-9][a-z0-9.:+#_/-]*", re.IGNORECASE)
_STOP = frozenset(
    "a an the and or of to in on at for by with from as is are was were be been it "
    "its this that these those we our you your they their he she his her i my me us "
    "them do does did so then than there here also just very which who whom what when "
    "where every each all any some before after into onto over under about".split()
)
_CHANGE_WORDS = frozenset(
    "now longer anymore moved switched changed upgraded downgraded migrated replaced "
    "renamed took taken over instead became become promoted handed stepped left "
    "retired deprecated since starting off".split()
)


@dataclass(frozen=True, slots=True)
class Judgement:
    verdict: Verdict
    reason: str


@dataclass(frozen=True, slots=True)
class _Parts:
    subject: frozenset[str]
    predicate: frozenset[str]
    negated: bool

    @property
    def words(self) -> frozenset[str]:
        return self.subject | self.predicate


def judge_offline(old: str, new: str) -> Judgement:
    a, b = _split(old), _split(new)
    shared = a.words & b.words
    if len(shared) < 2 and not (a.subject and a.subject == b.subject):
        return Judgement("distinct", "too few words in common to be about one subject")
    changed = bool(_CHANGE.search(new)) and not _CHANGE.search(old)
    if changed and len(shared) >= 2 and (not a.subject or a.subject & b.words):
        # "Marco took over as atlas lead; Priya no longer leads atlas" renames the
        # subject on purpose: the old subject still appears, so this is an update.
        return Judgement("update", f"the new statement signals a change ({_signal(new)})")
    subject_added = b.subject - a.words
    subject_dropped = a.subject - b.words
    if subject_added and subject_dropped:
        return Judgement(
            "distinct",
            f"different subjects ({', '.join(sorted(subject_dropped))} / "
            f"{', '.join(sorted(subject_added))})",
        )
    if changed:
        return Judgement("update", f"the new statement signals a change ({_signal(new)})")
    if a.negated != b.negated and len(shared) >= 3:
        return Judgement("contradiction", "one statement negates the other")
    removed = a.predicate - b.words
    added = b.predicate - a.words
    if removed and added:
        return Judgement(
            "contradiction",
            f"same subject, different value ({', '.join(sorted(removed))} → "
            f"{', '.join(sorted(added))})",
        )
    if added and len(added) > max(1, len(b.words) // 3):
        return Judgement("distinct", f"adds information ({', '.join(sorted(added))})")
    return Judgement("restatement", "says nothing the existing memory does not")


def _split(text: str) -> _Parts:
    lowered = text.casefold()
    match = _VERB.search(lowered)
    head, tail = (lowered[: match.start()], lowered[match.start() :]) if match else ("", lowered)
    return _Parts(
        subject=_content_words(head),
        predicate=_content_words(tail),
        negated=bool(_NEGATION.search(lowered)),
    )


def _content_words(text: str) -> frozenset[str]:
    words = set()
    for token in _TOKEN.findall(text):
        word = token.strip(".:/-")
        if not word or word in _STOP or word in _CHANGE_WORDS or _VERB.fullmatch(word):
            continue
        words.add(_stem(word))
    return frozenset(words)


def _stem(word: str) -> str:
    if any(ch.isdigit() for ch in word) or len(word) <= 4:
        return word
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _signal(text: str) -> str:
    match = _CHANGE.search(text)
    return match.group(0) if match else ""
