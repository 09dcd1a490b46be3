"""Every command README and the pages give a reader to paste works as written.

A fenced `sh` block (and a `console` session's commands) is run in a throwaway HOME (a
fresh git repository as the working folder, the engine in-process) and must exit 0. A
block no test can run says why on the line before it (`<!-- not run: REASON -->`); its
`cortex-tui` commands are still parsed by the real parsers, and the modules and scripts
it names must exist. The commands quoted inline in prose are parsed the same way when
they have no placeholder in them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MODELS_ENV
from tests.docs.documented_commands import (
    NOT_RUN,
    SETUP,
    command_lines,
    problem_with,
    simple_commands,
)
from tests.docs.markdown_files import (
    DOCUMENTS,
    CodeBlock,
    code_blocks,
    document_id,
    prose,
)

SHELL_BLOCKS = [
    block for doc in DOCUMENTS for block in code_blocks(doc) if block.language in ("sh", "console")
]
"""`sh`: commands to paste; `console`: a session, its commands after `$ `, its output not."""
RUN = [block for block in SHELL_BLOCKS if not NOT_RUN.match(block.mark)]
NOT_RUN_BLOCKS = [block for block in SHELL_BLOCKS if NOT_RUN.match(block.mark)]
INLINE = re.compile(r"`(cortex-tui(?: [^`]*)?)`")
PLACEHOLDER = re.compile(r"[\[\]|<>…]|\.\.\.|\b[A-Z][A-Z_]+\b")
"""QUERY, PATH, [--count N], weighted|rrf: a shape to fill in, not a command to paste."""


def script_of(block: CodeBlock) -> str:
    if block.language == "sh":
        return block.text
    typed, continued = [], False
    for line in block.text.split("\n"):
        if line.startswith("$ ") or continued:
            typed.append(line.removeprefix("$ "))
            continued = line.endswith("\\")
    return "\n".join(typed)


def names(blocks: list[CodeBlock]) -> list[str]:
    return [block.name for block in blocks]


def test_every_block_is_run_or_says_why_not() -> None:
    for block in SHELL_BLOCKS:
        assert block.mark == "" or NOT_RUN.match(block.mark) or SETUP.match(block.mark), (
            f"{block.name}: a mark is `<!-- not run: REASON -->` or `<!-- setup: SHELL -->`"
        )
    assert len(RUN) >= 8, "most blocks run"


@pytest.mark.parametrize("block", NOT_RUN_BLOCKS, ids=names(NOT_RUN_BLOCKS))
def test_a_block_not_run_names_only_real_options_modules_and_scripts(block: CodeBlock) -> None:
    problems = [
        problem
        for line in command_lines(script_of(block))
        for words in simple_commands(line)
        if (problem := problem_with(words))
    ]
    assert problems == []


@pytest.mark.parametrize("document", DOCUMENTS, ids=document_id)
def test_commands_quoted_in_prose_name_real_options(document: Path) -> None:
    quoted = [
        " ".join(span.split())
        for span in INLINE.findall(prose(document))
        if not PLACEHOLDER.search(span)
    ]
    problems = [
        problem
        for span in quoted
        for words in simple_commands(span)
        if len(words) > 2 and (problem := problem_with(words))  # not a command's bare name
    ]
    assert problems == []


@pytest.fixture
def sandbox(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A reader's machine in miniature: an empty HOME, a git repository to work in, the
    installed `cortex-tui` on PATH, no settings of ours from the outside but the models
    folder: the default model is built from the wheel once a run (seconds of CPU a block
    otherwise), and a reader's first command builds the same one."""
    home, work = tmp_path / "home", tmp_path / "home" / "work"
    work.mkdir(parents=True)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("CORTEX_") or key == MODELS_ENV
    }
    env |= {
        "HOME": str(home),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        "CORTEX_DAEMON": "0",
        "GIT_AUTHOR_NAME": "Reader",
        "GIT_AUTHOR_EMAIL": "reader@example.com",
        "GIT_COMMITTER_NAME": "Reader",
        "GIT_COMMITTER_EMAIL": "reader@example.com",
    }
    env.pop("XDG_DATA_HOME", None)
    env.pop("XDG_CONFIG_HOME", None)
    for git in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "start"]):
        subprocess.run(["git", *git], cwd=work, env=env, check=True)
    return work, env


@pytest.mark.parametrize("block", RUN, ids=names(RUN))
def test_a_block_runs_as_written(block: CodeBlock, sandbox: tuple[Path, dict[str, str]]) -> None:
    work, env = sandbox
    setup = SETUP.match(block.mark)
    script = "set -euo pipefail\n"
    if setup:
        script += setup.group("shell") + "\n"
    script += script_of(block) + "\n"
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{block.name} exited {done.returncode}:\n{done.stderr[-3000:]}"
