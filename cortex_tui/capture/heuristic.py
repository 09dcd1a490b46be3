"""Offline memory extraction: durable statements found by cues and a learned score,
without any language model.

This is the default capture path, so it leans towards precision: a memory store full of
"thanks, that works" and "let me check the logs" is worse than one that misses a fact.
The cue rules read each sentence (`units.py` cuts the text and says who said it): a
decision, rule, preference, procedure or dated event, or a concrete fact (a non-pronoun
subject, a fact verb and something specific: a name, number, version, path or
identifier); hedges, narration, transient state. What the person says outright (a cue
of decision, rule, preference, a correction, "remember") is kept as the rules read it;
every other sentence of a conversation is kept when the learned score (`worth.py`) puts
it among the best of its turn. Text that is no one's turn is judged by the rules alone.
Questions and code never become memories. Everything here is deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from rapidfuzz import fuzz

from cortex_tui.capture.annotate import (
    BACKTICK,
    KNOWN_TOOLS,
    find_date,
    find_entities,
    find_relations,
    make_tags,
)
from cortex_tui.capture.units import (
    Speaker,
    Unit,
    capitalise,
    clean,
    sentences,
    units,
    wide_characters,
)
from cortex_tui.capture.worth import Signals, WorthModel, shipped_model
from cortex_tui.models import Candidate, CandidateEntity, CandidateRelation, Scope
from cortex_tui.models import MemoryType as T

_I = re.IGNORECASE
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
_FIRST_PERSON_PREFERENCE = re.compile(
    r"^i(?P<would>'d| would)?\s+(?P<adverb>(?:really|strongly|generally|much|always) )?"
    r"(?P<verb>prefer|like|love|hate|dislike|rather|want)\b",
    _I,
)
_THIRD_PERSON = {"rather": "would rather"}
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
# Rules and preferences in the languages people most often write to agents in besides
# English: the words that make a sentence an instruction that lasts ("never", "from now
# on", "I prefer"), not a translation of every English cue.
_RULE_ELSEWHERE = re.compile(
    # Chinese, Japanese, Korean: no word boundaries to lean on.
    r"必须|务必|不要|不准|不能|别再|一律|禁止|总是|始终|永远|每次|以后|今后|只能|必ず|常に|今後"
    r"|しないで|항상|절대|반드시|하지 ?마|말고|앞으로"
    # French, Spanish, German, Portuguese, Italian.
    r"|\b(?:jamais|toujours|il faut|doi(?:t|vent)|désormais|à partir de maintenant|nunca"
    r"|siempre|debe(?:s|n|rá)?|tiene(?:s|n)? que|hay que|a partir de ahora|de ahora en adelante"
    r"|no (?:rompas|uses|hagas|pongas|cambies|toques|borres|olvides|hardcodees)|immer|niemals"
    r"|ab jetzt|sempre|mai più|nunca mais)\b",
    _I,
)
_PREFERENCE_ELSEWHERE = re.compile(
    r"喜欢|希望|我想|我要|偏好|好み|선호|원해|좋겠|\b(?:prefiero|quiero que|je préfère"
    r"|je veux que|j'aime|ich bevorzuge|ich möchte|prefiro|preferisco)\b",
    _I,
)


_META_ELSEWHERE = re.compile(
    # The assistant narrating its own steps, in the languages of `_RULE_ELSEWHERE`.
    r"让我|我来|我先|我会|我已经|我已|我们来|接下来|正在|好的|しました|します|しましょう"
    r"|볼게요|할게요|드릴게요|했어요|했습니다|하겠습니다|해볼게요|봤어요|됐어요|했네요|거예요"
    r"|\b(?:je vais|j'ai (?:ajouté|modifié|créé|corrigé|mis)|voy a|vamos a|he (?:añadido"
    r"|modificado|creado|corregido|actualizado)|ich werde|ich habe)\b",
    _I,
)
_CONCRETE = re.compile(r"\d|`|\w[./_]\w|\s[A-Z]\w")
_PROJECT_SCOPE = re.compile(
    r"\b(?:this|our) (?:repo|repository|project|codebase)\b|\bin here\b", _I
)
_CUE_PATTERNS: tuple[tuple[str, Callable[[str], object]], ...] = (
    ("decision", _DECISION.search),
    ("preference", lambda text: _PREFERENCE.search(text) or _PREFERENCE_ELSEWHERE.search(text)),
    ("rule", lambda text: _RULE.search(text) or _RULE_ELSEWHERE.search(text)),
    ("soft_rule", _SOFT_RULE.search),
    ("imperative", _IMPERATIVE.match),
    ("procedure", _PROCEDURE.search),
    ("event", _EVENT.search),
    ("change", _CHANGE.search),
    ("fact_verb", _FACT_VERB.search),
    ("pronoun_subject", _PRONOUN_SUBJECT.match),
    ("ephemeral", _EPHEMERAL.search),
    ("opinion", _OPINION.search),
    ("meta", lambda text: _META.search(text) or _META_ELSEWHERE.search(text)),
    ("hedge", _HEDGE.search),
)
_VETOES = frozenset({"hedge"})
"""Cues that keep a sentence out whatever else it says, when the rules alone decide."""
_SAME_SAYING = 85
"""rapidfuzz's token-set ratio at which two sentences of one turn say the same thing."""
_BRIEF: dict[Speaker, int] = {"user": 3, "assistant": 1, "unknown": 0}
"""Sentences in a message that is told in brief: the person's few words, not a pasted
specification; the agent's answer, not its account of its work."""
_SCORED_CONFIDENCE = 0.6
"""The confidence of a sentence kept on its score alone, with no cue: above the write
path's floor (`write.min_confidence`, 0.5), below any cue's."""


