"""Is a sentence of a conversation worth remembering? A small learned score.

The cue rules (`heuristic.py`) say what a sentence would be as a memory; they cannot
weigh a dozen weak signals at once — who said it, where it stands in the message, how
concrete it is, whether it reads as a finding or as narration. A logistic regression
over those signals does, trained on the development part of the sessions corpus
(`tests/data/sessions/train_worth.py`) and shipped as a few hundred bytes of weights
(`worth.json`). It scores only conversation turns: a note or a sentence given to
`capture` was written to be kept.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

from cortex_tui.capture.units import Unit, wide_characters

_I = re.IGNORECASE
_LESSON = re.compile(
    r"\b(?:because|root cause|caused by|the (?:cause|issue|problem|bug|culprit|reason)"
    r" (?:is|was)|the fix (?:is|was) to|turns? out|instead of|so that|incompatible"
    r"|not supported|does(?:n't| not) work"
    r"|(?:fails?|failed|crash(?:es|ed)?|breaks?|broke|hangs?|hung) (?:when|if|because|on|with"
    r"|under)|otherwise|which means|the trick|workaround|gotcha|pitfall)\b",
    _I,
)
_LASTING = re.compile(
    r"\b(?:always|never|must|should(?:n't| not)?|don't|do not|avoid|only|every|each time"
    r"|whenever|from now on|going forward|by default|convention|rule|policy|prefer\w*"
    r"|instead)\b",
    _I,
)
_WORLD = re.compile(
    r"\b(?:is|are|lives?|sits?|runs? on|listens? on|uses?|stores?|holds?|defaults? to"
    r"|points? to|is configured|is set|lives in|located|installed)\b",
    _I,
)
_TRANSIENT = re.compile(
    r"\b(?:now|currently|still|running|started|finished|done|epoch|step \d|progress|so far"
    r"|at the moment|right now|just|already|yet|again|pass(?:es|ed|ing)?|green|works now"
    r"|fixed|pushed|committed|let me|i'll|i will|i've|i have|i'm|let's|next)\b",
    _I,
)
_YOU = re.compile(r"\b(?:you|your|you're|you'll)\b", _I)
_PATHISH = re.compile(
    r"(?:^|[\s`(])(?:~|\.{0,2}/)?[\w.-]+/[\w./-]+|\b\w+\.(?:py|ts|tsx|js|json|"
    r"ya?ml|toml|md|rs|go|sh|cfg|ini|txt|csv|lock|env)\b"
)
_SUMMARY_HEADING = re.compile(
    r"\b(?:summary|root cause|cause|why|fix|changes?|changed|what (?:changed|was done)|lessons?"
    r"|learned|key|notes?|important|decision|conclusion|result|findings?|diagnosis|problem)\b",
    _I,
)
_CONDITIONAL = re.compile(r"^(?:if|when|once|after|before|unless|while)\b", _I)
_FIRST_PERSON = re.compile(r"^(?:i|we|i'm|i've|i'll|we're|we've|we'll|let me|let's)\b", _I)


@dataclass(frozen=True)
class Signals:
    """What the cue rules found in a sentence, for the score to weigh."""

    kind: str | None
    """The memory type the rules give it (None: no cue)."""
    cues: frozenset[str]
    """Which of the rules' cues it carries (`decision`, `hedge`, `meta`, ...)."""
    specifics: int
    """How many concrete things it names."""


def _wide_share(text: str) -> float:
    return wide_characters(text) / max(len(text), 1)


_CUES = (
    "preference",
    "rule",
    "soft_rule",
    "imperative",
    "procedure",
    "event",
    "change",
    "fact_verb",
    "pronoun_subject",
    "ephemeral",
    "opinion",
    "meta",
    "hedge",
)
"""The rules' cues a scored sentence can carry. A decision or "remember" never comes to
the score: it is kept outright (`heuristic.said_outright`)."""
_KINDS = ("rule", "preference", "procedure", "fact", "episode")
_USER_CUES = ("rule", "soft_rule", "imperative")
"""Cues that may weigh differently in the person's words (a preference of theirs is kept
outright; a rule of theirs comes to the score only when narration hides its cue)."""

Feature = Callable[[Unit, Signals], float]


def _kind_is(kind: str) -> Feature:
    return lambda unit, signals: float(signals.kind == kind)


