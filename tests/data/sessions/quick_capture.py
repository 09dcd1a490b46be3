"""Score the offline extractor alone on the corpus, in seconds: each turn's text as the
post hook spools it goes through extraction, and its candidates are matched against the
labels, with no store, no write path and no hooks. An upper bound on what the replay
keeps (the write path folds repeats), for iterating on extraction rules; the figures
that count come from `cortex-tui eval` on the corpus.

    python tests/data/sessions/quick_capture.py TRANSCRIPTS [--only dev]\
        [--show missed|kept|dropped]
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from cortex_tui.agent_turn.agents.claude_code.transcript import (
    conversation_text,
    read_transcript_turns,
)
from cortex_tui.capture.heuristic import extract_heuristic, unfit
from cortex_tui.config import Settings
from cortex_tui.eval.claude_replay import turns_of
from cortex_tui.eval.sessions_dataset import Session, load_sessions, pick_sessions

CORPUS = Path(__file__).with_name("corpus.json")


def turn_texts(session: Session) -> list[str]:
    """Each turn's text as the post hook hands it to capture."""
    texts = []
    with tempfile.TemporaryDirectory() as folder:
        for n, turn in enumerate(turns_of(session.transcript_lines())):
            path = Path(folder) / f"{n}.jsonl"
            path.write_bytes(b"".join(line + b"\n" for line in turn.lines))
            turns, _ = read_transcript_turns(path)
            texts.append(conversation_text(turns))
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcripts", type=Path)
    parser.add_argument("--only", default="dev")
    parser.add_argument("--show", choices=("missed", "kept", "dropped"), action="append")
    parser.add_argument(
        "--rules-only",
        action="store_true",
        help="judge every sentence by the cue rules alone, as text that is no one's turn",
    )
    args = parser.parse_args()
    dataset = load_sessions(json.loads(CORPUS.read_text()), CORPUS, args.transcripts)
    picked = pick_sessions(dataset, set(args.only.split(",")))
    assert picked is not None, f"no session in {args.only}"
    floor = Settings().write.min_confidence
    now = datetime(2026, 1, 1, tzinfo=UTC)
    core = found = stored = matched = prompts = 0
    by_type: Counter[str] = Counter()
    by_type_found: Counter[str] = Counter()
    for session in picked.sessions:
        labels = session.labels.labels
        kept: list[tuple[int, str, str]] = []
        texts = turn_texts(session)
        prompts += len(texts)
        for n, text in enumerate(texts, 1):
            read = re.sub(r"(?m)^(?:User|Assistant): ", "", text) if args.rules_only else text
            for candidate in extract_heuristic(read, now=now):
                if candidate.confidence >= floor and unfit(candidate.content) is None:
                    kept.append((n, str(candidate.type), candidate.content))
        hits = {lab.id for lab in labels if any(lab.matches(c) for _, _, c in kept)}
        for label in labels:
            if label.core:
                core += 1
                by_type[label.type] += 1
                if label.id in hits:
                    found += 1
                    by_type_found[label.type] += 1
                elif "missed" in (args.show or []):
                    print(f"MISSED {session.name} t{label.turn} {label.type}: {label.text}")
        for n, kind, content in kept:
            hit = any(lab.matches(content) for lab in labels)
            stored += 1
            matched += hit
            if ("kept" if hit else "dropped") in (args.show or []):
                print(f"{'KEPT' if hit else 'NOISE'} {session.name} t{n} {kind}: {content}")
    print(
        f"{args.only}: recall {found}/{core} = {found / max(core, 1):.1%}, "
        f"precision {matched}/{stored} = {matched / max(stored, 1):.1%}, "
        f"{stored / max(prompts, 1):.2f} per prompt"
    )
    print("  " + ", ".join(f"{k} {by_type_found[k]}/{v}" for k, v in by_type.most_common()))


if __name__ == "__main__":
    main()
