"""Check a session's labels before they join the corpus: the file loads as the eval
reads it, every turn exists, and every candidate is copied exactly from the session.

    python tests/data/sessions/check_labels.py LABELS.json SESSION.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pydantic import ValidationError

from cortex_tui.agent_turn.agents.claude_code.transcript import read_transcript_turns, typed_prompt
from cortex_tui.eval.sessions_dataset import SessionLabels


def problems(labels_path: Path, session_path: Path) -> list[str]:
    try:
        labels = SessionLabels.model_validate(json.loads(labels_path.read_text()))
    except (ValueError, ValidationError) as exc:
        return [f"{labels_path}: {exc}"]
    lines = [line for line in session_path.read_bytes().split(b"\n") if line.strip()]
    prompts = sum(typed_prompt(line) is not None for line in lines)
    said = {"user": "", "assistant": ""}
    for turn in read_transcript_turns(session_path)[0]:
        said[turn.role] += "\n" + " ".join(turn.text.split())
    found = []
    ids = [label.id for label in labels.labels]
    if len(set(ids)) != len(ids):
        found.append("a label id is used twice")
    for label in labels.labels:
        if label.turn > prompts:
            found.append(f"{label.id}: turn {label.turn} > {prompts} typed prompts")
    for c in labels.candidates:
        if c.turn > prompts:
            found.append(f"candidate turn {c.turn} > {prompts}: {c.text[:60]}")
        if " ".join(c.text.split()) not in said[c.role]:
            found.append(f"candidate not found in the {c.role}'s text: {c.text[:80]}")
        if c.keep and not c.label:
            found.append(f"a kept candidate names no label: {c.text[:60]}")
        if c.label and c.label not in ids:
            found.append(f"candidate names unknown label {c.label}")
    return found


def main() -> int:
    labels_path, session_path = Path(sys.argv[1]), Path(sys.argv[2])
    found = problems(labels_path, session_path)
    for problem in found:
        print(problem)
    if not found:
        print("ok")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
