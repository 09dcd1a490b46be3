"""What an agent waits for each turn: the hooks end to end through a real service.

Each hook run is a fresh `python -m cortex_tui --hook ...` process, as the agent starts
it, so interpreter start-up is included; the direct service call shows what is left
once the process exists.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cortex_tui.bench.timing import Timing
from cortex_tui.config import load_settings
from cortex_tui.engine import service_link


@contextmanager
def served_home(
    seed_store: Callable[[Path], None], embedder_kind: str
) -> Iterator[tuple[Path, dict[str, str], float]]:
    """A seeded store in a temporary home with its service running: the home, the
    environment a process started for it needs, and the service's cold start in seconds.
    The home uses this process's models folder: a cold start loads the model, as a
    user's does, rather than making it for a new home."""
    models = load_settings().models_path
    with tempfile.TemporaryDirectory(prefix="cortex-bench-served-") as tmp:
        home = Path(tmp)
        seed_store(home)
        env = {
            **os.environ,
            "CORTEX_HOME": str(home),
            "CORTEX_EMBEDDER__KIND": embedder_kind,
            "CORTEX_EMBEDDER__MODELS_DIR": str(models),
            "CORTEX_DAEMON": "1",
        }
        previous = dict(os.environ)
        os.environ.update(env)
        try:
            t0 = time.perf_counter()
            if not service_link.start(home, wait=120):
                raise RuntimeError(f"the service did not start; see {home}/logs/service.log")
            yield home, env, time.perf_counter() - t0
        finally:
            service_link.stop(home, wait=60)
            os.environ.clear()
            os.environ.update(previous)


def bench_hooks(
    seed_store: Callable[[Path], None],
    embedder_kind: str,
    prompts: list[str],
    runs: int,
) -> dict[str, Any]:
    """Seed a store in a temporary home, start its service, time the hooks, stop it."""
    with served_home(seed_store, embedder_kind) as (home, env, cold_start):
        pre, pre_cached, direct, post = Timing(), Timing(), Timing(), Timing()
        for prompt in prompts[:runs]:
            pre.samples.append(run_hook("pre", _prompt_event(prompt), env))
        for _ in range(runs):
            pre_cached.samples.append(run_hook("pre", _prompt_event(prompts[0]), env))
        for prompt in prompts[: runs * 5]:
            body = {"event": _prompt_event(prompt + " (direct)"), "text_format": False}
            t0 = time.perf_counter()
            service_link.call(home, "POST", "/v1/hook/pre", body, timeout=30)
            direct.samples.append(time.perf_counter() - t0)
        for i, prompt in enumerate(prompts[:runs]):
            turn = f"User: {prompt}\n\nAssistant: We decided to keep option {i}."
            post.samples.append(run_hook("post", turn, env))
    return {
        "service_cold_start_ms": round(cold_start * 1000, 1),
        "pre_hook_process": pre.summary(),
        "pre_hook_process_cached": pre_cached.summary(),
        "pre_service_call": direct.summary(),
        "post_hook_process": post.summary(),
    }


def _prompt_event(prompt: str) -> str:
    return json.dumps(
        {"hook_event_name": "UserPromptSubmit", "prompt": prompt, "session_id": "bench"}
    )


def run_hook(kind: str, stdin: str, env: dict[str, str], output: list[str] | None = None) -> float:
    """Seconds one hook process takes, start to exit; its stdout goes to `output`."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "cortex_tui", "--hook", kind],
        input=stdin,
        text=True,
        capture_output=True,
        env=env,
        check=True,
        timeout=60,
    )
    seconds = time.perf_counter() - t0
    if output is not None:
        output.append(done.stdout)
    return seconds
