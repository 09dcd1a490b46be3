"""Annotations of one extracted sentence: entities, relations, dates and tags.

Kept apart from the sentence selection in `heuristic.py` because it answers a different
question: not "is this worth remembering?" but "what does it name, link and date?". The
graph channel of recall and the write path's update detection read what this produces.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from cortex_tui.models import CandidateEntity, CandidateRelation, EntityType

_I = re.IGNORECASE
BACKTICK = re.compile(r"`([^`\n]+)`")
ABBREVIATIONS = frozenset(
    "e.g i.e vs dr mr mrs ms prof inc ltd jr sr st no fig approx cf al".split()
)


KNOWN_TOOLS = {
    name.lower(): name
    for name in (
        "Python Node Rust Java TypeScript JavaScript Postgres PostgreSQL MySQL SQLite Redis "
        "Kafka RabbitMQ MongoDB Qdrant Elasticsearch Docker Kubernetes Helm Terraform Ansible "
        "Nginx AWS GCP Azure S3 GitHub GitLab Jenkins CircleCI ArgoCD Sentry Grafana Prometheus "
        "Datadog Ollama pytest unittest mypy ruff black isort flake8 pylint tox nox uv pip pipx "
        "poetry conda npm pnpm yarn bun deno cmake bazel gradle maven cargo git jest vitest "
        "eslint prettier webpack vite React Vue Svelte Angular Django Flask FastAPI Rails "
        "Celery Airflow Textual kubectl gh curl Slack Jira Linear Vercel Heroku Cloudflare"
    ).split()
}
_CAPITAL_ONLY = frozenset("black helm linear slack rails".split())  # also ordinary words
_COMMON = frozenset(
    """i i'm i'll i've i'd we we're you it this that these those there here the a an our my your
    their his her its they he she always never don't do does use run ask ping tell deploy
    install add check make keep set call open push merge build test write read update create
    delete remove avoid prefer put send start stop restart review ensure note remember please
    see try go let move bump tag release ship copy edit fix follow name store log commit rebase
    pin upgrade configure enable disable export import when if after before all every each no
    not one first next then now today yesterday tomorrow also and but so as at by for from in
    on to with only just some most any tests deploys builds releases decision rule step steps
    important monday tuesday wednesday thursday friday saturday sunday january february march
    april may june july august september october november december everything something
    nothing everyone readme todo fyi ok okay yes thanks pr prs""".split()
)
_NAME_SEQ = re.compile(r"\b[A-Z][\w'-]*(?:[ \t]+[A-Z][\w'-]*)*")
_CODEISH = re.compile(
    r"(?<![\w/.-])(?:[\w-]+[./])+[\w-]*[A-Za-z_][\w-]*/?|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b"
)
_VERSION = re.compile(r"v?\d+(?:\.\d+)*[a-z]?\d*")
_URL = re.compile(r"\b(?:https?|ftp)://\S+|\S+@\S+\.\w+")
_NEXT_VERB = (
    r"(?:now |currently |also |still |recently |just )?(?:works|worked|lives|lived|moved"
    r"|relocated|joined|left|leads|led|heads|manages|managed|reports|prefers|likes|wants|said"
    r"|says|mentioned|asked|wrote|reviewed|approved|is (?:the |our |a |an )?(?:\w+ )?(?:lead"
    r"|manager|engineer|developer|designer|cto|ceo|owner|maintainer|architect|pm|sre|intern))\b"
)
_PERSON_NEXT = re.compile(r"^\s+" + _NEXT_VERB, _I)
_PERSON_BEFORE = re.compile(r"\b(?:ask|ping|tell|told|cc|with)\s*$|@$", _I)
# Words that address the person named next ("Hey Caroline", "thanks, Mel"): a name
# someone is spoken to by is not something the sentence is about.
_GREETINGS = frozenset(
    "hey hi hello hiya yo dear thanks thank thx congrats congratulations bye goodbye wow "
    "oh aw aww welcome morning night".split()
)
_ADDRESSED_AFTER = re.compile(r"\b(?:" + "|".join(sorted(_GREETINGS)) + r"|thank you)[\s,]*$", _I)
_ENTITY_NEXT = re.compile(
    r"^\s+(?:now |currently |also |still )?(?:uses|runs|is|are|has|stores|serves|depends"
    r"|handles|calls|owns|exposes|listens|hosts|needs|requires|supports|reads|writes|sends"
    r"|deploys)\b|^\s+" + _NEXT_VERB,
    _I,
)


def find_entities(sentence: str) -> dict[str, CandidateEntity]:
    """Named things: backticked identifiers, known tools, paths and dotted or snake_case
    names, and capitalised names (a person when a person's verb or role follows)."""
    found: dict[str, CandidateEntity] = {}

    def add(name: str, kind: EntityType) -> None:
        if name.strip():
            found.setdefault(name.lower(), CandidateEntity(name=name, type=kind))

    for span in BACKTICK.findall(sentence):
        head = span.split()[0] if span.split() else ""
        if head.lower() in KNOWN_TOOLS or head in ("make", "go"):
            add(KNOWN_TOOLS.get(head.lower(), head), EntityType.TOOL)
        elif " " not in span.strip() and not _VERSION.fullmatch(span) and span[:1] != "-":
            add(re.sub(r"\(.*\)$", "", span.strip()), EntityType.SYSTEM)  # `run()` -> run
    plain = _URL.sub(" ", BACKTICK.sub(" , ", sentence))
    for word in re.findall(r"[A-Za-z][\w+#-]*", plain):
        tool = KNOWN_TOOLS.get(word.lower())
        if tool and (word[0].isupper() or word.lower() not in _CAPITAL_ONLY):
            add(tool, EntityType.TOOL)
    for match in _CODEISH.finditer(plain):
        token = match.group(0).rstrip("/")
        if token.lower() not in ABBREVIATIONS and not _VERSION.fullmatch(token):
            add(token, EntityType.SYSTEM)
    for match in _NAME_SEQ.finditer(plain):
        words = [word.removesuffix("'s") for word in match.group(0).split()]
        before = plain[: match.start()]
        if _addressed(words, before, plain[match.end() :]):
            continue
        initial = not before.strip(" ,") or before.rstrip().endswith(":")
        while words and _common(words[0]):
            words.pop(0)
            initial = False
        while words and _common(words[-1]):
            words.pop()
        name, following = " ".join(words), plain[match.end() :]
        if not words or name.lower() in found or any(w.lower() in KNOWN_TOOLS for w in words):
            continue
        camel = re.search(r"[a-z][A-Z]", name)
        if initial and len(words) == 1 and not camel and not _ENTITY_NEXT.match(following):
            continue
        person = (
            len(words) <= 3
            and all(w.isalpha() and not w.isupper() for w in words)
            and bool(_PERSON_NEXT.match(following) or _PERSON_BEFORE.search(before))
        )
        add(name, EntityType.PERSON if person else EntityType.SYSTEM)
    return found


def _addressed(words: list[str], before: str, following: str) -> bool:
    """Whether the name is the person spoken to: after a greeting ("Hey Caroline",
    "thanks Mel") or closing the sentence after a comma ("That's great, Caroline!").
    A list of names ("Reviewers: Tom, Priya.") is not an address."""
    if words[0].lower() in _GREETINGS or _ADDRESSED_AFTER.search(before):
        return True
    closing = not following.strip(" \t!.?…)\"'")
    after_comma = before.rstrip().endswith(",")
    listed = bool(re.search(r"[A-Z][\w'-]*,\s*$", before))
    return len(words) == 1 and closing and after_comma and not listed


def _common(word: str) -> bool:
    return word.lower() in _COMMON or (
        word.isupper() and len(word) <= 5 and word.lower() not in KNOWN_TOOLS
    )


_NAME = r"(`[^`]+`|[A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,3})"
_NOW = r"(?:now |currently |still |recently |just |has |have )?"
_RELATIONS = tuple(
    (predicate, re.compile(_NAME + r"\s+" + _NOW + pattern + r"\s+(?:the |our )?" + _NAME))
    for predicate, pattern in (
        ("works_at", r"(?:works|worked|is working) (?:at|for)"),
        ("works_at", r"joined"),
        ("leads", r"(?:leads|heads|manages)"),
        (
            "leads",
            r"is (?:now )?(?:the |our )?(?:tech(?:nical)? |team |project |engineering )?"
            r"(?:lead|manager|head|owner) (?:of|for|on)",
        ),
        ("lives_in", r"(?:lives|lived|is based|resides) in"),
        ("moved", r"(?:moved|relocated)(?: from \S+(?: \S+)?)? to"),
        ("uses", r"(?:uses|is using|relies on|runs on|is built (?:on|with))"),
        ("uses", r"(?:switched|migrated)(?: from \S+(?: \S+)?)? to"),
        ("reports_to", r"reports to"),
        ("deploys_to", r"(?:deploys|is deployed) (?:to|on)"),
    )
)
_JOB = re.compile(
    r"\b(?:team|company|job|role|org|organi[sz]ation|department|startup|employer|to work"
    r"|as (?:a|an|the) \w+)\b",
    _I,
)
_SUBJECT_TYPE = {
    "works_at": EntityType.PERSON,
    "leads": EntityType.PERSON,
    "lives_in": EntityType.PERSON,
    "reports_to": EntityType.PERSON,
}
_OBJECT_TYPE = {
    "works_at": EntityType.OTHER,
    "leads": EntityType.PROJECT,
    "lives_in": EntityType.PLACE,
    "reports_to": EntityType.PERSON,
    "deploys_to": EntityType.SYSTEM,
}


def find_relations(
    sentence: str, entities: dict[str, CandidateEntity], valid_at: datetime | None
) -> list[CandidateRelation]:
    """Edges for "X works at Y", "X leads Y", "X is the tech lead of Y", "X lives in Y",
    "X moved to Y" (lives_in, or works_at when the sentence talks about a job), "X uses Y",
    "X reports to Y", "X deploys to Y". Their entities are added to `entities`, typed."""
    relations: list[CandidateRelation] = []
    for kind, pattern in _RELATIONS:
        for match in pattern.finditer(sentence):
            subject, obj = (_name(group) for group in match.groups())
            if not subject or not obj or subject.lower() == obj.lower():
                continue
            tool = obj.lower() in KNOWN_TOOLS
            predicate = kind
            if kind == "moved":
                job = _JOB.search(sentence)
                predicate = "uses" if tool else "works_at" if job else "lives_in"
            moved_system = kind == "moved" and tool  # "Atlas moved to Postgres"
            _type(
                entities,
                subject,
                EntityType.SYSTEM if moved_system else _SUBJECT_TYPE.get(predicate),
            )
            _type(entities, obj, EntityType.TOOL if tool else _OBJECT_TYPE.get(predicate))
            relations.append(
                CandidateRelation(
                    subject=subject, predicate=predicate, object=obj, valid_at=valid_at
                )
            )
    return relations


def _type(entities: dict[str, CandidateEntity], name: str, kind: EntityType | None) -> None:
    """Record `name` with the type its role implies; a role that implies none ("X uses Y")
    keeps a type found earlier (a person stays a person)."""
    known = entities.get(name.lower())
    if kind is None:
        kind = known.type if known else EntityType.SYSTEM
    entities[name.lower()] = CandidateEntity(name=name, type=kind)


def _name(raw: str) -> str:
    """A relation end without backticks, trailing punctuation or leading/trailing "The"."""
    words = raw.strip("`").rstrip(".'-").split()
    while words and _common(words[0]):
        words.pop(0)
    while words and _common(words[-1]):
        words.pop()
    return " ".join(words)


_MONTH_NAMES = (
    "january february march april may june july august september october november december"
).split()
_MONTHS = {name[:3]: number for number, name in enumerate(_MONTH_NAMES, 1)}
_ISO_DATE = re.compile(r"\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b")
_MONTH_DAY = re.compile(r"\b([A-Za-z]{3,9})\.? (\d{1,2})(?:st|nd|rd|th)?\b(?:,? ((?:19|20)\d\d))?")
_DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)? ([A-Za-z]{3,9})\b(?:,? ((?:19|20)\d\d))?")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_RELATIVE = re.compile(
    r"\b(yesterday|today|tonight|this morning|last night|last week|last month"
    r"|(?:last|on|this past) (?:" + "|".join(_WEEKDAYS) + r"))\b",
    _I,
)
_DAYS_AGO = {
    "yesterday": 1,
    "last night": 1,
    "today": 0,
    "tonight": 0,
    "this morning": 0,
    "last week": 7,
    "last month": 30,
}


