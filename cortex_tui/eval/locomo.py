"""LoCoMo (github.com/snap-research/LoCoMo, `data/locomo10.json`) read as eval datasets.

The benchmark is public data nobody here wrote, so ranking changes are measured on it
as it is: one dataset per conversation, one memory per dialogue turn stored raw (no
write-path logic), each question with evidence a query whose relevant labels are its
evidence turns. Turns are `Speaker: text`, plus the caption of a photo the turn shares;
the image-search query LoCoMo's generator used is left out (it often restates the
answer). Every turn is an episode (one type, so the type prior cannot reorder them),
dated at its session's date and time, with its session, its position in the session
(`turn`, so it is indexed with the turn before it) and its speaker (a field the lexical
channel indexes, so the name counts twice for BM25, as the `speaker:NAME` tag of earlier
versions did: at most 0.4 points of R@10 either way against no name at all).

Category numbers: the data does not number them in the order the paper lists them. The
question counts the paper gives (single-hop 841, multi-hop 282, temporal 321,
open-domain 96, adversarial 446) and the repository's own scoring code (1 scored by
sub-answers as multi-hop, 5 as adversarial) fix the mapping below. Adversarial questions
ask about things that never happened; their evidence is the turn that rules the premise
out, so they are ranked and reported apart from the overall figures.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cortex_tui.errors import InvalidInputError
from cortex_tui.eval.raw_fields import required

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
APART = ["adversarial"]
CUTOFFS = [5, 10, 25, 50]
_SESSION = re.compile(r"session_(\d+)")
# Evidence ids as the data writes them: "D1:3", but also "D8:6; D9:17", "D:11:26", "D30:05".
_TURN_ID = re.compile(r"D:?(\d+):(\d+)")
_SESSION_TIME = "%I:%M %p on %d %B, %Y"  # "1:56 pm on 8 May, 2023"


def is_locomo(raw: Any) -> bool:
    """LoCoMo's shape: a JSON list of samples, each with a conversation and its qa."""
    return (
        isinstance(raw, list)
        and bool(raw)
        and all(isinstance(s, dict) and "conversation" in s and "qa" in s for s in raw)
    )


def locomo_datasets(raw: list[dict[str, Any]], path: Path) -> list[dict[str, Any]]:
    """One dataset (in the eval format, validated by the caller) per conversation."""
    return [_conversation(sample, index, path) for index, sample in enumerate(raw)]


def _conversation(sample: dict[str, Any], index: int, path: Path) -> dict[str, Any]:
    name = str(sample.get("sample_id") or f"sample-{index}")
    where = f"{path} ({name})"
    conversation = _field(sample, "conversation", dict, where)
    memories: list[dict[str, Any]] = []
    times: list[datetime] = []
    for number, turns in _sessions(conversation):
        when = _session_time(conversation, number, where)
        times.append(when)
        for position, turn in enumerate(turns):
            memories.append(_memory(turn, when, f"{name}:session-{number}", position, where))
    if not memories:
        raise InvalidInputError(f"{where}: the conversation has no session with turns")
    labels = {m["label"] for m in memories}
    queries: list[dict[str, Any]] = []
    unknown: list[str] = []
    skipped = 0
    for qa in _field(sample, "qa", list, where):
        evidence, bad = _evidence(qa.get("evidence") or [], labels)
        unknown.extend(bad)
        if not evidence:
            skipped += 1
            continue
        queries.append(
            {
                "query": _field(qa, "question", str, where),
                "relevant": evidence,
                "category": CATEGORIES.get(qa.get("category"), f"category-{qa.get('category')}"),
                "k": 10,
            }
        )
    return {
        "name": name,
        "description": f"LoCoMo {name}: {len(times)} sessions, {len(memories)} turns",
        "now": max(times).isoformat(),
        "ingest": "raw",
        "memories": memories,
        "queries": queries,
        "cutoffs": CUTOFFS,
        "apart": APART,
        "explain_misses": False,
        "notes": _notes(name, unknown, skipped),
    }


def _sessions(conversation: dict[str, Any]) -> list[tuple[int, list[dict[str, Any]]]]:
    """(number, turns) of every session that has turns, in session order."""
    found = []
    for key, turns in conversation.items():
        match = _SESSION.fullmatch(key)
        if match and isinstance(turns, list) and turns:
            found.append((int(match.group(1)), turns))
    return sorted(found, key=lambda pair: pair[0])


def _session_time(conversation: dict[str, Any], number: int, where: str) -> datetime:
    key = f"session_{number}_date_time"
    text = _field(conversation, key, str, where)
    try:
        return datetime.strptime(text, _SESSION_TIME).replace(tzinfo=UTC)
    except ValueError:
        raise InvalidInputError(
            f"{where}: {key} {text!r} is not a time like '1:56 pm on 8 May, 2023'"
        ) from None


def _memory(turn: Any, when: datetime, session: str, position: int, where: str) -> dict[str, Any]:
    if not isinstance(turn, dict):
        raise InvalidInputError(f"{where}: a turn of {session} is not an object")
    speaker = _field(turn, "speaker", str, where)
    content = f"{speaker}: {turn.get('text') or ''}".rstrip()
    caption = turn.get("blip_caption")
    if isinstance(caption, str) and caption.strip():
        content += f" [shares a photo: {caption.strip()}]"
    return {
        "label": _normalise(_field(turn, "dia_id", str, where)),
        "content": content,
        "type": "episode",
        "created_at": when.isoformat(),
        "session_id": session,
        "turn": position,
        "speaker": speaker,
        "source": "locomo",
    }


def _evidence(raw: list[Any], labels: set[str]) -> tuple[list[str], list[str]]:
    """(turn labels the question's evidence names, evidence entries that name no turn)."""
    found: list[str] = []
    bad: list[str] = []
    for entry in raw:
        ids = [f"D{int(s)}:{int(t)}" for s, t in _TURN_ID.findall(str(entry))]
        if not ids:
            bad.append(str(entry))
        for turn_id in ids:
            if turn_id not in labels:
                bad.append(turn_id)
            elif turn_id not in found:
                found.append(turn_id)
    return found, bad


def _normalise(dia_id: str) -> str:
    match = _TURN_ID.fullmatch(dia_id.strip())
    return f"D{int(match.group(1))}:{int(match.group(2))}" if match else dia_id.strip()


def _notes(name: str, unknown: list[str], skipped: int) -> list[str]:
    notes = []
    if unknown:
        notes.append(
            f"{name}: {len(unknown)} evidence id(s) name no turn and were left out "
            f"({', '.join(unknown)})"
        )
    if skipped:
        notes.append(f"{name}: {skipped} question(s) without usable evidence were skipped")
    return notes


def _field(obj: dict[str, Any], key: str, kind: type, where: str) -> Any:
    return required(obj, key, kind, where, "locomo10.json")
