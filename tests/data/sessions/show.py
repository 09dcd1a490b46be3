"""Print a Claude Code session for a person labelling it: turns numbered as the labels
number them (one per typed prompt), the person's prompts and the assistant's text whole,
tool calls and their output cut short.

    python tests/data/sessions/show.py SESSION.jsonl [--tools N]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cortex_tui.agent_turn.agents.claude_code.transcript import typed_prompt


def _short(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _blocks(record: dict[str, Any]) -> list[dict[str, Any]]:
    content = (record.get("message") or {}).get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def show(path: Path, tool_chars: int) -> None:
    turn = 0
    for raw in path.read_bytes().split(b"\n"):
        if not raw.strip():
            continue
        prompt = typed_prompt(raw)
        if prompt is not None:
            turn += 1
            print(f"\n===== TURN {turn} · USER =====\n{prompt}")
            continue
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if record.get("isSidechain") or record.get("type") not in ("user", "assistant"):
            continue
        for block in _blocks(record):
            kind = block.get("type")
            if record["type"] == "assistant" and kind == "text" and block.get("text", "").strip():
                print(f"--- assistant (turn {turn}) ---\n{block['text'].strip()}")
            elif kind == "tool_use" and tool_chars:
                print(f"  [tool {block.get('name')}] {_short(block.get('input'), tool_chars)}")
            elif kind == "tool_result" and tool_chars:
                print(f"  [result] {_short(block.get('content'), tool_chars)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("session", type=Path)
    parser.add_argument("--tools", type=int, default=160, help="characters per tool line (0: none)")
    args = parser.parse_args()
    show(args.session, args.tools)
    return 0


if __name__ == "__main__":
    sys.exit(main())
