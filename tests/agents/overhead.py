"""What the OpenClaw plugin adds to each turn, measured with the real OpenClaw.

    python -m tests.agents.overhead [--turns 10]

Runs `openclaw agent --local` turns of one session against the model stand-in, with the
plugin installed and the demo store, and reads the plugin's own
timings from the hook log: how long each prompt waited for its memories (the first one
starts the service) and how long each turn's hand-over took. Also times whole turns
with and without the plugin, for scale (OpenClaw's own start dominates them).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from cortex_tui.clients import local_service
from tests.agents.model_standin import ModelStandIn
from tests.agents.openclaw import OpenClaw, install_openclaw, openclaw_in

PROMPTS = (
    "how do we deploy to production",
    "who leads atlas and which database does it use",
    "How do we roll back a release?",
    "What port does the atlas API listen on?",
    "Which tests must pass before a merge?",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10)
    args = parser.parse_args()
    installed = install_openclaw()
    model = ModelStandIn()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        agent = openclaw_in(root, installed, model.url)
        try:
            agent.cortex("demo", "load")
            bare = [_timed(agent, i, "bare") for i in range(3)]
            agent.cortex("openclaw", "install")
            timed = [_timed(agent, i, "harbor") for i in range(args.turns)]
        finally:
            local_service.stop(agent.env["CORTEX_HOME"], wait=30)
            model.close()
        log = (root / "cortex" / "logs" / "hooks.log").read_text()
    pre = [int(ms) for ms in re.findall(r"openclaw plugin: pre \(\w+\) done in (\d+) ms", log)]
    post = [int(ms) for ms in re.findall(r"openclaw plugin: post \(\w+\) done in (\d+) ms", log)]
    report = {
        "turns": args.turns,
        "first_prompt_ms": pre[0] if pre else None,
        "warm_prompt_ms_p50": statistics.median(pre[1:]) if len(pre) > 1 else None,
        "warm_prompt_ms_max": max(pre[1:]) if len(pre) > 1 else None,
        "hand_over_ms_p50": statistics.median(post) if post else None,
        "hand_over_ms_max": max(post) if post else None,
        "turn_s_p50_without_plugin": round(statistics.median(bare), 2),
        "turn_s_p50_with_plugin": round(statistics.median(timed[1:] or timed), 2),
    }
    print(json.dumps(report, indent=2))


def _timed(agent: OpenClaw, index: int, session: str) -> float:
    started = time.perf_counter()
    turn = agent.turn(PROMPTS[index % len(PROMPTS)], session=session)
    if turn.code != 0:
        sys.exit(f"openclaw turn failed: {turn.stderr[-500:]}")
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
