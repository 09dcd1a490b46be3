"""A turn's text cut into the sentences capture judges, each knowing who said it and where.

Who said a sentence changes what it can be worth: the person's prompt carries their
instructions, corrections and preferences; the assistant's text carries findings and
lessons, and far more narration. A conversation reaches capture as `User: …` /
`Assistant: …` blocks (the hooks write it so, `transcript.conversation_text`); a block
runs until the next label, over blank lines. Text with no such label (a note, a sentence
given to `capture`) is nobody's in particular.

Code (fenced or indented), tables and rules are no sentences; headings are not either,
but the sentences under one remember it ("Root cause", "Summary"). An intro ending in
":" with list items after it ("To cut a release:") becomes one procedure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from cortex_tui.capture.annotate import ABBREVIATIONS, BACKTICK

Speaker = Literal["user", "assistant", "unknown"]

_I = re.IGNORECASE
_FENCED = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$", re.DOTALL | re.MULTILINE)
_ROLE = re.compile(r"^(User|Human|Assistant|Claude|AI|USER|ASSISTANT)\s*:\s*")
_SPEAKERS: dict[str, Speaker] = {  # by the label's lower case
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "claude": "assistant",
    "ai": "assistant",
}
_BULLET = re.compile(r"^(?:[-*+•]|\d{1,2}[.)])\s+")
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_SKIP_LINE = re.compile(
    r"^(?:\||[-=*_]{3,}\s*$|\$\s|>>>\s|<[/a-z]|File \"[^\"]+\", line \d+)|[│┃╭╰║]", _I
)
"""Tables, rules, shell and REPL lines, markup, traceback frames and terminal boxes."""
_LOG_LINE = re.compile(
    r"^(?:\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\[?(?:INFO|DEBUG|WARN(?:ING)?|ERROR|TRACE|FATAL"
    r"|CRITICAL)\]?[: ]|[A-Z]\w*(?:Error|Exception|Warning): |\(\S+\) \S+[@:]\S*.*[$#] "
    r"|\S*\s*[✗➜❯]\s)"
    r'|"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /\S* HTTP/'
)
"""Lines of a pasted log: a timestamp or level first, an exception, a shell prompt, an
access log's request. They carry nothing by themselves."""
_EMPHASIS = re.compile(r"(`[^`\n]*`)|\*\*|~~|(?<![\w*])([*_])(\S(?:[^*_`\n]*?\S)?)\2(?![\w*])")
_BREAK = re.compile(r"[.!?]+[\"')\]]*\s+|[。！？]+[」』）\"']*\s*")
_WIDE = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
_INTRO = re.compile(r"(?:^|\b)(?:to|how to|steps? to|in order to|process|procedure)\b.*:$", _I)
_CORRECTION = re.compile(
    r"^(?:(?:no|nope|nah|wrong|actually|not quite)\s*[,.!:;—–-]+"
    r"|(?:that'?s|that is|this is) (?:wrong|incorrect|not (?:right|correct|it|what i \w+))"
    r"\s*[,.!:;—–-]*|i (?:said|meant)\b[,:]?)\s*",
    _I,
)
"""How the person starts setting right what the agent did: "No, ...", "Actually, ...",
"That's wrong: ...". Not "No tests may ...", which is a rule of its own."""
_INTERJECTION = re.compile(
    r"^(?:(?:ok(?:ay)?|yes|yeah|yep|no|nope|sure|great|cool|nice|good|awesome|perfect|done"
    r"|thanks|thank you|alright|right|oh|well|hmm|got it|also|btw|fyi)\s*[,!:.–—-]+\s*"
    r"|(?:so|also|and|but|plus|btw)\s+)+",
    _I,
)


@dataclass(frozen=True, slots=True)
class Unit:
    """One sentence to judge, cleaned of markdown, with where it stood."""

    text: str
    speaker: Speaker
    heading: str = ""
    """The heading it stands under in its message, if any."""
    index: int = 0
    """Its place among its message's sentences (0: the first)."""
    of: int = 1
    """How many sentences its message has."""
    item: bool = False
    """A list item."""
    procedure: bool = False
    """An intro merged with its numbered steps."""
    turn: int = 0
    """Which turn of the text it is in: a turn starts where the person speaks."""
    correction: bool = False
    """It sets right what was said before ("No, use X", "Actually, it's Y")."""


@dataclass
class _Block:
    text: str
    item: bool
    heading: str


def units(text: str) -> list[Unit]:
    """The sentences of `text`, message by message, in order."""
    found: list[Unit] = []
    turn = 0
    for speaker, message in _messages(text):
        turn += speaker == "user" and bool(found)
        sentences = _message_units(message)
        found += [
            replace(s, speaker=speaker, index=n, of=len(sentences), turn=turn)
            for n, s in enumerate(sentences)
        ]
    return found


