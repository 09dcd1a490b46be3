"""Probes of a sessions corpus: what a later session in each repository asks.

For each core label, one prompt a developer might type in a later session where that
memory would help; and prompts no memory of the repository bears on. One file per
repository, `probes/<owner>-<repo>.json` beside the corpus (the guide:
`tests/data/sessions/LABELLING.md`, "Probes"). The end-to-end eval asks each in a new
session after the repository's sessions are replayed, and reads what it was given.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

PROBES_FOLDER = "probes"


class Probe(BaseModel):
    """A later prompt that a core label of `session` would help."""

    model_config = ConfigDict(extra="forbid")

    session: str = Field(min_length=1)
    label: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    english: str | None = None


class UnrelatedPrompt(BaseModel):
    """A prompt no memory of the repository bears on."""

    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(min_length=1)
    english: str | None = None


class RepositoryProbes(BaseModel):
    model_config = ConfigDict(extra="forbid")

    repo: str = Field(min_length=3)
    probes: list[Probe] = Field(default_factory=list)
    unrelated: list[UnrelatedPrompt] = Field(default_factory=list)
