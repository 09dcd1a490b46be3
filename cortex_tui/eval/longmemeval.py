"""LongMemEval (Wu et al., ICLR 2025; `longmemeval_s_cleaned.json` and its kin) read as
eval datasets.

Every question brings its own haystack (about 50 sessions and 500 turns in the S
variant), so each question is one dataset: one memory per turn, stored raw, with its
role as the speaker and its session's date, and the question's date as "now". The
relevant memories are the evidence turns: those the data marks `has_answer` in each
answer session, or every turn of an answer session where none is marked (some temporal
and multi-session questions mark none). Abstention questions (`_abs`) ask about
something the haystack never says, so they have no evidence to find and are skipped.

Turns are labelled by position, `S3:7` being the seventh turn of the third session of
the haystack, as LoCoMo's `D3:7`; session ids are kept as the memories' session.
Question types are the categories, so the figures come per type.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cortex_tui.errors import InvalidInputError
from cortex_tui.eval.raw_fields import required

CUTOFFS = [5, 10, 25, 50]
_DATE = re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2})(?: \(\w+\))? (\d{1,2}):(\d{2})")


def is_longmemeval(raw: Any) -> bool:
    """LongMemEval's shape: a JSON list of questions, each with its haystack sessions."""
    return (
        isinstance(raw, list)
        and bool(raw)
        and all(
            isinstance(q, dict) and "question_id" in q and "haystack_sessions" in q for q in raw
        )
    )


def question_ids(raw: list[dict[str, Any]]) -> list[str]:
    return [str(q.get("question_id")) for q in raw]


def longmemeval_datasets(
    raw: list[dict[str, Any]], path: Path, only: Collection[str] | None = None
) -> list[dict[str, Any]]:
    """One dataset (in the eval format, validated by the caller) per question that has
    evidence; with `only`, just the questions it names (the file holds 500 haystacks and
    converting them all costs seconds and memory a run of a few does not need)."""
    datasets = []
    skipped: list[str] = []
    for question in raw:
        qid = str(question.get("question_id"))
        if only is not None and qid not in only:
            continue
        dataset = None if qid.endswith("_abs") else _question(question, f"{path} ({qid})")
        if dataset is None:
            skipped.append(qid)
        else:
            datasets.append(dataset)
    if skipped and datasets:
        datasets[0]["notes"].append(
            f"{len(skipped)} question(s) without evidence to find skipped (abstention "
            f"questions, or no evidence turn in the haystack): {', '.join(skipped[:10])}"
            + (" …" if len(skipped) > 10 else "")
        )
    return datasets


def _question(question: dict[str, Any], where: str) -> dict[str, Any] | None:
    """The question's dataset; None when the haystack holds none of its evidence."""
    qid = str(question["question_id"])
    sessions = _field(question, "haystack_sessions", list, where)
    dates = _field(question, "haystack_dates", list, where)
    ids = _field(question, "haystack_session_ids", list, where)
    if not len(sessions) == len(dates) == len(ids):
        raise InvalidInputError(
            f"{where}: haystack_sessions, haystack_dates and haystack_session_ids differ in "
            "length (is this a LongMemEval file?)"
        )
    answer_sessions = {str(s) for s in _field(question, "answer_session_ids", list, where)}
    memories: list[dict[str, Any]] = []
    relevant: list[str] = []
    for number, (turns, date, session_id) in enumerate(zip(sessions, dates, ids, strict=True), 1):
        if not isinstance(turns, list):
            raise InvalidInputError(f"{where}: session {session_id} is not a list of turns")
        when = _date(date, where)
        labelled = [
            (f"S{number}:{position}", turn)
            for position, turn in enumerate(turns, 1)
            if isinstance(turn, dict) and str(turn.get("content") or "").strip()
        ]
        for label, turn in labelled:
            memories.append(_memory(label, turn, when, str(session_id), where))
        if str(session_id) in answer_sessions:
            marked = [label for label, turn in labelled if turn.get("has_answer")]
            relevant.extend(marked or [label for label, _ in labelled])
    if not relevant:
        return None
    category = str(question.get("question_type") or "unknown")
    return {
        "name": qid,
        "description": f"LongMemEval {qid} ({category}): {len(sessions)} sessions, "
        f"{len(memories)} turns",
        "now": _date(_field(question, "question_date", str, where), where).isoformat(),
        "ingest": "raw",
        "memories": memories,
        "queries": [
            {
                "query": _field(question, "question", str, where),
                "relevant": relevant,
                "category": category,
                "k": 10,
            }
        ],
        "cutoffs": CUTOFFS,
        "explain_misses": False,
        "notes": [],
    }


def _memory(
    label: str, turn: dict[str, Any], when: datetime, session: str, where: str
) -> dict[str, Any]:
    role = turn.get("role")
    if role not in ("user", "assistant"):
        raise InvalidInputError(f"{where}: turn {label} has role {role!r}, not user or assistant")
    return {
        "label": label,
        "content": str(turn["content"]).strip(),
        "type": "episode",
        "created_at": when.isoformat(),
        "session_id": session,
        "turn": int(label.rsplit(":", 1)[1]) - 1,
        "speaker": role,
        "source": "longmemeval",
    }


def _date(text: Any, where: str) -> datetime:
    match = _DATE.fullmatch(str(text).strip())
    if match is None:
        raise InvalidInputError(f"{where}: date {text!r} is not like '2023/05/30 (Tue) 23:40'")
    year, month, day, hour, minute = (int(g) for g in match.groups())
    try:
        return datetime(year, month, day, hour, minute, tzinfo=UTC)
    except ValueError:
        raise InvalidInputError(f"{where}: date {text!r} is no calendar date") from None


def _field(obj: dict[str, Any], key: str, kind: type, where: str) -> Any:
    return required(obj, key, kind, where, "a LongMemEval file")
