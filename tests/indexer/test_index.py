"""`index_path` on the real embedded store: chunks stored, re-indexing costs only changes."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from cortex_tui.embed.base import Embedder, Matrix
from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import InvalidInputError
from cortex_tui.indexer import index_path
from cortex_tui.indexer.run import SUMMARY_TAG
from cortex_tui.indexer.sources import ChunkSource
from cortex_tui.llm.base import LLMError
from cortex_tui.models import Memory, MemoryStatus, MemoryType, Scope
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter
from tests.conftest import Cli, make_engine

EVERYTHING = MemoryFilter(current_only=False, statuses=None)
FILES = {
    "guide.md": "# Guide\nIntro.\n\n## Database\nThe atlas service stores events in Postgres 16.\n",
    "rules.md": "# Rules\nNever push directly to main.\n\n# Review\nTwo approvals per change.\n",
    "sub/notes.markdown": "Loose notes without any heading about the deploy pipeline.\n",
}


class CountingEmbedder:
    """The real hashing embedder, counting the texts it is asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.texts = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> Matrix:
        self.texts += len(texts)
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> Matrix:
        self.texts += 1
        return self.inner.embed_query(text)


@pytest.fixture
def counter(hashing_embedder: Embedder) -> CountingEmbedder:
    return CountingEmbedder(hashing_embedder)


@pytest.fixture
def indexing(tmp_path: Path, counter: CountingEmbedder) -> Iterator[LocalEngine]:
    engine = make_engine(tmp_path / "home", counter)
    yield engine
    engine.close()


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """`atlas/docs` inside a git repository, so chunk keys read `atlas/docs/...`."""
    repo = tmp_path / "atlas"
    (repo / ".git").mkdir(parents=True)
    for name, text in FILES.items():
        (repo / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / "docs" / name).write_text(text, encoding="utf-8")
    return repo / "docs"


def chunks(engine: LocalEngine, key: str = "", *, current: bool = True) -> list[Memory]:
    """Chunks of `atlas/docs/KEY…`: current ones, or every version and status."""
    flt = MemoryFilter() if current else EVERYTHING
    scoped = flt.model_copy(update={"source_prefix": f"index:atlas/docs/{key}"})
    return list(engine.store.iter_memories(scoped))


def test_a_folder_becomes_classified_chunks_with_sources(indexing: LocalEngine, docs: Path) -> None:
    seen: list[tuple[int, int, str]] = []
    report = index_path(indexing, docs, project=None, progress=lambda *a: seen.append(a))
    assert (report.files_seen, report.files_changed, report.files_unchanged) == (3, 3, 0)
    stored = chunks(indexing)
    assert report.chunks_stored == len(stored) == 5
    assert seen[0][:2] == (0, 3) and seen[-1] == (3, 3, "")
    by_key = {ChunkSource.parse(m.source).key for m in stored}  # type: ignore[union-attr]
    assert by_key == {"atlas/docs/guide.md", "atlas/docs/rules.md", "atlas/docs/sub/notes.markdown"}
    rule = next(m for m in stored if "push directly" in m.content)
    assert rule.content == "Rules: Never push directly to main."
    assert rule.type is MemoryType.RULE and rule.scope is Scope.PERMANENT and rule.project is None
    assert rule.source.endswith("#rules")
    notes = next(m for m in stored if "deploy pipeline" in m.content)
    assert notes.content.startswith("notes.markdown: Loose notes")
    found = indexing.recall(
        RecallRequest(query="where are atlas events stored", update_access=False)
    )
    assert found.results[0].memory.content.startswith("Guide > Database: The atlas service")


def test_reindexing_unchanged_files_embeds_nothing(
    indexing: LocalEngine, counter: CountingEmbedder, docs: Path
) -> None:
    index_path(indexing, docs, project=None)
    before = sorted(indexing.store.iter_memories(EVERYTHING), key=lambda m: m.id)
    counter.texts = 0
    report = index_path(indexing, docs, project=None)
    assert counter.texts == 0
    assert (report.files_unchanged, report.files_changed, report.chunks_stored) == (3, 0, 0)
    assert sorted(indexing.store.iter_memories(EVERYTHING), key=lambda m: m.id) == before


def test_a_changed_file_replaces_its_stale_chunks_only(
    indexing: LocalEngine, counter: CountingEmbedder, docs: Path
) -> None:
    index_path(indexing, docs, project=None)
    old_guide = chunks(indexing, "guide.md")
    others = chunks(indexing, "rules.md") + chunks(indexing, "sub/")
    (docs / "guide.md").write_text("# Guide\n\n## Database\nEvents moved to ClickHouse.\n")
    counter.texts = 0
    report = index_path(indexing, docs, project=None)
    assert (report.files_changed, report.files_unchanged) == (1, 2)
    assert report.changed == ["atlas/docs/guide.md"]
    assert counter.texts == report.chunks_stored == 1  # only the changed file was embedded
    assert report.chunks_retired == len(old_guide)
    [new] = chunks(indexing, "guide.md")
    assert new.content == "Guide > Database: Events moved to ClickHouse."
    for old in indexing.store.get_memories([m.id for m in old_guide]):
        assert old.status is MemoryStatus.DELETED
    assert indexing.store.get_memories([m.id for m in others]) == others


