"""What an agent waits for each turn: the hooks end to end through a real service.

Each hook run is a fresh process of the command `hook install` writes (this
installation's `cortex-tui --hook ...`), as the agent starts it, so interpreter start-up
is included; the direct service call shows what is left once the process exists. The
package's bytecode is written first, as installing it from a wheel does: where
`PYTHONDONTWRITEBYTECODE` is set (containers, CI) every hook process would otherwise
compile its modules from source, ~10 ms of CPU that users do not pay.
"""

from __future__ import annotations

import compileall
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

import cortex_tui
from cortex_tui.agent_turn.agents.claude_code.hook_settings import installed_script
from cortex_tui.bench.timing import Timing, children_cpu
from cortex_tui.clients import local_service
from cortex_tui.clock import system_clock
from cortex_tui.config import InjectionsConfig, load_settings
from cortex_tui.given.log import GivenLog
from cortex_tui.given.segments import FOLDER


@contextmanager
def served_home(
    seed_store: Callable[[Path], None], embedder_kind: str
) -> Iterator[tuple[Path, dict[str, str], float]]:
    """A seeded store in a temporary home with its service running: the home, the
    environment a process started for it needs, and the service's cold start in seconds.
    The home uses this process's models folder: a cold start loads the model, as a
    user's does, rather than making it for a new home."""
    models = load_settings().models_path
    compile_bytecode()
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
            if not local_service.start(home, wait=120):
                raise RuntimeError(f"the service did not start; see {home}/logs/service.log")
            yield home, env, time.perf_counter() - t0
        finally:
            local_service.stop(home, wait=60)
            os.environ.clear()
            os.environ.update(previous)


def bench_hooks(
    seed_store: Callable[[Path], None],
    embedder_kind: str,
    prompts: list[str],
    runs: int,
) -> dict[str, Any]:
    """Seed a store in a temporary home, start its service, time the hooks, stop it.
    Beside them, the interpreter's own start (`python -c pass`), the floor a hook
    process cannot go below, and the CPU each process used."""
    with served_home(seed_store, embedder_kind) as (home, env, cold_start):
        pre, pre_cached, direct, post = Timing(), Timing(), Timing(), Timing()
        bare, bare_cpu, pre_cpu, post_cpu = Timing(), Timing(), Timing(), Timing()
        for _ in range(runs):
            bare.samples.append(_with_cpu(bare_cpu, [sys.executable, "-c", "pass"], "", env))
        for prompt in prompts[:runs]:
            pre.samples.append(_with_cpu(pre_cpu, _hook_command("pre"), _prompt_event(prompt), env))
        for _ in range(runs):
            pre_cached.samples.append(run_hook("pre", _prompt_event(prompts[0]), env))
        for prompt in prompts[: runs * 5]:
            body = _prompt_event(prompt + " (direct)").encode()
            t0 = time.perf_counter()
            local_service.call_raw(home, "POST", local_service.PRE_HOOK_ROUTE, body, timeout=30)
            direct.samples.append(time.perf_counter() - t0)
        for i, prompt in enumerate(prompts[:runs]):
            turn = f"User: {prompt}\n\nAssistant: We decided to keep option {i}."
            post.samples.append(_with_cpu(post_cpu, _hook_command("post"), turn, env))
        records = given_records(home)
    interpreter, pre_process = bare.summary(), pre.summary()
    return {
        "service_cold_start_ms": round(cold_start * 1000, 1),
        # The hook's budget: p50 within 2x the interpreter's own start, same run.
        "pre_hook_to_interpreter": round(pre_process["p50_ms"] / interpreter["p50_ms"], 2),
        "interpreter_start": interpreter,
        "interpreter_start_cpu": bare_cpu.summary(),
        "pre_hook_process": pre_process,
        "pre_hook_process_cpu": pre_cpu.summary(),
        "pre_hook_process_cached": pre_cached.summary(),
        "pre_service_call": direct.summary(),
        "post_hook_process": post.summary(),
        "post_hook_process_cpu": post_cpu.summary(),
        "given_records": records,
    }


def given_records(home: Path) -> dict[str, float]:
    """What the pre hooks' records take on disk (`$CORTEX_HOME/injections/`): each prompt above left
    one, written by the service after it answered."""
    log = GivenLog(home / FOLDER, InjectionsConfig(), system_clock)
    count = len(log.newest(limit=sys.maxsize))
    size = log.size()
    return {
        "records": count,
        "bytes": size,
        "mb_per_1000_prompts": round(size / max(count, 1) * 1000 / 1e6, 2),
    }


def _with_cpu(cpu: Timing, command: list[str], stdin: str, env: dict[str, str]) -> float:
    """Seconds `command` takes; the CPU it used joins `cpu` (nothing else may run a
    child process meanwhile)."""
    before = children_cpu()
    seconds = run_process(command, stdin, env)
    cpu.samples.append(children_cpu() - before)
    return seconds


def _prompt_event(prompt: str) -> str:
    return json.dumps(
        {"hook_event_name": "UserPromptSubmit", "prompt": prompt, "session_id": "bench"}
    )


def run_hook(kind: str, stdin: str, env: dict[str, str], output: list[str] | None = None) -> float:
    """Seconds one hook process takes, start to exit; its stdout goes to `output`."""
    return run_process(_hook_command(kind), stdin, env, output)


def run_process(
    command: list[str], stdin: str, env: dict[str, str], output: list[str] | None = None
) -> float:
    """Seconds a process takes, start to exit; its stdout goes to `output`."""
    t0 = time.perf_counter()
    done = subprocess.run(
        command,
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


def _hook_command(kind: str) -> list[str]:
    return [*hook_program(), "--hook", kind]


def hook_program() -> list[str]:
    """This installation's script, as `hook install` writes it; `python -m cortex_tui`
    where there is none (a source checkout on `PYTHONPATH`)."""
    script = installed_script()
    return [str(script)] if script is not None else [sys.executable, "-m", "cortex_tui"]


def compile_bytecode() -> None:
    """The package's bytecode, written where it is missing or stale (a read-only
    installation has its own, from install time)."""
    compileall.compile_dir(str(Path(cortex_tui.__file__).parent), quiet=2)
