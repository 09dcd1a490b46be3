"""One statement read as the write path needs it: subject, the words of its claim, its
values, whether it denies its claim and whether it announces a change.

A comparison of raw words confuses form with meaning: "isn't" and "is not", "PostgreSQL"
and "Postgres", "2 pm" and "14:00" differ as words and mean the same. Reading reduces each
statement to canonical tokens first (contractions expanded, values canonical, function
words and change cues set aside), so that two readings can be aligned and their
difference is what was actually claimed differently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from cortex_tui.capture.annotate import KNOWN_TOOLS
from cortex_tui.capture.quantities import AMBIGUOUS_UNITS, read_value

_CONTRACTIONS = (
    (re.compile(r"\bwon't\b", re.I), "will not"),
    (re.compile(r"\bcan't\b|\bcannot\b", re.I), "can not"),
    (re.compile(r"\bshan't\b", re.I), "shall not"),
    (re.compile(r"n't\b", re.I), " not"),
    (re.compile(r"'re\b", re.I), " are"),
    (re.compile(r"'m\b", re.I), " am"),
    (re.compile(r"'ve\b", re.I), " have"),
    (re.compile(r"'ll\b", re.I), " will"),
    (re.compile(r"'d\b", re.I), " would"),
    (re.compile(r"\b(it|that|there|what|who|he|she|here)'s\b", re.I), r"\1 is"),
    (  # "the office's closed", "Mei's the lead": "'s" before no noun is "is"
        re.compile(
            r"(\w)'s (?=(?:the|a|an|not|no|now|still|also|never|always|our|my|your|their|"
            r"on|in|at|off|out|up|down|over|back|\w+ing|\w+ed)\b)",
            re.I,
        ),
        r"\1 is ",
    ),
)
_TOKEN = re.compile(
    r"\d{1,2}[:.]\d{2}(?:\s?[ap]\.?m\.?)?(?![\d])"  # clock times
    r"|\d+(?:,\d{3})*(?:\.\d+)?(?:st|nd|rd|th)?"  # numbers and ordinals
    r"|[€$£%]"
    r"|/?[A-Za-z][\w+#']*(?:[./-][\w+#']+)*/?"  # words, paths, dotted names
)
_GLUED_UNIT = re.compile(r"^(\d+(?:\.\d+)?)([a-z%]+)$")

NEGATIONS = frozenset({"not", "never", "no", "without", "nobody", "nothing", "none", "neither"})
CHANGE_CUES = re.compile(
    r"\b(now|no longer|not any ?more|any ?more|nowadays|these days|from now on|going forward|"
    r"moving forward|from (?:today|tomorrow|next \w+|this \w+)(?: on)?|as of|effective|starting|"
    r"recently|lately|used to|formerly|previously|in place of|"
    r"(?:^|[,;:] ?)since|instead(?: of)?|(?:\w+ed|back) again|newly|"  # not "run it again"
    r"(?-i:new|New(?! [A-Z]))|"  # not "New York"
    r"took over|taken over|takes over|"
    r"handed\b[^,;.]{0,40}?\bover to|gave up|given up|turned|became|has become|have become|"
    r"outgrown|outgrew|(?:has|have|had) (?:now )?been \w+ed (?:to|from|into|with|by)|"
    r"(?:was|were|got) \w+ed (?:up |down |back |out )?(?:to|from|into)|"
    r"(?:\w+ed|cut|went|gone) (?:[\w,]+ ){0,3}(?:up|down|back) to|"  # not "holds up to 500"
    r"(?:renamed|rebranded|relocated|reassigned|rescheduled|repointed|reorganised|"
    r"reorganized|moved|moves|switched|switches|changed|changes|migrated|upgraded|"
    r"downgraded|replaced|renamed|dropped|stopped|quit|left|retired|deprecated|"
    r"promoted|demoted|raised|lowered|reduced|increased|decreased|bumped|extended|"
    r"shortened|rewritten|rewrote|reassigned|rescheduled|postponed|cancelled|canceled|"
    r"abandoned|updated|started|began|adopted|introduced))\b",
    re.IGNORECASE,
)
"""Words that say the statement reports a change rather than a standing fact."""

_CUE_VERB = re.compile(
    r"^(\w+ed|\w+en|moves|switches|changes|took|takes|gave|quit|left|rewrote|outgrew|"
    r"turned|became|become|began)$"
)
"""The verbs of a change cue: they announce the change and are no part of the claim
(unlike the object a wider cue spans: "handed *the indexer* over to")."""
_CUE_WORDS = frozenset(
    """now longer anymore any more nowadays these days from on going forward moving as of
    effective starting since instead again new newly took taken takes over handed gave up
    given turned became become outgrown outgrew""".split()
)
_STOP = frozenset(
    """a an the and or but of to in on at for by with from as into onto over under about
    is are was were be been being am do does did done has have had having will would shall
    should can could may might must it its this that these those there here which who whom
    whose what when where while so then than also just very really quite only all every
    each any some our we us you your i me my mine they them their he him his she her
    get gets got please always usually currently still too well both either during via
    through until within across between among upon around throughout against toward
    towards near rather""".split()
)
"""Function words: they carry no claim of their own. ("all", "only" and "always" qualify a
claim but never distinguish a fact from its rival.)"""

_ARTICLES = frozenset({"a", "an", "the"})
Modality = Literal["required", "advised", "permitted", "able"]
"""How a statement holds its claim: as a rule, advice, a permission or an ability."""
_MODALS: tuple[tuple[re.Pattern[str], Modality], ...] = (
    (
        re.compile(
            r"\b(?:must|shall|mandatory|obligatory|required to|(?:has|have|had|need|needs) to|"
            r"(?:is|are) required)\b"
        ),
        "required",
    ),
    (re.compile(r"\b(?:should|ought to|recommended|encouraged|preferably)\b"), "advised"),
    (
        re.compile(
            r"\b(?:may|might|optional|optionally|allowed to|permitted to|free to|"
            r"(?:is|are) allowed|(?:is|are) permitted)\b"
        ),
        "permitted",
    ),
    (re.compile(r"\b(?:can|could|able to)\b"), "able"),
)
"""Strongest first: "you must, but may…" reads as required. "Never" is a negation."""
Frequency = Literal["always", "usually", "sometimes", "rarely"]
_FREQUENCIES: tuple[tuple[re.Pattern[str], Frequency], ...] = (
    (re.compile(r"\b(?:always|every time|without exception|invariably)\b"), "always"),
    (re.compile(r"\b(?:usually|mostly|generally|normally|typically|often)\b"), "usually"),
    (re.compile(r"\b(?:sometimes|occasionally|at times|now and then)\b"), "sometimes"),
    (re.compile(r"\b(?:rarely|seldom|hardly ever)\b"), "rarely"),
)
DENIALS = re.compile(r"\b(?:not|never|no|nobody|nothing|none|neither|nor)\b")
CONTRASTS = re.compile(r"(?:[,;(]\s*(?:and |but )?|\bbut )not\b|\bnot (?:only|just|merely)\b")
"""A "not" that sets an alternative aside ("TypeScript, not JavaScript") denies nothing."""
EXCLUSIVE = re.compile(r"\b(?:only|solely|exclusively|nothing but|no one but|nobody but)\b")
"""A claim that shuts out every alternative ("only admins can delete")."""
_PERSONS = frozenset({"i", "we", "you", "he", "she", "they"})
ADDITIVE = re.compile(r"\b(also|too|as well|another|additionally|in addition|besides)\b", re.I)
"""A statement that adds to what is known ("Redis also backs the rate limiter")."""
RUNNING = re.compile(
    r"\b(?:so far|already|by now|to date|in total|up to now|until now|"
    r"(?:have|has) (?:now |already |just |finally )?"
    r"(?:been \w+ing|(?!(?:that|what|it|not|but|just|about)\b)\w+(?:ed|en|t|wn|ne|ght))|"
    r"just (?:\w+ed|finished|hit|reached|passed|crossed))\b",
    re.I,
)
"""A statement that reports a total reached so far ("I've read 220 pages", "10 hours
so far", "just completed 50 episodes"): a later, larger total is progress, not a rival
claim."""

SYNONYMS = {
    "postgresql": "postgres",
    "psql": "postgres",
    "k8s": "kubernetes",
    "js": "javascript",
    "ts": "typescript",
    "py": "python",
    "golang": "go",
    "mum": "mother",
    "mom": "mother",
    "mommy": "mother",
    "dad": "father",
    "daddy": "father",
    "kid": "child",
    "kids": "child",
    "children": "child",
    "wife": "partner",
    "husband": "partner",
    "spouse": "partner",
    "boyfriend": "partner",
    "girlfriend": "partner",
    "repo": "repository",
    "prod": "production",
    "stg": "staging",
    "infra": "infrastructure",
    "db": "database",
    "env": "environment",
    "config": "configuration",
    "docs": "documentation",
    "pr": "pull request",
    "pm": "product manager",
    "dba": "database administrator",
    "sre": "site reliability engineer",
    "qa": "quality assurance",
    "ui": "user interface",
    "ux": "user experience",
    "alternate": "every other",
    "weeknight": "weekday evening",
    "weeknights": "weekday evening",
    "daily": "day",
    "grandma": "grandmother",
    "granny": "grandmother",
    "grandpa": "grandfather",
}
_VERB = re.compile(
    r"^(is|are|was|were|be|been|am|uses?|used|runs?|ran|lives?|lived|works?|worked|leads?|"
    r"led|starts?|started|ends?|ended|deploys?|deployed|hosts?|hosted|has|have|had|owns?|"
    r"owned|requires?|required|needs?|needed|reads?|writes?|wrote|takes?|took|should|must|"
    r"will|can|goes|go|went|stays?|stayed|sits?|meets?|met|happens?|costs?|moved|moves|"
    r"switched|changed|upgraded|migrated|replaced|prefers?|preferred|likes?|liked|wants?|"
    r"manages?|managed|reports?|reported|maintains?|maintained|supports?|supported|handles?|"
    r"mentors?|plays?|talks?|gets?|gives?|keeps?|sends?|handed|turned|joined|left|written|"
    r"built|made|done|run|kept|held|paid|sent|given|taken|known|called|named|seen|"
    r"does|do|did|makes?|serves?|backs?|reaches?|hits?|carr(?:y|ies)|begins?|began|"
    r"finish(?:es)?|opens?|closes?|eats?|drinks?|drives?|rides?|cycles?|walks?)$"
)


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    value: bool
    """A number, amount, time, day, date or name: the slot a rival statement fills
    differently."""
    subject: bool
    """Before the statement's first verb."""
    verb: bool
    guessed: bool = False
    """A name only by position (a capitalised first word before a verb): good enough to
    see one name replace another, too weak to call a statement new information."""
    shown: str = field(default="", compare=False)
    """The words as written ("10 am", "Tuesdays"), for reasons a person reads; `text`
    is the canonical form the judge compares ("clock=10:00", "tuesday")."""


@dataclass(frozen=True, slots=True)
class Statement:
    tokens: tuple[Token, ...]
    denies: bool
    """The claim itself is negated ("we do not deploy on Fridays"), not merely a word
    qualified ("answers without preamble") or an alternative set aside ("TypeScript,
    not JavaScript")."""
    cue: str | None
    additive: bool
    wording: frozenset[str]
    """Every word as written (case, articles and punctuation aside): equal wordings
    are a repeat, not a restatement."""
    person: str | None
    """The pronoun the statement opens with ("we", "i"): its subject when it has no
    other."""
    modality: Modality | None = None
    frequency: Frequency | None = None
    exclusive: bool = False
    running: bool = False

    @property
    def texts(self) -> list[str]:
        return [t.text for t in self.tokens]

    @property
    def values(self) -> frozenset[str]:
        return frozenset(t.text for t in self.tokens if t.value)


READ_LIMIT = 2000
"""Characters of a statement that are read: a memory is a sentence or a note, and the
alignment is quadratic in tokens, so a pasted document must not cost seconds."""


@lru_cache(maxsize=1024)
def read(text: str) -> Statement:
    """The statement `text` makes, read once: the write path judges a new statement
    against several neighbours, and a statement against every memory it meets."""
    expanded = text[:READ_LIMIT].replace("’", "'").replace("‘", "'")
    for pattern, replacement in _CONTRACTIONS:
        expanded = pattern.sub(replacement, expanded)
    cues = [m.group(0).lower() for m in CHANGE_CUES.finditer(expanded)]
    cue_words = {w for cue in cues for w in _TOKEN.findall(cue) if _CUE_VERB.match(w)}
    raw = [_singular_acronym(w) for w in _split_glued(_TOKEN.findall(expanded))]
    lowered = [w.lower() for w in raw]
    tokens: list[Token] = []
    verb_seen = False
    index = 0
    first_word = True
    while index < len(raw):
        word, lower = raw[index], lowered[index]
        value = read_value(lowered, index)
        if value is not None and not (lower in AMBIGUOUS_UNITS and value.width == 1):
            shown = " ".join(raw[index : index + value.width])
            tokens.append(Token(value.token, True, not verb_seen, False, shown=shown))
            index += value.width
            first_word = False
            continue
        index += 1
        if lower in NEGATIONS:  # read as `denies`, from the whole sentence
            continue
        verb = bool(_VERB.match(lower))
        subject = not verb_seen and not verb
        verb_seen = verb_seen or verb
        if lower.endswith("'s"):
            lower = lower[:-2]
        cue_word = lower in _CUE_WORDS or lower in cue_words
        if lower in _STOP or (cue_word and not _starts_a_name(word, raw[index : index + 1])):
            first_word = False
            continue
        canonical = SYNONYMS.get(lower, lower)
        name = _is_name(word, first_word, lowered[index] if index < len(lowered) else "")
        guessed = name and first_word and not _is_name(word, False, "")
        for part in canonical.split():
            tokens.append(Token(stem(part), name, subject, verb and not name, guessed, shown=word))
        first_word = False
    sentence = " ".join(lowered)
    claim = CONTRASTS.sub(" ", expanded.lower())
    return Statement(
        tokens=tuple(tokens),
        denies=bool(DENIALS.search(claim)),
        cue=cues[0] if cues else None,
        additive=bool(ADDITIVE.search(expanded)),
        wording=frozenset(lowered) - _ARTICLES,
        person=lowered[0] if lowered and lowered[0] in _PERSONS else None,
        modality=next((name for pattern, name in _MODALS if pattern.search(sentence)), None),
        frequency=next((name for pattern, name in _FREQUENCIES if pattern.search(sentence)), None),
        exclusive=bool(EXCLUSIVE.search(sentence)),
        running=bool(RUNNING.search(expanded)),
    )


def _starts_a_name(word: str, following: list[str]) -> bool:
    """A capitalised word before another ("New York", "Now TV"): part of a name, not
    the change cue it spells in lower case."""
    return word[:1].isupper() and bool(following) and following[0][:1].isupper()


def _singular_acronym(word: str) -> str:
    """ "IDs", "APIs", "PRs" → "ID", "API", "PR"."""
    return word[:-1] if len(word) > 2 and word[-1] == "s" and word[:-1].isupper() else word


def _split_glued(words: list[str]) -> list[str]:
    """ "90s", "4GiB", "10am" → number and unit, so they read as "90 s"."""
    out = []
    for word in words:
        match = _GLUED_UNIT.match(word.lower())
        if match and not re.fullmatch(r"\d+(st|nd|rd|th)", word.lower()):
            out += [match.group(1), match.group(2)]
        else:
            out.append(word)
    return out


def _is_name(word: str, first: bool, following: str) -> bool:
    """A proper name, tool, path or identifier: capitalised mid-sentence, a known tool,
    upper-case, or carrying a path or dot. A capitalised first word is a name when a
    verb follows it directly ("Priya leads", "Memcached is"), unless it reads as a
    plural ("Backups run", but "Jonas owns") or an instruction ("Use", "Prefer")."""
    bare = word[:-2] if word.lower().endswith("'s") else word
    if bare.lower() in KNOWN_TOOLS or "/" in bare or "." in bare or "_" in bare:
        return True
    if any(ch.isdigit() for ch in bare) or any(ch.isupper() for ch in bare[1:]):
        return True  # "nose2", "gRPC", "LaunchDarkly"
    if not bare[:1].isupper():
        return False
    if not first:
        return True
    lower = bare.lower()
    singular = following in ("is", "was", "has", "does") or (
        following.endswith("s") and bool(_VERB.match(following))
    )
    return (
        bool(_VERB.match(following))
        and (singular or not lower.endswith("s"))
        and not _VERB.match(lower)
        and lower not in _STOP
    )


def stem(word: str) -> str:
    """A light suffix strip so "deploys", "deployed", "deploying" and "deploy" meet
    ("lives", "living" and "live" too)."""
    if any(ch.isdigit() for ch in word) or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "es" and not word[:-2].endswith(("sh", "ch", "x", "ss", "z")):
                continue
            word = word[: -len(suffix)]
            if suffix in ("ing", "ed") and len(word) > 3 and word[-1] == word[-2]:
                word = word[:-1]  # "planning" → "plan"
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word
