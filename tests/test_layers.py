"""Headless entry points never load textual or rich (the hook runs every agent turn)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import json, sys
from cortex_tui.__main__ import main
code = main(sys.argv[1:])
heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))
print(json.dumps({'code': code, 'heavy': heavy}))
"""


@pytest.mark.parametrize(
    "args",
    [["--help"], ["stats", "--json"], ["recall", "anything", "--json"], ["eval", "--help"]],
)
def test_cli_never_imports_textual(args: list[str], tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, "--home", str(tmp_path), *args],
        check=False,
        capture_output=True,
        text=True,
        env={
            "PATH": "/usr/bin:/bin",
            "CORTEX_EMBEDDER__KIND": "hashing",
            "CORTEX_DAEMON": "0",
            "HOME": str(tmp_path),
        },
    )
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    if args[-1] == "--help":  # argparse exits after printing help
        assert proc.returncode == 0
        assert "textual" not in proc.stderr
        return
    result = json.loads(last)
    assert result["code"] == 0, proc.stderr
    assert result["heavy"] == []


def loaded(modules: str, among: set[str]) -> list[str]:
    """Which of the top-level packages `among` a fresh interpreter loads with `modules`."""
    code = (
        f"import json, sys, {modules};"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {among!r})))"
    )
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return list(json.loads(proc.stdout))


def test_engine_import_does_not_load_textual() -> None:
    engine = "cortex_tui.engine.open, cortex_tui.recall.pipeline, cortex_tui.store.factory"
    assert loaded(engine, {"textual", "rich"}) == []


def test_hook_entry_loads_neither_pydantic_nor_the_engine() -> None:
    """The hook runs every agent turn: talking to the service must not pay for pydantic
    (~0.3 s), numpy or the store; only the standard library and platformdirs."""
    heavy = {"pydantic", "numpy", "qdrant_edge", "httpx", "fastapi", "textual", "onnxruntime"}
    heavy |= {"detect_secrets", "requests"}  # the privacy step runs in the service
    assert loaded("cortex_tui.hooks.run, cortex_tui.__main__", heavy) == []


def test_the_hook_path_loads_only_the_standard_library_it_needs() -> None:
    """Each of these costs a hook process 8-30 ms to import on a 2-core machine, every
    agent turn; the pre hook through the service needs none of them (an in-process hook,
    a service to start, a config file to read load theirs when they happen)."""
    slow = {"typing", "logging", "http", "dataclasses", "tomllib", "argparse", "subprocess"}
    hook_path = (
        "cortex_tui.__main__, cortex_tui.hooks.run, cortex_tui.agent_turn.plan, "
        "cortex_tui.agent_turn.spooling, cortex_tui.agent_turn.agents"
    )
    assert loaded(hook_path, slow) == []


def test_mcp_server_does_not_load_textual() -> None:
    """The MCP SDK brings rich for its own logging; textual stays out."""
    assert loaded("cortex_tui.mcp.main", {"textual"}) == []


def test_the_apps_first_frame_loads_neither_pydantic_nor_numpy_nor_the_engine() -> None:
    """What `cortex-tui` and `--demo` import before their first frame: the app and its
    registry, not the panes' modules, the models, the settings or numpy (together two
    thirds of that frame's time); those load behind it."""
    heavy = {"pydantic", "pydantic_settings", "numpy", "qdrant_edge", "httpx", "onnxruntime"}
    first_frame = "cortex_tui.__main__, cortex_tui.tui.run, cortex_tui.tui.demo_app"
    assert loaded(first_frame, heavy) == []
