"""Offline memory extraction: durable statements found by cues, without any model.

This is the default capture path, so it leans towards precision: a memory store full of
"thanks, that works" and "let me check the logs" is worse than one that misses a fact.
A sentence becomes a candidate only when it carries a cue (a decision, rule, preference,
procedure or dated event) or reads as a concrete fact (a non-pronoun subject, a fact verb
and something specific: a name, number, version, path or identifier). Questions, hedges,
the agent's narration, chit-chat and code never do. Everything here is deterministic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from cortex_tui.capture.annotate import (
    ABBREVIATIONS,
    BACKTICK,
    KNOWN_TOOLS,
    find_date,
    find_entities,
    find_relations,
    make_tags,
)
from cortex_tui.models import Candidate, CandidateEntity, CandidateRelation, Scope
from cortex_tui.models import MemoryType as T

_I = re.IGNORECASE
_FENCED = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$", re.DOTALL | re.MULTILINE)
_ROLE = re.compile(r"^(?:user|assistant|human|claude|ai)\s*:\s*", _I)
_BULLET = re.compile(r"^(?:[-*+•]|\d{1,2}[.)])\s+")
_SKIP_LINE = re.compile(r"^(?:#{1,6}\s|\||[-=*_]{3,}\s*$|\$\s|>>>\s|<[/a-z])", _I)
_EMPHASIS = re.compile(r"(`[^`\n]*`)|\*\*|~~|(?<![\w*])([*_])(\S(?:[^*_`\n]*?\S)?)\2(?![\w*])")
_BREAK = re.compile(r"[.!?]+[\"')\]]*\s+")

_INTERJECTION = re.compile(
    r"^(?:(?:ok(?:ay)?|yes|yeah|yep|no|nope|sure|great|cool|nice|good|awesome|perfect|done"
    r"|thanks|thank you|alright|right|oh|well|hmm|got it|also|btw|fyi)\s*[,!:.–—-]+\s*"
    r"|(?:so|also|and|but|plus|btw)\s+)+",
    _I,
)
_REMEMBER = re.compile(
    r"^(?:please\s+)?(?:remember|note|keep in mind|don't forget|for (?:future )?reference"
    r"|important)(?:\s+that)?\s*[:,-]?\s+",
    _I,
)
_QUESTION = re.compile(
    r"\?\s*$|^(?:can|could|would|will) you\b|^please\b(?!.*\b(?:always|never)\b)", _I
)
_CODE = re.compile(
    r"^(?:def|class|import|from \S+ import|return|const|let|var|function|select|insert)\b"
    r"|[{};]\s*$|==|::|=>|\bTraceback\b|^\W*$",
    _I,
)
_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|probably|possibly|might|may (?:be|not|have|want|need)|could be"
    r"|not sure|unsure|i think|i guess|i suppose|i believe|i assume|we could|you could"
    r"|could try|should we|what if|wonder|seems?|apparently|presumably|likely|tbd"
    r"|undecided|considering|thinking about|hopefully|kind of|sort of)\b",
    _I,
)
_META = re.compile(
    r"^(?:let me|let's see|i'll|i will|i'm (?:going|about|trying|now|still|done|not)"
    r"|i am (?:going|about|trying|now|still|done|not)|i(?:'ve| have| had)? ?(?:just |also |now )?"
    r"(?:\w+ed|made|run|ran|written|wrote|done|did|built|found|got|see|saw|can)\b"
    r"|here(?:'s| is| are)|now,? (?:i|let's)|next,? i|first,? i|as you (?:can see|mentioned"
    r"|said|asked)|you(?:'re| are) right|good (?:question|catch|point)|hope this helps"
    r"|let me know|feel free)\b|\b(?:this|our) (?:conversation|chat|thread)\b|\bthis session\b",
    _I,
)
_DECISION = re.compile(
    r"\b(?:we|i|the team)(?:'ve| have)?\s+(?:just\s+|finally\s+)?(?:decided|agreed|chose"
    r"|settled on|went with|are going with|will go with)\b|\bwe're going with\b"
    r"|^decision\s*:|\bgoing forward\b|\bfrom now on\b|\blet's go with\b",
    _I,
)
_PREFERENCE = re.compile(
    r"\b(?:i|we|the user)(?:'d| would)?\s+(?:really\s+|strongly\s+|generally\s+)?"
    r"(?:prefer|like|love|hate|dislike|rather|want)\b(?!\s+(?:you|to|it|that|this)\b)"
    r"|\bprefers\b|\bmy (?:preference|favou?rite)\b",
    _I,
)
_RULE = re.compile(
    r"\b(?:always|never|must(?: not)?|mustn't|(?:is|are) required to|not allowed|forbidden)\b",
    _I,
)
_SOFT_RULE = re.compile(
    r"^(?:don't|do not|avoid|make sure|ensure)\b"
    r"|\b(?:we|you|everyone|nobody)\s+(?:don't|do not|should not|shouldn't)\b",
    _I,
)
_PROCEDURE = re.compile(
    r"^(?:to|in order to)\s+[a-z][^,:]{2,80}[,:]\s*(?:just\s+)?(?:run|use|call|execute|type"
    r"|open|set|add|install|invoke|start|edit|create|export|build)\b|\b(?:run|use|execute"
    r"|invoke|type)\s+`[^`]+`|\bthe command (?:is|to)\b|\bsteps? (?:to|for)\b",
    _I,
)
_IMPERATIVE = re.compile(r"^(?:use|keep|put|name|store|place|pin|prefix|write)\b", _I)
_INTRO = re.compile(r"(?:^|\b)(?:to|how to|steps? to|in order to|process|procedure)\b.*:$", _I)
_EVENT = re.compile(
    r"\b(?:happened|broke|failed|went down|crashed|rolled back|reverted|deployed|released"
    r"|shipped|migrated|merged|launched|upgraded|outage|incident|postmortem|was down)\b",
    _I,
)
_CHANGE = re.compile(
    r"\b(?:now|moved|relocated|joined|switched|as of|since|starting|no longer|took over"
    r"|became|promoted|upgraded|migrated)\b",
    _I,
)
_FACT_VERB = re.compile(
    r"\b(?:is|are|was|were|uses?|runs?|lives?|works?|leads?|depends? on|requires?|has|have"
    r"|contains?|stores?|listens? on|points? to|deploys? to|serves?|hosts?|owns?|maintains?"
    r"|reports? to|belongs? to|targets?|supports?|defaults? to|means|sits|moved|joined"
    r"|switched|handles?|manages?|expires?|takes?|costs?|rotates?|lasts?|connects? to"
    r"|talks? to|reads|writes|sends|calls|generates?|caches?|retries|times? out)\b",
    _I,
)
_PRONOUN_SUBJECT = re.compile(
    r"^(?:it|this|that|these|those|they|there|here|he|she|which|what|everything|something"
    r"|nothing|someone|you|we|i|one)\b",
    _I,
)
_EPHEMERAL = re.compile(
    r"^(?:the|this|that|your|my)\s+(?:bug|error|issue|problem|fix|failure|build|output|change"
    r"|diff|pr|patch|traceback|warning|exception|test run)\b|\b(?:is|are) (?:now |still )?"
    r"(?:failing|passing|broken|fixed|green|red|done|working|ready)\b"
    r"|\b(?:pass|fail)(?:es|s)? now\b",
    _I,
)
_OPINION = re.compile(
    r"\b(?:is|are|was|were|looks?)\s+(?:really\s+|very\s+|so\s+|pretty\s+|quite\s+)?(?:great"
    r"|awesome|nice|cool|good|bad|fine|weird|strange|interesting|annoying|amazing|terrible"
    r"|better|worse|confusing|correct|right|wrong|perfect|helpful|ok|okay)\b",
    _I,
)
_CONCRETE = re.compile(r"\d|`|\w[./_]\w|\s[A-Z]\w")
_PROJECT_SCOPE = re.compile(
    r"\b(?:this|our) (?:repo|repository|project|codebase)\b|\bin here\b", _I
)


@dataclass(frozen=True, slots=True)
class _Unit:
    """A sentence to judge; `procedure` marks an intro merged with its numbered steps."""

    text: str
    procedure: bool = False


def extract_heuristic(text: str, *, now: datetime) -> list[Candidate]:
    """Durable statements in a conversation turn (user and assistant text, markdown ok)."""
    seen: set[str] = set()
    candidates: list[Candidate] = []
    for unit in _units(text):
        candidate = _judge(unit.text, now, procedure=unit.procedure)
        if candidate is not None and candidate.content.lower() not in seen:
            seen.add(candidate.content.lower())
            candidates.append(candidate)
    return candidates


def mentions(text: str) -> tuple[list[CandidateEntity], list[CandidateRelation]]:
    """The entities and relations capture would link a text to, for text stored without
    capture (a conversation's turns imported or evaluated as they are): those of its
    sentences, questions left out as capture leaves them out."""
    entities: dict[str, CandidateEntity] = {}
    relations: list[CandidateRelation] = []
    for raw in _sentences(text):
        sentence = _clean(raw)
        if _QUESTION.search(BACKTICK.sub("`x`", sentence)):
            continue
        found = find_entities(sentence)
        for key, entity in found.items():
            entities.setdefault(key, entity)
        relations += find_relations(sentence, found, None)
    return list(entities.values()), relations


def _units(text: str) -> list[_Unit]:
    """Sentences of the prose, skipping code, headings and tables; an intro ending in ":"
    ("To cut a release:") and the list items after it become one procedure."""
    blocks: list[tuple[str, bool]] = []  # (text, is a list item)
    joinable, in_code, after_blank = False, False, True
    for raw in _FENCED.sub("\n", text).splitlines():
        line = re.sub(r"^(?:>\s?)+", "", _ROLE.sub("", raw.strip())).strip()
        indented = raw.startswith(("    ", "\t"))
        in_code = indented and not _BULLET.match(line) and (in_code or after_blank)
        after_blank = not line
        if not line or in_code or _SKIP_LINE.match(line):
            joinable = False
            continue
        item = _BULLET.match(line)
        if item:
            blocks.append((line[item.end() :], True))
        elif joinable and (line[0].islower() or line[0] in "`("):  # a soft-wrapped line
            blocks[-1] = (f"{blocks[-1][0]} {line}", blocks[-1][1])
        else:
            blocks.append((line, False))
        joinable = not blocks[-1][0].endswith((".", "!", "?", ":"))
    units: list[_Unit] = []
    index = 0
    while index < len(blocks):
        sentences = _sentences(blocks[index][0])
        index += 1
        steps: list[str] = []
        while sentences and _INTRO.search(sentences[-1]) and index < len(blocks):
            if not blocks[index][1]:
                break
            step = blocks[index][0].rstrip(" .;")
            steps.append(step[:1].lower() + step[1:] if step[1:2].islower() else step)
            index += 1
        if steps:
            intro = sentences.pop()[:-1]
            units += [_Unit(s) for s in sentences]
            units.append(_Unit(f"{intro}: {'; '.join(steps)}.", procedure=True))
        else:
            units += [_Unit(s) for s in sentences]
    return units


def _sentences(text: str) -> list[str]:
    """Split at . ! ? before a capital or digit, but not after an abbreviation or initial;
    dots inside versions (3.11), file names and backticks never split."""
    spans: list[str] = []

    def hide(match: re.Match[str]) -> str:
        spans.append(match.group(0))
        return f"\x00{len(spans) - 1}\x00"

    hidden = BACKTICK.sub(hide, text)
    pieces: list[str] = []
    start = 0
    for match in _BREAK.finditer(hidden):
        following = hidden[match.end() : match.end() + 1]
        token = hidden[start : match.start()].rsplit(None, 1)[-1:] or [""]
        word = token[0].lstrip("(\"'").lower()
        after_abbreviation = match.group(0)[0] == "." and (
            word in ABBREVIATIONS or (len(word) == 1 and word.isalpha())
        )
        if after_abbreviation or not (following.isupper() or following in "0123456789\"'`(*\x00["):
            continue
        pieces.append(hidden[start : match.end()].strip())
        start = match.end()
    pieces.append(hidden[start:].strip())
    restore = re.compile(r"\x00(\d+)\x00")
    return [restore.sub(lambda m: spans[int(m.group(1))], p) for p in pieces if p]


def _judge(raw: str, now: datetime, *, procedure: bool) -> Candidate | None:
    sentence = _clean(raw)
    if (
        len(sentence.split()) < 4
        or not 15 <= len(sentence) <= (400 if procedure else 300)
        or (sentence.endswith(":") and not procedure)
    ):
        return None
    plain = BACKTICK.sub("`x`", sentence)  # code in backticks is neither hedge nor code
    if not procedure and (_QUESTION.search(plain) or _CODE.search(plain) or _HEDGE.search(plain)):
        return None
    remembered = _REMEMBER.match(sentence)
    if remembered:
        sentence = _capitalise(sentence[remembered.end() :])
        plain = BACKTICK.sub("`x`", sentence)
    kind, confidence = _classify(plain, now, procedure=procedure, remembered=bool(remembered))
    if kind is None:
        return None
    if kind is T.EPISODE:
        valid_at = find_date(sentence, now, relative=True)
    else:
        changed = now if _CHANGE.search(plain) else None
        valid_at = find_date(sentence, now, relative=False) or changed
    entities = find_entities(sentence)
    relations = find_relations(sentence, entities, valid_at)
    return Candidate(
        content=sentence if sentence[-1] in ".!)" else f"{sentence}.",
        type=kind,
        scope=Scope.PROJECT if _PROJECT_SCOPE.search(sentence) else None,
        confidence=0.9 if remembered else confidence,
        tags=make_tags(sentence, list(entities.values())),
        entities=list(entities.values()),
        relations=relations,
        valid_at=valid_at,
    )


def _classify(
    plain: str, now: datetime, *, procedure: bool, remembered: bool
) -> tuple[T | None, float]:
    """The memory type and a confidence that follows the strength of the cue."""
    if procedure:
        return T.PROCEDURE, 0.8
    if _DECISION.search(plain):
        prescriptive = _RULE.search(plain) or re.search(r"now on|going forward", plain, _I)
        return (T.RULE if prescriptive else T.FACT), 0.85
    if _PREFERENCE.search(plain):
        return T.PREFERENCE, 0.8
    if _EVENT.search(plain) and find_date(plain, now, relative=True):
        return T.EPISODE, 0.7
    if not remembered and _META.search(plain):
        return None, 0.0
    if _RULE.search(plain):
        return T.RULE, 0.85
    if _PROCEDURE.search(plain):
        return T.PROCEDURE, 0.8 if "`" in plain else 0.75
    if _SOFT_RULE.search(plain) or (_IMPERATIVE.match(plain) and _specifics(plain)):
        return T.RULE, 0.7
    if remembered:
        return T.FACT, 0.9
    signals = _fact_signals(plain)
    return (T.FACT, 0.6 + 0.05 * min(signals, 2)) if signals else (None, 0.0)


def _fact_signals(plain: str) -> int:
    """How many specific things a declarative sentence names; 0 when it is not a fact."""
    verb = _FACT_VERB.search(plain)
    if verb is None or verb.start() == 0 or _EPHEMERAL.search(plain) or _OPINION.search(plain):
        return 0
    subject = plain[: verb.start()].strip()
    personal = re.match(r"^(?:i|my \w+)$", subject, _I) and re.match(
        r"lives?|works?|leads?|moved|joined|manages?", verb.group(0), _I
    )
    ours = re.match(r"^we$", subject, _I) and re.match(
        r"uses?|runs?|deploys?|targets?", verb.group(0), _I
    )
    if len(subject.split()) > 8 or (_PRONOUN_SUBJECT.match(subject) and not (personal or ours)):
        return 0
    return _specifics(plain)


def _specifics(plain: str) -> int:
    """Numbers, code, paths, names and known tools in a sentence: what makes it concrete."""
    words = re.findall(r"[A-Za-z][\w+#-]*", plain)
    tools = sum(1 for word in words if word.lower() in KNOWN_TOOLS)
    return len(_CONCRETE.findall(plain)) + tools


def _clean(raw: str) -> str:
    """Markdown emphasis (outside code) and leading interjections ("Ok, ...") removed."""
    text = _EMPHASIS.sub(lambda match: match.group(1) or match.group(3) or "", raw)
    return _capitalise(_INTERJECTION.sub("", " ".join(text.split()).strip(" -–—")))


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]