def sentences(text: str) -> list[str]:
    """Split at . ! ? before a capital or digit, but not after an abbreviation or initial;
    dots inside versions (3.11), file names and backticks never split. In scripts
    without spaces (Chinese, Japanese) 。！？ always end a sentence."""
    spans: list[str] = []

    def hide(match: re.Match[str]) -> str:
        spans.append(match.group(0))
        return f"\x00{len(spans) - 1}\x00"

    hidden = BACKTICK.sub(hide, text)
    pieces: list[str] = []
    start = 0
    for match in _BREAK.finditer(hidden):
        if match.group(0)[0] not in "。！？":
            following = hidden[match.end() : match.end() + 1]
            token = hidden[start : match.start()].rsplit(None, 1)[-1:] or [""]
            word = token[0].lstrip("(\"'").lower()
            after_abbreviation = match.group(0)[0] == "." and (
                word in ABBREVIATIONS or (len(word) == 1 and word.isalpha())
            )
            starts_next = following.isupper() or following in "0123456789\"'`(*\x00["
            if after_abbreviation or not (starts_next or _wide(following)):
                continue
        pieces.append(hidden[start : match.end()].strip())
        start = match.end()
    pieces.append(hidden[start:].strip())
    restore = re.compile(r"\x00(\d+)\x00")
    return [restore.sub(lambda m: spans[int(m.group(1))], p) for p in pieces if p]


def clean(raw: str) -> str:
    """Markdown emphasis (outside code) and leading interjections ("Ok, ...") removed."""
    text = _EMPHASIS.sub(lambda match: match.group(1) or match.group(3) or "", raw)
    return capitalise(_INTERJECTION.sub("", " ".join(text.split()).strip(" -–—")))


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def wide_characters(text: str) -> int:
    """Characters of the scripts written without spaces between words (Chinese,
    Japanese, Korean syllables and full-width forms; not emoji)."""
    return len(_WIDE.findall(text))


def _wide(char: str) -> bool:
    """A sentence may start with this character without a space before it."""
    return bool(_WIDE.match(char))


def _messages(text: str) -> list[tuple[Speaker, str]]:
    """The text cut where a line starts with `User:` / `Assistant:` (or the like,
    capitalised: "assistant: crashed" in the middle of a log is no one speaking)."""
    messages: list[tuple[Speaker, list[str]]] = []
    for line in text.splitlines():
        label = _ROLE.match(line.strip())
        if label is not None:
            speaker = _SPEAKERS[label.group(1).lower()]
            messages.append((speaker, [line.strip()[label.end() :]]))
        elif messages:
            messages[-1][1].append(line)
        else:
            messages.append(("unknown", [line]))
    return [(speaker, "\n".join(lines)) for speaker, lines in messages]


def _message_units(message: str) -> list[Unit]:
    blocks = _blocks(message)
    found: list[Unit] = []
    index = 0
    while index < len(blocks):
        block = blocks[index]
        parts = sentences(block.text)
        index += 1
        steps: list[str] = []
        while parts and _INTRO.search(parts[-1]) and index < len(blocks):
            if not blocks[index].item:
                break
            step = blocks[index].text.rstrip(" .;")
            steps.append(step[:1].lower() + step[1:] if step[1:2].islower() else step)
            index += 1
        if steps:
            intro = parts.pop()[:-1]
            found += [_unit(s, block) for s in parts]
            procedure = clean(f"{intro}: {'; '.join(steps)}.")
            found.append(Unit(procedure, "unknown", block.heading, procedure=True))
        else:
            found += [_unit(s, block) for s in parts]
    return [unit for unit in found if unit.text]


def _unit(sentence: str, block: _Block) -> Unit:
    lead = _CORRECTION.match(sentence.lstrip("*_ "))
    if lead is not None and lead.end() < len(sentence.lstrip("*_ ")):
        sentence = sentence.lstrip("*_ ")[lead.end() :]
    return Unit(clean(sentence), "unknown", block.heading, item=block.item, correction=bool(lead))


def _blocks(message: str) -> list[_Block]:
    """Paragraphs and list items of prose (soft-wrapped lines joined), code skipped."""
    blocks: list[_Block] = []
    heading = ""
    joinable, in_code, after_blank = False, False, True
    for raw in _FENCED.sub("\n", message).splitlines():
        line = re.sub(r"^(?:>\s?)+", "", raw.strip()).strip()
        indented = raw.startswith(("    ", "\t"))
        in_code = indented and not _BULLET.match(line) and (in_code or after_blank)
        after_blank = not line
        titled = _HEADING.match(line)
        if titled:
            heading = clean(titled.group(1)).rstrip(":")
        if not line or in_code or titled or _SKIP_LINE.match(line) or _LOG_LINE.search(line):
            joinable = False
            continue
        item = _BULLET.match(line)
        if item:
            blocks.append(_Block(line[item.end() :], True, heading))
        elif joinable and (line[0].islower() or line[0] in "`("):  # a soft-wrapped line
            blocks[-1].text = f"{blocks[-1].text} {line}"
        else:
            blocks.append(_Block(line, False, heading))
        joinable = not blocks[-1].text.endswith((".", "!", "?", ":"))
    return blocks
