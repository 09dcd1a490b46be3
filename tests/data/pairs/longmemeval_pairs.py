"""Build a pairs dataset of updates in users' own words from LongMemEval's
knowledge-update questions (Wu et al., ICLR 2025; MIT licence).

    python tests/data/pairs/longmemeval_pairs.py ORACLE.json DEV_LIST OUT.json

Each knowledge-update question marks the user turns that hold its evidence: an older
statement and the later one that changes it ("I'm currently on page 200" … "I'm now on
page 220"). From each evidence session the sentence that says most about the question
is kept (the words it shares with the question, and with the answer in the latest
session), and each session's sentence is paired with the next session's as an update.
The sentences are the users' words, cut at sentence and dash boundaries and stripped of
"By the way," and the like; nothing is rewritten.

Questions whose ids are in DEV_LIST (`question_id<TAB>type` lines, as in
`longmemeval-dev-questions.txt`) are marked `part: dev`, every other one `heldout`, so
the same build serves development and the held-out check. `ORACLE.json` is
`longmemeval_oracle.json` as `longmemeval_assemble.py` rebuilds it.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cortex_tui.write.judge.statement import stem

USAGE = "python tests/data/pairs/longmemeval_pairs.py ORACLE.json DEV_LIST OUT.json"
SOURCE = "LongMemEval (Wu et al., ICLR 2025, MIT licence), longmemeval_oracle.json"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\s+-\s+|\n+")
_PREAMBLE = re.compile(
    r"^(?:(?:oh|and|also|anyway|actually|so|well),?\s+)*"
    r"(?:(?:by the way|speaking of [^,]+|btw),\s*)+",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9$]+(?:[.,/][0-9]+)*")
_FUNCTION = frozenset(
    """a an the and or but of to in on at for by with from as is are was were be been am do
    does did have has had i me my we our you your it its this that these those what which
    who how many much long where when did so far currently now still just have has""".split()
)


def _content(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text.lower()) if w not in _FUNCTION}


def _sentences(turn: str) -> list[str]:
    pieces = (p.strip() for p in _SENTENCE_END.split(turn))
    return [_PREAMBLE.sub("", p).strip() for p in pieces if len(p.split()) >= 3]


def _best_sentence(turns: list[str], question: set[str], answer: set[str]) -> str | None:
    """The sentence of the session's evidence turns that shares most words with the
    answer, then with the question; a question ("Do you…?") only when nothing else
    does."""
    scored = []
    for turn in turns:
        for sentence in _sentences(turn):
            words = _content(sentence)
            shared = (len(words & answer), len(words & question))
            scored.append((shared, not sentence.endswith("?"), -len(sentence), sentence))
    if not scored:
        return None
    best = max(scored)
    return best[3] if any(best[0]) else None


def _when(stamp: str) -> datetime:
    """LongMemEval writes dates as "2023/05/21 (Sun) 09:14"."""
    day, _, clock = stamp.partition(") ")
    return datetime.strptime(f"{day.split(' (')[0]} {clock}", "%Y/%m/%d %H:%M").replace(tzinfo=UTC)


def question_pairs(question: dict[str, Any], part: str) -> list[dict[str, Any]]:
    asked = _content(question["question"])
    answer = _content(str(question["answer"]))
    sessions = []
    for stamp, session_id, turns in sorted(
        zip(
            question["haystack_dates"],
            question["haystack_session_ids"],
            question["haystack_sessions"],
            strict=True,
        ),
        key=lambda item: _when(item[0]),
    ):
        evidence = [t["content"] for t in turns if t["role"] == "user" and t.get("has_answer")]
        if evidence:
            sessions.append((stamp, session_id, evidence))
    pairs = []
    for index, (older, newer) in enumerate(itertools.pairwise(sessions)):
        latest = index == len(sessions) - 2
        old = _best_sentence(older[2], asked, set())
        new = _best_sentence(newer[2], asked, answer if latest else set())
        if old is None or new is None or old == new:
            continue
        pairs.append(
            {
                "id": f"lme-{question['question_id']}-{index + 1}",
                "label": "update",
                "part": part,
                "domain": "personal",
                "phrasing": "users' own words",
                "old": old,
                "new": new,
                "old_at": _when(older[0]).isoformat().replace("+00:00", "Z"),
                "new_at": _when(newer[0]).isoformat().replace("+00:00", "Z"),
                "source": (
                    f"{SOURCE}: question {question['question_id']}, "
                    f"sessions {older[1]} → {newer[1]}"
                ),
            }
        )
    return pairs


def build(oracle: Path, dev_list: Path) -> dict[str, Any]:
    dev = {
        line.split("\t")[0]
        for line in dev_list.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    questions = [
        q for q in json.loads(oracle.read_text()) if q["question_type"] == "knowledge-update"
    ]
    pairs = [
        pair
        for q in questions
        if not q["question_id"].endswith("_abs")
        for pair in question_pairs(q, "dev" if q["question_id"] in dev else "heldout")
    ]
    latest = max(_when(q["question_date"]) for q in questions)
    return {
        "kind": "pairs",
        "name": "longmemeval-updates",
        "description": (
            "Updates in users' own words: the evidence sentences of LongMemEval's "
            "knowledge-update questions, older then newer, built by "
            "tests/data/pairs/longmemeval_pairs.py. " + SOURCE + "."
        ),
        "now": latest.isoformat().replace("+00:00", "Z"),
        "pairs": pairs,
    }


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: " + USAGE, file=sys.stderr)
        return 2
    dataset = build(Path(argv[0]), Path(argv[1]))
    Path(argv[2]).write_text(json.dumps(dataset, indent=1, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for pair in dataset["pairs"]:
        counts[pair["part"]] = counts.get(pair["part"], 0) + 1
    print(f"{len(dataset['pairs'])} pairs: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
