"""What a member of a team server waits for each prompt, beside the same store served on
its own machine.

    python -m cortex_tui.bench.member_hooks [--runs 30] [--embedder onnx]

One store (the demo data set) is made twice: as a tenant's data home on a team server
(`serve --tcp --tenants`, on loopback: the network's own round trip is not in it) and as
a home of its own with its local service. The same prompts go through the pre hook as
processes, the way the agent starts them: through the server (the member's hook plans
the recall, asks `/v1/hook/context` over HTTP and renders the answer) and through the
local socket. Each prompt is asked once per way, so no answer comes from a cache.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cortex_tui.bench.hooks import compile_bytecode, run_hook
from cortex_tui.bench.timing import Timing
from cortex_tui.clients import local_service
from cortex_tui.config import load_settings
from cortex_tui.tenants.registry import TenantRegistry

PROMPTS = [
    "who leads the atlas project and which database does it use",
    "how do we deploy the billing service",
    "what did we decide about the staging cluster",
    "which port does the atlas API listen on",
    "who is on call this week",
    "what is our policy on feature flags",
    "how are database migrations reviewed",
    "which queue does ingest use",
    "when is the release freeze",
    "what do we use for secrets",
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cortex_tui.bench.member_hooks")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--embedder", default="onnx", help="embedder kind (onnx, hashing)")
    args = parser.parse_args(argv)
    compile_bytecode()
    models = str(load_settings().models_path)
    with tempfile.TemporaryDirectory(prefix="cortex-bench-member-") as tmp:
        root = Path(tmp)
        server_home, own_home, laptop = root / "server", root / "own", root / "laptop"
        key = TenantRegistry(server_home).add("member")[1]
        base = {
            **os.environ,
            "CORTEX_EMBEDDER__KIND": args.embedder,
            "CORTEX_EMBEDDER__MODELS_DIR": models,
            "CORTEX_DAEMON": "1",
        }
        for home in (TenantRegistry(server_home).data_home("member"), own_home):
            _demo(home, base)
        port = _free_port()
        server = _serve(server_home, port, base)
        try:
            _ready(server_home)
            member = {
                **base,
                "CORTEX_HOME": str(laptop),
                "CORTEX_URL": f"http://127.0.0.1:{port}",
                "CORTEX_API_KEY": key,
            }
            own = {**base, "CORTEX_HOME": str(own_home)}
            local_service.start(own_home, wait=120)
            through_server, through_socket = Timing(), Timing()
            for run in range(args.runs):
                prompt = f"{PROMPTS[run % len(PROMPTS)]} ({run})"
                output: list[str] = []
                through_server.samples.append(run_hook("pre", _event(prompt), member, output))
                if "<cortex_memories>" not in "".join(output):
                    raise RuntimeError(f"no memories came through the server for {prompt!r}")
                through_socket.samples.append(run_hook("pre", _event(prompt), own))
        finally:
            local_service.stop(own_home, wait=60)
            local_service.stop(server_home, wait=60)
            server.wait(timeout=60)
    print(
        json.dumps(
            {
                "member_pre_hook_process": through_server.summary(),
                "own_service_pre_hook_process": through_socket.summary(),
            },
            indent=2,
        )
    )
    return 0


def _demo(home: Path, env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "cortex_tui", "--home", str(home), "demo", "load"],
        env={**env, "CORTEX_HOME": str(home)},
        capture_output=True,
        check=True,
        timeout=600,
    )


def _serve(home: Path, port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "cortex_tui", "serve", "--home", str(home)]
    return subprocess.Popen(
        [*command, "--tcp", str(port), "--tenants"],
        env={**env, "CORTEX_HOME": str(home)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _ready(home: Path) -> None:
    deadline = time.monotonic() + 120
    while local_service.status(home) is None:
        if time.monotonic() > deadline:
            raise RuntimeError("the team server did not start")
        time.sleep(0.1)


def _event(prompt: str) -> str:
    return json.dumps(
        {"hook_event_name": "UserPromptSubmit", "prompt": prompt, "session_id": "bench"}
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


if __name__ == "__main__":
    sys.exit(main())