def test_removed_files_are_retired_when_their_folder_is_reindexed(
    indexing: LocalEngine, docs: Path
) -> None:
    index_path(indexing, docs, project=None)
    notes = chunks(indexing, "sub/")
    (docs / "sub" / "notes.markdown").unlink()
    single = index_path(indexing, docs / "guide.md", project=None)
    assert single.files_removed == 0 and chunks(indexing, "sub/") == notes
    report = index_path(indexing, docs, project=None)
    assert report.removed == ["atlas/docs/sub/notes.markdown"]
    assert (report.files_removed, report.chunks_retired) == (1, len(notes))
    assert chunks(indexing, "sub/") == []
    assert {m.status for m in chunks(indexing, "sub/", current=False)} == {MemoryStatus.DELETED}


def test_a_file_and_its_folder_are_tracked_alike(indexing: LocalEngine, docs: Path) -> None:
    index_path(indexing, docs / "sub" / "notes.markdown", project="")
    report = index_path(indexing, docs, project=None)
    assert (report.files_unchanged, report.files_changed) == (1, 2)


def test_projects_are_indexed_and_tracked_apart(indexing: LocalEngine, docs: Path) -> None:
    index_path(indexing, docs, project=None)
    report = index_path(indexing, docs, project="atlas")
    assert report.files_changed == 3 and report.chunks_retired == 0
    scoped = [m for m in chunks(indexing) if m.project == "atlas"]
    assert len(scoped) == 5 and {m.scope for m in scoped} == {Scope.PROJECT}
    assert index_path(indexing, docs, project=None).files_unchanged == 3
    assert index_path(indexing, docs, project="atlas").files_unchanged == 3


def test_empty_files_cost_nothing(indexing: LocalEngine, docs: Path) -> None:
    (docs / "empty.md").write_text("\n\n")
    assert index_path(indexing, docs, project=None).files_unchanged == 1
    assert index_path(indexing, docs, project=None).files_unchanged == 4


def test_summaries_are_deduplicated_and_failures_do_not_stop_a_run(
    indexing: LocalEngine, docs: Path
) -> None:
    report = index_path(indexing, docs, project=None, summarize=lambda _: " Atlas docs. ")
    assert (report.summaries_stored, report.chunks_stored) == (1, 5)
    summaries = [m for m in chunks(indexing) if SUMMARY_TAG in m.tags]
    assert [m.content for m in summaries] == ["Atlas docs."]
    owner = ChunkSource.parse(summaries[0].source)
    assert owner is not None and owner.slug == "summary"
    (docs / owner.key.removeprefix("atlas/docs/")).write_text("# Changed\nNew text.\n")
    index_path(indexing, docs, project=None, summarize=lambda _: "Atlas docs.")
    assert [m.content for m in chunks(indexing) if SUMMARY_TAG in m.tags] == ["Atlas docs."]

    def down(_: str) -> str:
        raise LLMError("the LLM is unreachable")

    (docs / "rules.md").write_text("# Rules\nAlways rebase.\n")
    failed = index_path(indexing, docs, project=None, summarize=down)
    assert (failed.summaries_failed, failed.files_changed, failed.chunks_stored) == (1, 1, 1)


def test_bad_paths_are_one_line_errors(indexing: LocalEngine, docs: Path) -> None:
    (docs / "notes.txt").write_text("not markdown")
    with pytest.raises(InvalidInputError, match="not a markdown file"):
        index_path(indexing, docs / "notes.txt", project=None)
    with pytest.raises(InvalidInputError, match="does not exist"):
        index_path(indexing, docs / "missing", project=None)


def test_index_cli(cli: Cli, docs: Path) -> None:
    r = cli("index", str(docs), "--project", "atlas", "--json")
    assert r.code == 0, r.err
    first = json.loads(r.out)
    assert first["files_changed"] == 3 and first["chunks_stored"] == 5
    r = cli("index", str(docs), "--project", "atlas")
    assert r.code == 0, r.err
    assert "3 unchanged" in r.out and "0 chunks stored" in r.out
    r = cli("index", str(docs), "--summarize")
    assert r.code == 1
    assert r.err.strip().endswith("--summarize needs an LLM; set CORTEX_LLM__PROVIDER")
    r = cli("index", str(docs / "nope.md"))
    assert r.code == 2 and "does not exist" in r.err
