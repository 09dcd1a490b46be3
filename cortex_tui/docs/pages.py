"""Which pages there are, how a person names one, and the text a reader sees.

Standard library only: `cortex-tui docs` should print a page without loading the engine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from cortex_tui.errors import InvalidInputError

FOLDER = Path(__file__).resolve().parent
INDEX = "README.md"
"""The table of contents (GitHub shows it when the folder is opened)."""


@dataclass(frozen=True)
class Page:
    topic: str
    """What `cortex-tui docs TOPIC` takes: the file's name without `.md`."""
    summary: str

    @property
    def path(self) -> Path:
        return FOLDER / f"{self.topic}.md"

    @property
    def title(self) -> str:
        first = self.path.read_text(encoding="utf-8").split("\n", 1)[0]
        return first.removeprefix("# ").strip()


PAGES: tuple[Page, ...] = (
    Page("agents", "Claude Code's hooks, the OpenClaw plugin, the skill, the local service"),
    Page("mcp", "the engine as MCP tools for any MCP client"),
    Page("sync", "notes, transcripts and OpenClaw's sessions kept in step with memory"),
    Page("tui", "the terminal UI: its panes, their keys, themes"),
    Page("commands", "every command and its options"),
    Page("configuration", "every setting, its default and its environment variable"),
    Page("recall", "how recall ranks and explains: channels, fusion, priors"),
    Page("write-path", "what happens to a new memory, and what capture keeps of a turn"),
    Page("privacy", "secrets kept out, private marks, hostile input"),
    Page("operations", "backups, damage and repair, the team server, embedding models"),
    Page("measurements", "every figure, and the command that reproduces it"),
    Page("testing", "the test suite and the real agents it runs"),
    Page("architecture", "the packages, layer by layer"),
)


def find(topic: str) -> Page:
    """The page a person means: its topic, its file name, or the start of one topic."""
    wanted = topic.strip().lower().removesuffix(".md")
    exact = [page for page in PAGES if page.topic == wanted]
    if exact:
        return exact[0]
    started = [page for page in PAGES if page.topic.startswith(wanted)] if wanted else []
    if len(started) == 1:
        return started[0]
    topics = ", ".join(page.topic for page in PAGES)
    raise InvalidInputError(f"no page {topic!r}; the pages are: {topics}")


_TEST_MARK = re.compile(r"^<!-- (?:not run|setup): [^\n]*-->\n", re.MULTILINE)


def reader_text(path: Path) -> str:
    """A page as a person reads it: without the marks the docs' tests act on."""
    return _TEST_MARK.sub("", path.read_text(encoding="utf-8"))
