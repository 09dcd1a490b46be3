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
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cortex_tui.engine import service_link
from tests.agents.model_standin import ModelStandIn
from tests.agents.openclaw import OpenClaw, agent_config, install_openclaw
from tests.conftest import MODELS_ENV

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
    executable, node_bin = install_openclaw()
    with tempfile.TemporaryDirectory() as folder, ModelStandInRunning() as model:
        root = Path(folder)
        agent = _agent(root, executable, node_bin, model.url)
        try:
            agent.cortex("demo", "load")
            bare = [_timed(agent, i, "bare") for i in range(3)]
            agent.cortex("openclaw", "install")
            timed = [_timed(agent, i, "harbor") for i in range(args.turns)]
        finally:
            service_link.stop(agent.env["CORTEX_HOME"], wait=30)
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


class ModelStandInRunning:
    def __enter__(self) -> ModelStandIn:
        self.model = ModelStandIn()
        return self.model

    def __exit__(self, *_: object) -> None:
        self.model.close()


def _agent(root: Path, executable: Path, node_bin: Path, model_url: str) -> OpenClaw:
    home, project = root / "home", root / "harbor"
    (home / ".openclaw").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    config = agent_config(model_url)
    config["agents"]["defaults"]["workspace"] = str(project)
    (home / ".openclaw" / "openclaw.json").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CORTEX_", "OPENCLAW_"))}
    env |= {
        "HOME": str(home),
        "PATH": f"{node_bin}{os.pathsep}{env.get('PATH', '')}",
        "CORTEX_HOME": str(root / "cortex"),
    }
    if MODELS_ENV in os.environ:
        env[MODELS_ENV] = os.environ[MODELS_ENV]
    return OpenClaw(executable, home, project, env)


def _timed(agent: OpenClaw, index: int, session: str) -> float:
    started = time.perf_counter()
    turn = agent.turn(PROMPTS[index % len(PROMPTS)], session=session)
    if turn.code != 0:
        sys.exit(f"openclaw turn failed: {turn.stderr[-500:]}")
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
