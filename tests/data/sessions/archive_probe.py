"""Where the turn archive stands for each development probe and unrelated prompt, on a
kept replay: is the probe's label said in an archived message at all, how relevant is
that message's best sentence to the probe and where does it rank among the archive's
candidates; and how relevant the best quote is for prompts about nothing. What the
quote floor and the quote count are chosen from.

    cortex-tui --home KEEP eval tests/data/sessions/corpus.json --only dev --transcripts DIR
    python tests/data/sessions/archive_probe.py KEEP/eval/claude-code-sessions/base
"""

from __future__ import annotations

import argparse
import json
import statistics
from contextlib import closing
from pathlib import Path

from cortex_tui.config import load_settings
from cortex_tui.engine.open import open_engine
from cortex_tui.eval.claude_replay import in_home
from cortex_tui.eval.sessions_dataset import load_sessions
from cortex_tui.store.base import MemoryFilter

HERE = Path(__file__).resolve().parent
READ = 20
"""Quotes read for each probe."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kept", type=Path, help="the kept replay of the development part")
    parser.add_argument("--split", default="dev")
    args = parser.parse_args()
    settings = load_settings()
    corpus = HERE / "corpus.json"
    dataset = load_sessions(json.loads(corpus.read_text()), corpus, None)
    sessions = [s for s in dataset.sessions if s.source.split == args.split]
    labels = {(s.name, label.id): label for s in sessions for label in s.labels.labels}
    repos = {s.source.repo for s in sessions}
    needed: list[tuple[float, int]] = []  # (relevance, rank) of the label's best quote
    never_said = 0
    nothing: list[float] = []
    for repo, probes in dataset.probes.items():
        if repo not in repos:
            continue
        home = args.kept / repo.replace("/", "-").lower() / "home"
        with closing(open_engine(in_home(settings, home))) as engine:
            everything = MemoryFilter(current_only=False, statuses=None)
            archived = list(engine.store.archive.iter_memories(everything))
            project = next((m.project for m in archived if m.project), None)
            for probe in probes.probes:
                label = labels[(probe.session, probe.label)]
                if not any(label.matches(m.content) for m in archived):
                    never_said += 1
                    continue
                found = engine.archive.search(probe.prompt, project, READ)
                ranks = [q.rank for q in found if label.matches(q.text)]
                needed.append((found[ranks[0] - 1].gate.relevance, ranks[0]) if ranks else (0.0, 0))
            for prompt in probes.unrelated:
                found = engine.archive.search(prompt.prompt, project, 1)
                nothing.append(found[0].gate.relevance if found else 0.0)
    print(f"probes: {len(needed) + never_said}; label never said in the archive: {never_said}")
    found_at = [r for _, r in needed if r]
    print(f"label's sentence among the quotes read: {len(found_at)} of {len(needed)}")
    for k in (1, 3, 5, 10):
        print(f"  quoted within the first {k}: {sum(r <= k for r in found_at)}")
    for floor in (0.5, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99):
        given = sum(rel >= floor and r > 0 for rel, r in needed)
        top3 = sum(rel >= floor and 0 < r <= 3 for rel, r in needed)
        unrelated = sum(rel >= floor for rel in nothing)
        print(
            f"floor {floor:.2f}: needed quote over it {given} (in the first 3: {top3}); "
            f"unrelated prompts with a quote over it {unrelated} of {len(nothing)}"
        )
    if nothing:
        print(f"unrelated prompts' best quote: median {statistics.median(nothing):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
