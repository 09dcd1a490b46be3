"""The corpus of real sessions as committed: its sources, its parts and its labels load
as the eval reads them, and no session comes from a repository held out."""

from __future__ import annotations

import json
from pathlib import Path

from cortex_tui.eval.sessions_dataset import SessionsCorpus, load_sessions
from tests.conftest import Cli

CORPUS = Path(__file__).resolve().parents[1] / "data" / "sessions" / "corpus.json"
HELD_OUT_REPOSITORIES = {
    "reality2-roycdavies/cosmic-bing-wallpaper",
    "moredip/session-share",
    "M-Thisness/M-Claude",
}


def test_the_corpus_is_real_sessions_from_several_repositories_in_two_parts() -> None:
    raw = json.loads(CORPUS.read_text())
    corpus = SessionsCorpus.model_validate(raw)
    repos = {s.repo for s in corpus.sessions}
    assert len(corpus.sessions) >= 12 and len(repos) >= 5
    assert not repos & HELD_OUT_REPOSITORIES
    parts = {
        s.split: {t.repo for t in corpus.sessions if t.split == s.split} for s in corpus.sessions
    }
    assert set(parts) == {"dev", "held-out"}
    assert not parts["dev"] & parts["held-out"]  # split by repository
    dataset = load_sessions(raw, CORPUS, None)  # every labels file, validated
    for session in dataset.sessions:
        assert sum(label.core for label in session.labels.labels) >= 3, session.name
        assert session.labels.candidates, session.name


def test_without_its_transcripts_the_eval_says_where_each_is(cli: Cli) -> None:
    done = cli("eval", str(CORPUS), "--json")
    assert done.code == 0, done.err
    run = json.loads(done.out)["sessions"][0]
    assert len(run["not_run"]) == len(json.loads(CORPUS.read_text())["sessions"])
    assert all("git show" in where and "--transcripts" in where for where in run["not_run"])
