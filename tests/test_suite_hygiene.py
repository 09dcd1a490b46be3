"""The suite's own guard: a service a test starts and leaves running fails the run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

LEAKY_TEST = """
import subprocess, sys, time
from pathlib import Path

def test_leaves_a_service_behind(tmp_path):
    # Looks like `cortex_tui serve --home HOME` to the guard; sleeps instead of serving.
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)", "cortex_tui", "serve",
         "--home", str(tmp_path / "home")],
        start_new_session=True,
    )
    (tmp_path.parent / "pid").write_text(str(process.pid))
    # Popen can return before the kernel shows the new command line in /proc; a real
    # service is long past that point when a suite ends.
    cmdline = Path(f"/proc/{process.pid}/cmdline")
    while b"cortex_tui" not in cmdline.read_bytes():
        time.sleep(0.01)
"""


def test_a_service_outliving_the_suite_fails_the_run_and_is_stopped(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text(
        "from tests.conftest import _no_service_outlives_the_suite  # noqa: F401\n"
    )
    (suite / "test_leaky.py").write_text(LEAKY_TEST)
    base = tmp_path / "base"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            f"--basetemp={base}",
            str(suite),
        ],
        cwd=suite,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode != 0
    assert "1 cortex-tui service(s) started by the tests outlived them" in result.stdout
    pid = int((base / "pid").read_text())
    assert (
        not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
    )
