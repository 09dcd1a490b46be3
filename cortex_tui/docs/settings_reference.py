"""The configuration page's tables, made from the settings model itself.

A hand-kept list of keys goes stale the day someone adds one; this one cannot: every
field of `Settings` is a row with its real default, its bounds and its description, and
a test fails while `configuration.md` differs from what this makes.
`python -m cortex_tui.docs.settings_reference` writes the page again.
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Iterator
from typing import Any

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from cortex_tui.config import Settings
from cortex_tui.docs.pages import FOLDER
from cortex_tui.paths import default_home

PAGE = FOLDER / "configuration.md"
BEGIN = (
    "<!-- generated from the settings model by `python -m cortex_tui.docs.settings_reference`:"
    " change cortex_tui/config/, not these lines -->"
)
END = "<!-- end of the generated settings -->"

_SHOWN_DEFAULTS = {
    default_home: "the platform's user-data folder (`~/.local/share/cortex-tui` on Linux)",
}


def tables() -> str:
    """One table per section of config.toml, in the model's order, top-level keys first."""
    top = [(name, field) for name, field in Settings.model_fields.items() if not _section(field)]
    blocks = [_table("Top level", None, top, "")]
    for name, field in Settings.model_fields.items():
        section = _section(field)
        if section is not None:
            blocks.extend(_section_tables(name, section))
    blocks.append(_profiles_note())
    return "\n\n".join(blocks)


def _section(field: FieldInfo) -> type[BaseModel] | None:
    annotation = field.annotation
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _section_tables(prefix: str, model: type[BaseModel]) -> Iterator[str]:
    own = [(name, field) for name, field in model.model_fields.items() if not _section(field)]
    yield _table(f"`[{prefix}]`", model, own, f"{prefix}.")
    for name, field in model.model_fields.items():
        nested = _section(field)
        if nested is not None:
            yield from _section_tables(f"{prefix}.{name}", nested)


def _table(
    heading: str, model: type[BaseModel] | None, fields: list[tuple[str, FieldInfo]], prefix: str
) -> str:
    lines = [f"### {heading}", ""]
    intro = _first_paragraph(model.__doc__) if model is not None else ""
    if intro:
        lines += [intro, ""]
    lines += ["| key | default | allowed | what |", "|---|---|---|---|"]
    for name, field in fields:
        if name == "profiles":
            continue
        if not field.description:
            raise ValueError(
                f"setting {prefix}{name} has no description: add one in cortex_tui/config/"
            )
        cells = (f"`{prefix}{name}`", _default(field), _allowed(field), field.description)
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def _first_paragraph(doc: str | None) -> str:
    if not doc:
        return ""
    paragraph = doc.strip().split("\n\n", 1)[0]
    return " ".join(line.strip() for line in paragraph.splitlines())


def _default(field: FieldInfo) -> str:
    factory = field.default_factory
    if factory is not None and factory in _SHOWN_DEFAULTS:
        return _SHOWN_DEFAULTS[factory]
    value = field.get_default(call_default_factory=True)
    return _toml(value)


def _toml(value: Any) -> str:
    if value is None:
        return "not set"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str):
        return f'`"{value}"`'
    if isinstance(value, (int, float)):
        return f"`{value}`"
    if isinstance(value, list):
        return "`[" + ", ".join(f'"{item}"' for item in value) + "]`"
    if isinstance(value, dict) and not value:
        return "none"
    raise ValueError(f"no TOML form for the default {value!r}")


def _allowed(field: FieldInfo) -> str:
    choices = typing.get_args(field.annotation)
    if typing.get_origin(field.annotation) is typing.Literal:
        return ", ".join(f"`{choice}`" for choice in choices)
    bounds = []
    for constraint in _constraints(field):
        if isinstance(constraint, annotated_types.Ge):
            bounds.append(f"≥ {constraint.ge}")
        elif isinstance(constraint, annotated_types.Gt):
            bounds.append(f"> {constraint.gt}")
        elif isinstance(constraint, annotated_types.Le):
            bounds.append(f"≤ {constraint.le}")
        elif isinstance(constraint, annotated_types.Lt):
            bounds.append(f"< {constraint.lt}")
    return ", ".join(bounds)


def _constraints(field: FieldInfo) -> list[Any]:
    """A field's own bounds, or those of the annotated type an optional
    field wraps (`RelevanceFloor | None` keeps its bounds on the type)."""
    constraints = list(field.metadata)
    for member in typing.get_args(field.annotation):
        for extra in getattr(member, "__metadata__", ()):
            constraints.extend(getattr(extra, "metadata", [extra]))
    return constraints


def _profiles_note() -> str:
    description = Settings.model_fields["profiles"].description or ""
    return f"### `[profiles.NAME]`\n\n{description[0].upper()}{description[1:]}."


def page_with_tables(text: str) -> str:
    """The page's text with its generated part made anew (the rest kept as written)."""
    start, end = text.index(BEGIN), text.index(END)
    return f"{text[: start + len(BEGIN)]}\n\n{tables()}\n\n{text[end:]}"


def main(argv: list[str]) -> int:
    """Write the page again; `--check` only says whether it is current (exit 1 if not)."""
    current = PAGE.read_text(encoding="utf-8")
    fresh = page_with_tables(current)
    if "--check" in argv:
        if fresh != current:
            print(f"{PAGE} is stale: run python -m cortex_tui.docs.settings_reference")
            return 1
        return 0
    PAGE.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
