"""The overview's pure parts: terms, the hook log, the projection and the clusters."""

from __future__ import annotations

from datetime import datetime

import numpy as np

from cortex_tui.overview.clusters import cluster_count, distinctive_terms, kmeans
from cortex_tui.overview.hook_log import hook_figures
from cortex_tui.overview.projection import fit
from cortex_tui.overview.terms import TermCounter, plain_text, words


def test_words_drop_markup_stop_words_and_fillers() -> None:
    text = (
        "We should also deploy the **billing** API via `make deploy` — see "
        "https://wiki.example.com/deploy and <em>never</em> on Fridays.\n"
        "```\nrm -rf /\n```\nThe user's on-call rotation"
    )
    assert "rm -rf" not in plain_text(text) and "wiki" not in plain_text(text)
    found = words(text)
    assert found == ["deploy", "billing", "api", "fridays", "on-call", "rotation"]


def test_a_term_counts_once_per_memory_in_its_most_common_spelling() -> None:
    counter = TermCounter()
    counter.add("Alerts alerts ALERTS on lag", tags=["alert"])
    counter.add("an alert fired", entities=["Kafka"], tags=["kafka"])
    counter.add("Kafka lag again", entities=["Kafka"])
    top = {term.term: term for term in counter.top(10)}
    assert top["alert"].count == 2 and top["alert"].kind == "tag"
    assert top["Kafka"].count == 2 and top["Kafka"].kind == "entity"
    assert top["lag"].count == 2 and top["lag"].kind == "word"
    assert counter.memories == 3
    assert [t.term for t in counter.top(2)] == ["alert", "Kafka"]  # ties: alphabetical


def test_hook_figures_count_the_window_and_skip_what_does_not_parse() -> None:
    lines = [
        "2026-11-25 10:00:00,001 INFO pre hook (service) done in 30 ms (12 chars out)",
        "2026-11-25 10:00:01,001 INFO pre hook (in-process) done in 50 ms (0 chars out)",
        "2026-11-25 10:00:02,001 WARNING post hook (service) failed after 9 ms: OSError: disk",
        "2026-11-23 10:00:00,001 INFO pre hook (service) done in 999 ms (0 chars out)",
        "2026-11-25 10:00:03,001 INFO something else entirely",
        "garbage",
    ]
    pre, post = hook_figures(lines, since=datetime(2026, 11, 24, 10))
    assert (pre.runs, pre.failures, pre.p50_ms, pre.p95_ms) == (2, 0, 40.0, 50.0)
    assert (post.runs, post.failures, post.p50_ms) == (1, 1, None)
    assert post.last_failure == "2026-11-25 10:00:02: OSError: disk"


def test_the_projection_keeps_the_widest_direction_and_never_mirrors() -> None:
    rng = np.random.default_rng(3)
    data = rng.normal(0, 1, (400, 6)).astype(np.float32)
    data[:, 2] *= 8  # the widest direction
    projection = fit(data)
    assert abs(projection.axes[0][2]) > 0.99
    assert projection.explained[0] > 0.8 and sum(projection.explained) <= 1.0
    assert projection.apply(data).shape == (400, 2)
    again = fit(data[::-1].copy())  # same data, another order: the same picture
    assert np.allclose(again.axes, projection.axes, atol=1e-4)
    flipped = fit(-data)  # mirrored data: axes signed by their largest loading, as before
    assert (flipped.axes[np.arange(2), np.argmax(np.abs(flipped.axes), axis=1)] > 0).all()


def test_kmeans_finds_separate_blobs_the_same_way_every_time() -> None:
    rng = np.random.default_rng(5)
    blobs = [rng.normal(centre, 0.1, (50, 2)) for centre in ((0, 0), (5, 5), (0, 5))]
    points = np.vstack(blobs).astype(np.float32)
    centres, labels = kmeans(points, 3)
    again_centres, again_labels = kmeans(points, 3)
    assert np.array_equal(labels, again_labels) and np.allclose(centres, again_centres)
    for start in (0, 50, 100):
        assert len(set(labels[start : start + 50])) == 1
    assert cluster_count(3) == 0 and cluster_count(100) == 4 and cluster_count(100_000) == 8


def test_a_cluster_is_named_by_what_sets_it_apart() -> None:
    everywhere = {"team", "service"}
    inside = [everywhere | {"kafka", "lag"} for _ in range(5)]
    outside = [everywhere | {"billing"} for _ in range(20)]
    assert distinctive_terms(inside, inside + outside) == ["kafka", "lag"]