@dataclass(frozen=True, slots=True)
class Reading:
    """A sentence as the cue rules read it: what it would be as a memory, and its cues."""

    unit: Unit
    sentence: str
    """The sentence as it would be stored (a "remember that" lead removed)."""
    kind: T | None
    confidence: float
    signals: Signals
    remembered: bool


def extract_heuristic(
    text: str, *, now: datetime, model: WorthModel | None = None
) -> list[Candidate]:
    """Durable statements in a conversation turn (user and assistant text, markdown ok).

    A sentence of a conversation (`User:` / `Assistant:` blocks) is kept when the learned
    score (`worth.py`, `model` or the shipped one) says it is worth remembering; text
    that is no one's turn (a note, a sentence given to `capture`) by the cue rules alone.
    """
    model = model or shipped_model()
    chosen: list[tuple[int, Reading]] = []
    scored: dict[int, list[tuple[float, int, Reading]]] = {}
    for n, reading in enumerate(readings(text, now=now)):
        if reading.unit.speaker == "unknown" or said_outright(reading):
            if reading.kind is not None and not reading.signals.cues & _VETOES:
                chosen.append((n, reading))
            continue
        score = model.score(reading.unit, reading.signals)
        if score >= model.threshold:
            scored.setdefault(reading.unit.turn, []).append((score, n, reading))
    for turn in scored.values():
        best = sorted(turn, key=lambda item: -item[0])[: model.per_turn]
        chosen += [(n, reading) for _, n, reading in best]
    kept: list[str] = []
    candidates: list[Candidate] = []
    for _, reading in sorted(chosen, key=lambda item: item[0]):
        if not _says_again(reading.sentence, kept):
            kept.append(reading.sentence)
            candidates.append(_candidate(reading, now))
    return candidates


def _says_again(sentence: str, kept: list[str]) -> bool:
    """The same sentence, or nearly ("The problem is that port 8090 serves HTTP" then
    "The issue is that port 8090 is serving plain HTTP"): one memory per fact, however
    often a turn restates it. A different value, name or path keeps them apart."""
    lower = sentence.lower()
    return any(
        lower == other.lower()
        or (
            fuzz.token_set_ratio(lower, other.lower()) >= _SAME_SAYING
            and _values(sentence) == _values(other)
        )
        for other in kept
    )


def _values(text: str) -> list[str]:
    """What two sayings of one fact share exactly: code, paths, numbers."""
    return sorted(re.findall(r"`[^`]+`|[\w~-]*[/.][\w./~-]*\w|\d+(?:[.,:]\d+)*", text))


def said_outright(reading: Reading) -> bool:
    """Said outright, so kept as the cue rules read it, whatever the score of the turn's
    other sentences: "remember…", and a decision ("we decided…", "from now on…") whoever
    reports it; of the person's own words, a rule, a preference, a correction ("no, use
    X") of what the agent did; and anything the rules would keep of a brief message —
    the person telling the agent something in a few sentences ("Standup moved to
    10:00.") rather than pasting a specification, or the agent's one-sentence answer
    ("Billing logs are shipped to Loki.")."""
    if reading.remembered:
        return True
    if reading.kind is None:
        return False
    unit = reading.unit
    if "decision" in reading.signals.cues or unit.of <= _BRIEF[unit.speaker]:
        return True
    strong = {"preference", "rule"} & reading.signals.cues
    return unit.speaker == "user" and (bool(strong) or unit.correction)


def readings(text: str, *, now: datetime) -> list[Reading]:
    """Every sentence of `text` that could be a memory at all: of a memory's length, and
    neither a question nor code."""
    found = []
    for unit in units(text):
        reading = _read(unit, now)
        if reading is not None:
            found.append(reading)
    return found


def mentions(text: str) -> tuple[list[CandidateEntity], list[CandidateRelation]]:
    """The entities and relations capture would link a text to, for text stored without
    capture (a conversation's turns imported or evaluated as they are): those of its
    sentences, questions left out as capture leaves them out."""
    entities: dict[str, CandidateEntity] = {}
    relations: list[CandidateRelation] = []
    for raw in sentences(text):
        sentence = clean(raw)
        if _QUESTION.search(BACKTICK.sub("`x`", sentence)):
            continue
        found = find_entities(sentence)
        for key, entity in found.items():
            entities.setdefault(key, entity)
        relations += find_relations(sentence, found, None)
    return list(entities.values()), relations


