"""Settings an eval run compares: the base (config + `--set`) and each `--variant`.

Every dataset is ingested and embedded once; each variant then runs its own recall pass
over that same store, so only recall settings may differ between variants (an embedder
or a `context.*` change would need another store). `--set` changes the whole run,
embedder and neighbour context included.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel

from cortex_tui.config import Settings, with_override
from cortex_tui.errors import InvalidInputError
from cortex_tui.eval.llm_replay import REPLAY_MODES, ReplayMode

BASE = "base"
RUN_SECTIONS = ("recall", "embedder", "write", "context")
VARIANT_SECTIONS = ("recall", "write", "archive")
REPLAY_SECTIONS = tuple(
    name
    for name, field in Settings.model_fields.items()
    if isinstance(field.annotation, type)
    and issubclass(field.annotation, BaseModel)
    and name != "store"
)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    settings: Settings
    changes: dict[str, str] = field(default_factory=dict)
    llm_replay: ReplayMode | None = None
    """Pairs only: the judge's LLM answers are replayed (`eval/llm_replay.py`)."""


def replay_variants(base: Settings, modes: Sequence[str]) -> list[Variant]:
    """One variant per `--llm-replay` mode: the base settings, an LLM judge replayed."""
    variants = []
    for mode in dict.fromkeys(m.strip().lower() for m in modes):
        chosen = next((m for m in REPLAY_MODES if m == mode), None)
        if chosen is None:
            raise InvalidInputError(
                f"--llm-replay {mode!r}: give {' or '.join(REPLAY_MODES)}, or both comma-separated"
            )
        name = f"llm-{chosen}-replay"
        variants.append(Variant(name, base, {"llm": f"{chosen} replay"}, llm_replay=chosen))
    return variants


def apply_sets(
    settings: Settings, assignments: Sequence[str], *, own_stores: bool = False
) -> tuple[Settings, dict[str, str]]:
    """The run's settings after every `--set key=value`, and the changes made."""
    changes = dict(_assignment(text, "--set") for text in assignments)
    sections = REPLAY_SECTIONS if own_stores else RUN_SECTIONS
    return _apply(settings, changes, sections, "--set"), changes


def build_variants(
    base: Settings,
    specs: Sequence[str],
    base_changes: dict[str, str] | None = None,
    *,
    own_stores: bool = False,
) -> list[Variant]:
    """The base run first (`base_changes`: its `--set`s), then one variant per
    `NAME:key=value,key=value`, each applied on top of the base. With `own_stores` (a
    sessions run replays every variant into a store of its own) a variant may change
    any setting but where the store is."""
    sections = REPLAY_SECTIONS if own_stores else VARIANT_SECTIONS
    variants = [Variant(BASE, base, base_changes or {})]
    for spec in specs:
        name, colon, body = spec.partition(":")
        name = name.strip()
        if not colon or not _NAME.fullmatch(name):
            raise InvalidInputError(
                f"--variant {spec!r}: give NAME:key=value[,key=value], "
                "e.g. dense:recall.fusion=dense"
            )
        if any(v.name == name for v in variants):
            raise InvalidInputError(
                f"--variant {name!r} is given twice (or is the base run's name)"
            )
        changes = dict(_assignment(part, f"--variant {name}") for part in body.split(",") if part)
        for key in changes:
            if key.split(".")[0] in set(RUN_SECTIONS) - set(sections):
                raise InvalidInputError(
                    f"--variant {name}: {key} would need its own store; variants share one "
                    "ingested store, so change it for the whole run with --set"
                )
        settings = _apply(base, changes, sections, f"--variant {name}")
        variants.append(Variant(name, settings, changes))
    return variants


def _apply(
    settings: Settings, changes: dict[str, str], sections: Sequence[str], flag: str
) -> Settings:
    try:
        for key, value in changes.items():
            settings = with_override(settings, key, value, sections)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{flag}: {exc}") from None
    return settings


def _assignment(text: str, flag: str) -> tuple[str, str]:
    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise InvalidInputError(f"{flag} {text!r}: give key=value, e.g. recall.lexical_weight=0.3")
    return key.strip(), value.strip()
