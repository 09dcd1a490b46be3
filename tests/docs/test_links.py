"""Every link between the pages and README lands on a file and a heading that exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.markdown_files import DOCUMENTS, REPO, anchors, document_id, github_slug, links


@pytest.mark.parametrize("document", DOCUMENTS, ids=document_id)
def test_every_link_resolves(document: Path) -> None:
    broken = []
    for href in links(document):
        if href.startswith(("http://", "https://")):
            continue
        target, _, anchor = href.partition("#")
        file = (document.parent / target).resolve() if target else document
        if not file.is_file():
            broken.append(f"{href}: no such file")
        elif anchor and anchor not in anchors(file):
            broken.append(f"{href}: no heading with that anchor in {file.name}")
        elif not file.is_relative_to(REPO):
            broken.append(f"{href}: outside the repository")
    assert broken == []


def test_headings_give_the_anchors_github_gives() -> None:
    assert github_slug("The write path's judgement") == "the-write-paths-judgement"
    assert github_slug("Capture: what a turn keeps") == "capture-what-a-turn-keeps"
    assert github_slug("`[recall.weights]`") == "recallweights"
    assert github_slug("Recall on LoCoMo") == "recall-on-locomo"