def find_date(sentence: str, now: datetime, *, relative: bool) -> datetime | None:
    """Midnight UTC of the day a sentence names: an ISO date or "March 3[, 2026]" always,
    "yesterday", "last week", "on Friday" only when `relative` (a past event is told)."""
    if match := _ISO_DATE.search(sentence):
        return _day(int(match[1]), int(match[2]), int(match[3]))
    for match, month_group, day_group in [
        *((m, 1, 2) for m in _MONTH_DAY.finditer(sentence)),
        *((m, 2, 1) for m in _DAY_MONTH.finditer(sentence)),
    ]:
        word = match[month_group].lower()
        month = _MONTHS.get(word[:3])
        full = next((n for n in _MONTH_NAMES if n.startswith(word)), None)
        if month and full and (len(word) == 3 or word in (full, "sept")):
            year = int(match[3]) if match[3] else now.year
            day = _day(year, month, int(match[day_group]))
            if day and relative and not match[3] and day > now:
                day = _day(year - 1, month, int(match[day_group]))
            if day:
                return day
    if not relative or not (match := _RELATIVE.search(sentence)):
        return None
    phrase = match[1].lower()
    if phrase in _DAYS_AGO:
        days = _DAYS_AGO[phrase]
    else:
        days = (now.weekday() - _WEEKDAYS.index(phrase.split()[-1])) % 7
        days = 7 if days == 0 and phrase.startswith("last") else days
    moment = now - timedelta(days=days)
    return datetime(moment.year, moment.month, moment.day, tzinfo=UTC)


