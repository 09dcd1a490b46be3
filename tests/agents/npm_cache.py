"""The real agents' npm packages, installed once per machine into a cache folder outside
the repository. xdist's workers take turns through a file lock; in CI a machine without
npm fails the run with the reason (a skipped agent test would hide the very breakage it
exists to catch)."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

CACHE_ENV = "CORTEX_TEST_AGENTS_CACHE"
"""Where the agents are installed (default: ~/.cache/cortex-tui-test-agents)."""
INSTALL_TIMEOUT = 600


def agents_cache() -> Path:
    configured = os.environ.get(CACHE_ENV)
    return Path(configured) if configured else Path.home() / ".cache" / "cortex-tui-test-agents"


def npm_install(
    folder: str,
    package: str,
    located: Callable[[Path], Path],
    works: Callable[[Path], bool],
    node_bin: Path | None = None,
) -> Path:
    """`located(prefix)` under the cache's `folder`, once `works` says it does: installed
    there first with `npm install package` when it does not. `node_bin` goes first on
    PATH while npm runs (a package whose install checks the Node version)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(
            f"npm not found: the real-agent tests install {package} with it; "
            "install Node.js and npm, then run the tests again",
            pytrace=False,
        )
    prefix = agents_cache() / folder
    prefix.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    if node_bin is not None:
        env["PATH"] = f"{node_bin}{os.pathsep}{env.get('PATH', '')}"
    with open(prefix / ".install.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not works(located(prefix)):
            command = [npm, "install", "--prefix", str(prefix), "--no-save", "--no-audit"]
            done = subprocess.run(
                [*command, "--no-fund", package],
                capture_output=True,
                text=True,
                env=env,
                timeout=INSTALL_TIMEOUT,
                check=False,
            )
            if done.returncode != 0 or not works(located(prefix)):
                last = (done.stderr.strip().splitlines() or ["no output"])[-1]
                pytest.fail(
                    f"cannot install {package} with npm into {prefix}: {last}", pytrace=False
                )
    return located(prefix)


def first_line(command: list[str], path: Path | None = None) -> str:
    """What `command` prints (stripped), "" when it cannot run or fails; `path` goes
    first on its PATH."""
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = f"{path}{os.pathsep}{env.get('PATH', '')}"
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=120, env=env, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""