def _has_cue(cue: str, speaker: str | None = None) -> Feature:
    return lambda unit, signals: float(cue in signals.cues and speaker in (None, unit.speaker))


_FEATURES: tuple[tuple[str, Feature], ...] = (
    ("user", lambda u, s: float(u.speaker == "user")),
    ("assistant", lambda u, s: float(u.speaker == "assistant")),
    *((f"kind_{kind}", _kind_is(kind)) for kind in _KINDS),
    ("no_kind", lambda u, s: float(s.kind is None)),
    *((f"cue_{cue}", _has_cue(cue)) for cue in _CUES),
    *((f"user_cue_{cue}", _has_cue(cue, "user")) for cue in _USER_CUES),
    ("specifics", lambda u, s: min(s.specifics, 6) / 6),
    ("no_specifics", lambda u, s: float(s.specifics == 0)),
    ("lesson", lambda u, s: float(bool(_LESSON.search(u.text)))),
    ("lasting", lambda u, s: min(len(_LASTING.findall(u.text)), 3) / 3),
    ("world", lambda u, s: float(bool(_WORLD.search(u.text)))),
    ("transient", lambda u, s: min(len(_TRANSIENT.findall(u.text)), 3) / 3),
    ("you", lambda u, s: float(bool(_YOU.search(u.text)))),
    ("path", lambda u, s: float(bool(_PATHISH.search(u.text)))),
    ("backticks", lambda u, s: min(u.text.count("`") // 2, 4) / 4),
    ("digits", lambda u, s: min(sum(c.isdigit() for c in u.text) / max(len(u.text), 1) * 10, 1)),
    ("words", lambda u, s: min(math.log1p(len(u.text.split())) / math.log1p(80), 1)),
    ("long", lambda u, s: float(len(u.text) > 250)),
    ("short", lambda u, s: float(len(u.text.split()) < 7)),
    ("first", lambda u, s: float(u.index == 0)),
    ("last", lambda u, s: float(u.index == u.of - 1)),
    ("where", lambda u, s: u.index / max(u.of - 1, 1)),
    ("message_size", lambda u, s: min(math.log1p(u.of) / math.log1p(60), 1)),
    ("item", lambda u, s: float(u.item)),
    ("procedure_unit", lambda u, s: float(u.procedure)),
    ("under_heading", lambda u, s: float(bool(u.heading))),
    ("summary_heading", lambda u, s: float(bool(_SUMMARY_HEADING.search(u.heading)))),
    ("wide", lambda u, s: _wide_share(u.text)),
    ("colon_lead", lambda u, s: float(bool(re.match(r"^[\w\s'-]{2,30}:\s", u.text)))),
    ("exclaim", lambda u, s: float("!" in u.text)),
    ("conditional", lambda u, s: float(bool(_CONDITIONAL.match(u.text)))),
    ("first_person", lambda u, s: float(bool(_FIRST_PERSON.match(u.text)))),
    ("quoted", lambda u, s: float(u.text.count('"') >= 2 or u.text.startswith(("'", '"')))),
    ("arrow", lambda u, s: float("→" in u.text or "->" in u.text)),
)
FEATURE_NAMES = tuple(name for name, _ in _FEATURES)


def features(unit: Unit, signals: Signals) -> list[float]:
    return [read(unit, signals) for _, read in _FEATURES]


@dataclass(frozen=True)
class WorthModel:
    """Weights by feature name, a bias, the score a sentence needs to be kept, and how
    many sentences of one turn are kept at most (the best scored)."""

    weights: dict[str, float]
    bias: float
    threshold: float
    per_turn: int

    def score(self, unit: Unit, signals: Signals) -> float:
        total = self.bias + sum(
            self.weights.get(name, 0.0) * value
            for name, value in zip(FEATURE_NAMES, features(unit, signals), strict=True)
        )
        return 1 / (1 + math.exp(-max(min(total, 40.0), -40.0)))

    def to_json(self) -> str:
        return json.dumps(
            {
                "bias": self.bias,
                "threshold": self.threshold,
                "per_turn": self.per_turn,
                "weights": self.weights,
            },
            indent=1,
        )


@cache
def shipped_model() -> WorthModel:
    raw = json.loads(resources.files("cortex_tui.capture").joinpath("worth.json").read_text())
    return WorthModel(
        dict(raw["weights"]), float(raw["bias"]), float(raw["threshold"]), int(raw["per_turn"])
    )
