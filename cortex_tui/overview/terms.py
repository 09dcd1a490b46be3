"""The words a store uses most, as a person would pick them out.

Different from the lexical channel's tokens (`store/lexical.py`): those are stemmed
and keep every identifier, because recall must match them. Here a term is shown, so:

- markup goes first: code fences, inline code, URLs, HTML tags, markdown punctuation;
- a possessive is its word (`Priya's` is `priya`);
- a word counts once per memory (a memory that repeats "deploy" ten times is one vote),
  and words that share a stem are one term shown in their most frequent spelling;
- stop words go, with the verbs and fillers every note is made of ("use", "also");
- entities and tags count as whole phrases ("Postgres 16", "on-call"), and an entity's
  own words are not counted again as words of the memory that names it; an entity, a
  tag and a word that are the same term are one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from cortex_tui.overview.models import TermCount, TermKind
from cortex_tui.store.lexical import STOPWORDS, stem

_FENCE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"\b(?:https?|ftp|file)://\S+|\bwww\.\S+", re.IGNORECASE)
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_WORD = re.compile(r"[^\W\d_][^\W_]*(?:['’-][^\W\d_]+)*")

# fmt: off
FILLER: frozenset[str] = frozenset({
    "about", "after", "again", "all", "also", "always", "am", "any", "because", "before",
    "being", "both", "each", "else", "even", "ever", "every", "few", "get", "gets", "got",
    "here", "just", "let", "like", "make", "makes", "many", "may", "might", "more", "most",
    "much", "must", "need", "needs", "never", "new", "now", "off", "once", "one", "only",
    "other", "out", "over", "same", "see", "some", "still", "such", "sure", "take", "than",
    "thing", "things", "through", "under", "until", "up", "use", "used", "uses", "using",
    "very", "via", "want", "wants", "way", "well", "while", "yes", "yet", "said", "says",
    "say", "tell", "told", "think", "know", "really", "going", "go", "goes", "went", "come",
    "lot", "okay", "ok", "yeah", "oh", "hey", "hi", "thanks", "thank", "sounds", "great",
    "good", "what's", "it's", "that's", "i'm", "don't", "doesn't", "didn't", "can't",
    "won't", "isn't", "you're", "we're", "they're", "there's", "let's", "i've", "i'll",
    "user", "assistant", "per", "since", "without", "within", "across", "among", "around",
    "between", "during", "against", "toward", "towards", "upon", "onto", "whether",
    "either", "neither", "though", "although", "instead", "rather", "quite", "etc",
})
# fmt: on
MIN_LENGTH = 3


def plain_text(text: str) -> str:
    """`text` without the markup a note or an agent's turn carries."""
    for pattern in (_FENCE, _INLINE_CODE, _URL, _TAG):
        text = pattern.sub(" ", text)
    return text


def words(text: str) -> list[str]:
    """The meaningful words of `text`, lower-cased, in order (repeats kept)."""
    found = []
    for match in _WORD.finditer(plain_text(text)):
        word = match.group().lower().replace("’", "'").removesuffix("'s")
        if len(word) >= MIN_LENGTH and word not in STOPWORDS and word not in FILLER:
            found.append(word)
    return found


def term_key(term: str) -> str:
    """What makes two spellings one term: the stem of a one-word term (`alerts`, the tag
    `alert`), the lower-cased text of a longer one (`GitHub Actions`)."""
    lowered = term.casefold()
    return stem(lowered) if lowered.isalpha() else lowered


_KIND_ORDER: dict[TermKind, int] = {"entity": 0, "tag": 1, "word": 2}


@dataclass
class TermCounter:
    """Counts terms memory by memory; `top` gives the most frequent.

    An entity, a tag and a word that are the same term (`Kafka`, `kafka`, `kafka`) are
    one, counted once per memory, shown as the entity, else the tag, in its most
    frequent spelling.
    """

    memories: int = 0
    _counts: Counter[str] = field(default_factory=Counter)
    _spellings: dict[str, Counter[tuple[int, str]]] = field(default_factory=dict)

    def add(self, content: str, entities: Sequence[str] = (), tags: Iterable[str] = ()) -> None:
        """One memory: its content, the names of its entities, its tags."""
        self.memories += 1
        named = {word for name in entities for word in words(name)}
        found: list[tuple[TermKind, str]] = [("entity", name) for name in entities]
        found += [("tag", tag) for tag in tags if tag]
        found += [("word", word) for word in words(content) if word not in named]
        keys = set()
        for kind, term in found:
            key = term_key(term)
            self._spellings.setdefault(key, Counter())[(_KIND_ORDER[kind], term)] += 1
            keys.add(key)
        self._counts.update(keys)

    def top(self, limit: int) -> list[TermCount]:
        """The `limit` most frequent terms, most frequent first (ties alphabetical)."""
        found = []
        for key, count in self._counts.items():
            spellings = self._spellings[key]
            rank, term = min(spellings, key=lambda seen: (seen[0], -spellings[seen], seen[1]))
            kind = next(kind for kind, order in _KIND_ORDER.items() if order == rank)
            found.append(TermCount(term=term, count=count, kind=kind))
        found.sort(key=lambda term: (-term.count, term.term.casefold(), term.kind))
        return found[:limit]