def _day(year: int, month: int, day: int) -> datetime | None:
    try:
        return datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None


_TAG_CUES = tuple(
    (tag, re.compile(pattern, _I))
    for tag, pattern in (
        ("testing", r"\b(?:tests?|testing|pytest|unittest|jest|vitest|coverage|fixtures?)\b"),
        ("release", r"\b(?:releases?|releasing|changelog|version bump)\b"),
        ("deploy", r"\b(?:deploy\w*|staging|production|prod|rollout|roll(?:ed)? back)\b"),
        ("database", r"\b(?:database|db|postgres\w*|mysql|sqlite|migrations?|schema|sql)\b"),
        ("ci", r"\b(?:ci|pipelines?|github actions|workflows?)\b"),
        (
            "git",
            r"\b(?:git|branch(?:es)?|commits?|committing|merge|rebase|pull requests?"
            r"|force-push\w*)\b",
        ),
        (
            "style",
            r"\b(?:lint\w*|ruff|eslint|prettier|format\w*|style|naming|indent\w*"
            r"|type hints?|mypy)\b",
        ),
        (
            "security",
            r"\b(?:secrets?|credentials?|passwords?|tokens?|auth\w*|api keys?"
            r"|security)\b",
        ),
        ("infra", r"\b(?:docker\w*|containers?|kubernetes|k8s|helm|terraform)\b"),
        ("api", r"\b(?:api|endpoints?|rest|graphql|grpc)\b"),
        ("dependencies", r"\b(?:dependenc\w+|packages?|pip|npm|pnpm|yarn|uv|poetry|lockfile)\b"),
        ("config", r"\b(?:config\w*|settings|env(?:ironment)? var\w*)\b"),
        ("docs", r"\b(?:docs|documentation|readme|docstrings?)\b"),
        ("performance", r"\b(?:performance|latency|slow|caching|memory usage)\b"),
        ("incident", r"\b(?:outage|incident|postmortem|downtime|broke|crashed)\b"),
        ("team", r"\b(?:team|tech lead|manager|works at|reports to|on-?call)\b"),
    )
)


def make_tags(sentence: str, entities: list[CandidateEntity]) -> list[str]:
    """Up to four lowercase tags: two topic words, then the first named entities."""
    tags = [tag for tag, cue in _TAG_CUES if cue.search(sentence)][:2]
    for entity in entities:
        tag = "-".join(entity.name.lower().split())
        if tag not in tags and len(tag) <= 30:
            tags.append(tag)
    return tags[:4]
