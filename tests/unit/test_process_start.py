"""What every cortex-tui process sets before numpy can load."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SHOW = "import cortex_tui, os; print(os.environ.get('OPENBLAS_NUM_THREADS'))"


@pytest.mark.parametrize(("given", "used"), [(None, "1"), ("4", "4")])
def test_openblas_runs_on_one_thread_unless_the_person_says_otherwise(
    given: str | None, used: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    run = subprocess.run(
        [sys.executable, "-c", SHOW], env=env, capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == used