def unfit(content: str) -> str | None:
    """Why a memory another extractor (an LLM) proposes cannot stand as one, by the
    filters the offline extractor applies to its own sentences; None when it can."""
    plain = BACKTICK.sub("`x`", " ".join(content.split()))
    if _word_count(plain) < 3:
        return "a fragment"
    if _QUESTION.search(plain):
        return "a question"
    if _CODE.search(plain):
        return "code"
    if _HEDGE.search(plain):
        return "a guess"
    return None


def _read(unit: Unit, now: datetime) -> Reading | None:
    sentence, procedure = unit.text, unit.procedure
    if (
        _word_count(sentence) < 4
        or not 15 <= len(sentence) <= (400 if procedure else 300)
        or (sentence.endswith(":") and not procedure)
    ):
        return None
    plain = BACKTICK.sub("`x`", sentence)  # code in backticks is neither hedge nor code
    if not procedure and (_QUESTION.search(plain) or _CODE.search(plain)):
        return None
    remembered = _REMEMBER.match(sentence)
    if remembered:
        sentence = capitalise(sentence[remembered.end() :])
        plain = BACKTICK.sub("`x`", sentence)
    cues = frozenset(name for name, cue in _CUE_PATTERNS if cue(plain))
    if procedure:
        cues -= {"hedge"}
    kind, confidence = _classify(plain, now, procedure=procedure, remembered=bool(remembered))
    if unit.correction and unit.speaker == "user" and kind in (None, T.RULE, T.FACT):
        # What the person sets right holds from now on: a rule, whatever its grammar.
        kind, confidence = T.RULE, 0.85
    specifics = _specifics(plain)
    signals = Signals(kind.value if kind else None, cues, specifics)
    return Reading(unit, sentence, kind, confidence, signals, bool(remembered))


def _candidate(reading: Reading, now: datetime) -> Candidate:
    kind = reading.kind or T.FACT
    sentence = reading.sentence
    if kind is T.PREFERENCE and reading.unit.speaker != "assistant":
        sentence = _the_users(sentence)
    plain = BACKTICK.sub("`x`", sentence)
    if kind is T.EPISODE:
        valid_at = find_date(sentence, now, relative=True)
    else:
        changed = now if _CHANGE.search(plain) else None
        valid_at = find_date(sentence, now, relative=False) or changed
    entities = find_entities(sentence)
    relations = find_relations(sentence, entities, valid_at)
    return Candidate(
        content=sentence if sentence[-1] in ".!)。！" else f"{sentence}.",
        type=kind,
        scope=Scope.PROJECT if _PROJECT_SCOPE.search(sentence) else None,
        confidence=0.9 if reading.remembered else (reading.confidence or _SCORED_CONFIDENCE),
        tags=make_tags(sentence, list(entities.values())),
        entities=list(entities.values()),
        relations=relations,
        valid_at=valid_at,
        corrects=reading.unit.correction and reading.unit.speaker == "user",
    )


def _the_users(sentence: str) -> str:
    """A preference the person states in the first person, said of the user: in a later
    session, "I prefer tabs" is the agent's own preference as much as the user's."""
    said = _FIRST_PERSON_PREFERENCE.match(sentence)
    if said is None:
        return sentence
    adverb, verb = said.group("adverb") or "", said.group("verb").lower()
    if said.group("would"):
        return f"The user would {adverb}{verb}{sentence[said.end() :]}"
    verb = verb if verb.endswith("s") else _THIRD_PERSON.get(verb, f"{verb}s")
    return f"The user {adverb}{verb}{sentence[said.end() :]}"


def _word_count(text: str) -> int:
    """Words, a character of a script written without spaces counting as half of one."""
    return len(text.split()) + wide_characters(text) // 2


def _classify(
    plain: str, now: datetime, *, procedure: bool, remembered: bool
) -> tuple[T | None, float]:
    """The memory type and a confidence that follows the strength of the cue."""
    if procedure:
        return T.PROCEDURE, 0.8
    if _DECISION.search(plain):
        prescriptive = _RULE.search(plain) or re.search(r"now on|going forward", plain, _I)
        return (T.RULE if prescriptive else T.FACT), 0.85
    if _PREFERENCE.search(plain) or _PREFERENCE_ELSEWHERE.search(plain):
        return T.PREFERENCE, 0.8
    if _EVENT.search(plain) and find_date(plain, now, relative=True):
        return T.EPISODE, 0.7
    if not remembered and _META.search(plain):
        return None, 0.0
    if _RULE.search(plain) or _RULE_ELSEWHERE.search(plain):
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
