"""A captured turn's text as the messages the archive keeps: who said it, and its prose
sentence by sentence (code, tables and pasted logs are not kept, as capture reads none of
them; `capture/units.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from cortex_tui.capture.units import Speaker, units

MIN_MESSAGE_CHARS = 12
"""A message shorter than this ("ok", "go on") says nothing a later prompt could need."""
_ENDS = (".", "!", "?", "。", "！", "？", ":", ";")


@dataclass(frozen=True, slots=True)
class SaidMessage:
    speaker: Speaker
    text: str
    """Its sentences, each ending as a sentence does, so they split again the same way
    (`write/parts.py`)."""


def said_messages(text: str) -> list[SaidMessage]:
    """The messages of a turn's text (`User: …` / `Assistant: …` blocks), in order; a
    text with no label is one message of nobody in particular."""
    messages: list[tuple[Speaker, int, list[str]]] = []
    for unit in units(text):
        if not messages or messages[-1][:2] != (unit.speaker, unit.turn) or unit.index == 0:
            messages.append((unit.speaker, unit.turn, []))
        sentence = unit.text if unit.text.endswith(_ENDS) else f"{unit.text}."
        messages[-1][2].append(sentence)
    found = [SaidMessage(speaker, " ".join(sentences)) for speaker, _, sentences in messages]
    return [message for message in found if len(message.text) >= MIN_MESSAGE_CHARS]
