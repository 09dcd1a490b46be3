"""Recall through the Engine API on a real embedded store."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest

from cortex_tui.config import WritePathConfig
from cortex_tui.engine.local import LocalEngine
from cortex_tui.models import (
    ConflictStatus,
    Entity,
    MemoryDraft,
    MemoryType,
    Relation,
    Scope,
)
from cortex_tui.recall.request import RecallRequest
from tests.conftest import NOW


def remember(engine: LocalEngine, content: str, **kw: object) -> str:
    return engine.remember(MemoryDraft(content=content, **kw)).memory.id  # type: ignore[arg-type]


def ids(engine: LocalEngine, query: str, **kw: object) -> list[str]:
    request = RecallRequest(query=query, update_access=False, **kw)  # type: ignore[arg-type]
    return [r.memory.id for r in engine.recall(request).results]


def test_project_filter_returns_project_plus_global(engine: LocalEngine) -> None:
    atlas = remember(engine, "atlas deploys run through the release workflow", project="atlas")
    harbor = remember(engine, "harbor deploys run through the release workflow", project="harbor")
    glob = remember(engine, "all deploys run through the release workflow")
    found = ids(engine, "deploys release workflow", project="atlas")
    assert atlas in found and glob in found
    assert harbor not in found


def test_every_result_carries_a_breakdown_that_sums(engine: LocalEngine) -> None:
    for i in range(12):
        remember(engine, f"fact {i} about the staging cluster reset schedule", tags=["staging"])
    response = engine.recall(RecallRequest(query="staging reset", update_access=False))
    assert response.results
    for r in response.results:
        b = r.breakdown
        assert len(b.signals) == 11  # relevance and ten priors
        assert math.isclose(sum(s.contribution for s in b.signals.values()), b.adjusted)
        assert math.isclose(b.adjusted * b.supersession_penalty * b.conflict_penalty, r.score)
        assert b.channels["dense"] is not None or b.channels["lexical"] is not None
    assert [r.rank for r in response.results] == list(range(1, len(response.results) + 1))
    scores = [r.score for r in response.results]
    assert scores == sorted(scores, reverse=True)


def test_lexical_channel_finds_rare_identifier(engine: LocalEngine) -> None:
    target = remember(engine, "The PGBOUNCER_POOL_SIZE setting must stay at 40 on the primary.")
    for i in range(30):
        remember(engine, f"The primary database setting number {i} must stay as documented.")
    response = engine.recall(RecallRequest(query="PGBOUNCER_POOL_SIZE", update_access=False))
    top = response.results[0]
    assert top.memory.id == target
    lexical = top.breakdown.channels["lexical"]
    assert lexical is not None and lexical.rank == 1
    assert top.breakdown.lexical_score and top.breakdown.lexical_score > 0


def test_type_and_tag_filters_apply(engine: LocalEngine) -> None:
    rule = remember(engine, "Never force-push to main", type=MemoryType.RULE, tags=["git"])
    fact = remember(engine, "main is protected against force-push", type=MemoryType.FACT)
    assert ids(engine, "force-push main", types=[MemoryType.RULE]) == [rule]
    assert ids(engine, "force-push main", tags=["git"]) == [rule]
    assert fact in ids(engine, "force-push main")


def test_recall_updates_access_unless_told_not_to(engine: LocalEngine) -> None:
    memory_id = remember(engine, "The on-call rotation is biweekly")
    engine.recall(RecallRequest(query="on-call rotation", update_access=False))
    assert engine.get(memory_id).access_count == 0
    engine.recall(RecallRequest(query="on-call rotation"))
    touched = engine.get(memory_id)
    assert touched.access_count == 1
    assert touched.last_accessed == NOW


def test_a_read_counted_later_keeps_what_was_written_in_between(engine: LocalEngine) -> None:
    """The service counts a pre hook's reads after answering; a capture may have written
    the memory since (a repeat reinforced it), and the count must not undo that."""
    memory_id = remember(engine, "The on-call rotation is biweekly")
    read = engine.recall(RecallRequest(query="on-call rotation", update_access=False))
    remember(engine, "The on-call rotation is biweekly")  # a repeat: reinforced
    engine.touch([r.memory.id for r in read.results])
    touched = engine.get(memory_id)
    assert (touched.access_count, touched.reinforced_count) == (1, 1)


def test_update_supersedes_and_history_flag_shows_old_version(engine: LocalEngine) -> None:
    old = remember(engine, "Postgres runs version 15 in production")
    new = engine.update(old, content="Postgres runs version 16 in production")
    assert ids(engine, "Postgres version production") == [new.id]
    with_history = ids(engine, "Postgres version production", include_history=True)
    assert set(with_history) == {old, new.id}
    response = engine.recall(
        RecallRequest(query="Postgres version", include_history=True, update_access=False)
    )
    by_id = {r.memory.id: r for r in response.results}
    assert by_id[old].breakdown.supersession_penalty == 0.3
    assert by_id[new.id].breakdown.supersession_penalty == 1.0
    chain = engine.history(new.id)
    assert [m.id for m in chain] == [old, new.id]
    assert chain[0].valid_to == NOW and chain[0].superseded_by_id == new.id


def test_as_of_returns_what_was_true_then(engine: LocalEngine) -> None:
    earlier = NOW - timedelta(days=30)
    old = engine.remember(
        MemoryDraft(content="The API rate limit is 100 per minute", created_at=earlier)
    ).memory
    new = engine.update(old.id, content="The API rate limit is 300 per minute")
    assert ids(engine, "API rate limit", as_of=NOW - timedelta(days=1)) == [old.id]
    assert ids(engine, "API rate limit") == [new.id]


def test_forgotten_memories_are_not_recalled(engine: LocalEngine) -> None:
    memory_id = remember(engine, "The VPN needs the hardware token")
    engine.forget(memory_id)
    assert ids(engine, "VPN hardware token") == []
    assert engine.upkeep.purge() == 1


def test_active_conflict_is_penalised_and_annotated(engine: LocalEngine) -> None:
    a = engine.remember(MemoryDraft(content="Staging is reset nightly")).memory
    b = engine.remember(MemoryDraft(content="Staging is reset every Sunday")).memory
    for me, other in ((a, b), (b, a)):
        engine.store.update_memories(
            [
                me.model_copy(
                    update={
                        "conflict_group_id": "g1",
                        "conflict_status": ConflictStatus.ACTIVE,
                        "contradicts_ids": [other.id],
                    }
                )
            ]
        )
    response = engine.recall(RecallRequest(query="staging reset", update_access=False))
    first = response.results[0]
    assert first.breakdown.conflict_penalty == 0.8
    assert first.conflicts_with in ([a.short_id], [b.short_id])
    assert "[conflicts with:" in response.context


def test_graph_channel_uses_hand_built_graph(engine: LocalEngine) -> None:
    """Priya leads atlas; atlas uses Postgres. Asking about Priya reaches the Postgres
    memory through two relations, with its real cosine and a real hop count."""
    pg_memory = remember(engine, "The primary database was upgraded last spring")
    priya_memory = remember(engine, "Priya approves schema changes")
    t = NOW - timedelta(days=1)
    priya = Entity(name="Priya Raman", aliases=["Priya"], created_at=t, memory_ids=[priya_memory])
    atlas = Entity(name="atlas", created_at=t)
    pg = Entity(name="Postgres", created_at=t, memory_ids=[pg_memory])
    engine.insert_graph(
        [priya, atlas, pg],
        [
            Relation(subject_id=priya.id, predicate="leads", object_id=atlas.id, valid_from=t),
            Relation(subject_id=atlas.id, predicate="uses", object_id=pg.id, valid_from=t),
        ],
    )
    response = engine.recall(RecallRequest(query="what does Priya work on", update_access=False))
    by_id = {r.memory.id: r for r in response.results}
    assert by_id[priya_memory].breakdown.graph_hops == 1
    assert by_id[priya_memory].breakdown.signals["graph_proximity"].raw == 1.0
    far = by_id[pg_memory].breakdown
    assert far.graph_hops == 3
    assert far.signals["graph_proximity"].raw == pytest.approx(1 / 3)
    assert far.channels["graph"] is not None
    assert far.cosine == pytest.approx(
        float(
            engine.embedder.embed_query("what does Priya work on")
            @ engine.embedder.embed(["The primary database was upgraded last spring"])[0]
        ),
        abs=1e-4,
    )
    # Filters apply to graph hits too.
    engine.forget(pg_memory)
    again = engine.recall(RecallRequest(query="what does Priya work on", update_access=False))
    assert pg_memory not in {r.memory.id for r in again.results}


def test_explain_ranks_a_memory_outside_the_top_k(engine: LocalEngine) -> None:
    for i in range(15):
        remember(engine, f"release checklist step {i}: tag the release and publish it")
    far = remember(engine, "lunch options near the Berlin office", type=MemoryType.PREFERENCE)
    request = RecallRequest(query="release checklist", limit=5, update_access=False)
    explanation = engine.explain(request, far[:8])
    assert explanation.excluded_by is None
    assert explanation.rank is not None and explanation.rank > 5
    assert explanation.result is not None and len(explanation.above) == 5


def test_explain_names_the_filter_that_excludes(engine: LocalEngine) -> None:
    memory_id = remember(
        engine, "harbor backfills need --dry-run first", project="harbor", scope=Scope.PROJECT
    )
    request = RecallRequest(query="backfill", project="atlas", update_access=False)
    explanation = engine.explain(request, memory_id)
    assert explanation.rank is None
    assert explanation.excluded_by == "belongs to project harbor, the query is for project atlas"


def test_local_engine_satisfies_the_engine_protocol(engine: LocalEngine) -> None:
    from cortex_tui.engine.protocol import Engine

    def accepts(e: Engine) -> Engine:
        return e

    assert accepts(engine) is engine
    missing = [
        name for name in dir(Engine) if not name.startswith("_") and not hasattr(engine, name)
    ]
    assert missing == []


def test_people_are_found_by_first_name_in_the_graph_channel(engine: LocalEngine) -> None:
    from cortex_tui.models import EntityType

    memory_id = remember(engine, "Schema changes need an approval from the tech lead")
    t = NOW - timedelta(days=1)
    priya = Entity(name="Priya Raman", type=EntityType.PERSON, created_at=t, memory_ids=[memory_id])
    mark = Entity(name="Mark Lee", type=EntityType.PERSON, created_at=t)
    engine.insert_graph([priya, mark], [])
    graph = engine.graph_index()
    assert graph.entities_in("ask Priya about it", 88) == {priya.id}
    assert graph.entities_in("the market is down", 88) == set()
    response = engine.recall(RecallRequest(query="what does Priya approve", update_access=False))
    assert response.results[0].breakdown.graph_hops == 1


def test_a_candidate_outside_the_lexical_top_list_gets_its_real_bm25(engine: LocalEngine) -> None:
    # the default model's thresholds: the hashing embedder's own fold the two loosely
    # worded staging notes into one, and this test needs both
    writer = engine.with_settings(engine.settings.model_copy(update={"write": WritePathConfig()}))
    strong = remember(writer, "staging reset staging reset schedule for the staging cluster")
    weak = remember(writer, "the staging cluster lives in eu-central")
    narrow = engine.settings.model_copy(deep=True)
    narrow.recall.lexical_candidates = 1
    ranked = engine.with_settings(narrow).recall(
        RecallRequest(query="staging reset", update_access=False)
    )
    by_id = {r.memory.id: r.breakdown for r in ranked.results}
    strong_hit = by_id[strong].channels["lexical"]
    assert strong_hit is not None and strong_hit.rank == 1
    filled = by_id[weak]
    assert filled.channels["lexical"] is None  # not in the channel's top list...
    assert filled.lexical_score is not None and filled.lexical_score > 0  # ...yet scored
    assert filled.lexical_bm25_scaled == pytest.approx(filled.lexical_score / strong_hit.score)


def test_a_memory_sharing_one_word_of_a_longer_query_gets_that_share_of_its_bm25(
    engine: LocalEngine,
) -> None:
    # On a store this small the lone "harbor" match is the lexical channel's best hit, so
    # BM25/max alone would rate it 1.0; coverage says it speaks to one term in three.
    lone = remember(engine, "harbor runs nightly on the shared cluster")
    both = remember(engine, "the kafka consumer writes parquet files")
    ranked = engine.recall(
        RecallRequest(query="harbor kafka parquet", limit=5, update_access=False)
    )
    by_id = {r.memory.id: r.breakdown for r in ranked.results}
    assert by_id[lone].lexical_coverage == pytest.approx(1 / 3)
    assert by_id[both].lexical_coverage == pytest.approx(2 / 3)
    for b in by_id.values():
        assert b.lexical_bm25_scaled is not None and b.lexical_coverage is not None
        assert b.lexical_scaled == pytest.approx(b.lexical_bm25_scaled * b.lexical_coverage)
    unmeasured = engine.settings.model_copy(deep=True)
    unmeasured.recall.lexical_coverage_power = 0
    plain = engine.with_settings(unmeasured).recall(
        RecallRequest(query="harbor kafka parquet", limit=5, update_access=False)
    )
    for result in plain.results:
        b = result.breakdown
        assert b.lexical_coverage is None and b.lexical_scaled == b.lexical_bm25_scaled


def test_a_query_naming_a_kind_of_memory_favours_that_kind(engine: LocalEngine) -> None:
    rule = remember(
        engine, "Atlas changes go through a pull request with one approval", type=MemoryType.RULE
    )
    procedure = remember(
        engine,
        "To merge atlas changes, open a pull request and wait for CI",
        type=MemoryType.PROCEDURE,
    )
    asked = engine.recall(
        RecallRequest(query="rules for merging atlas changes", update_access=False)
    )
    by_id = {r.memory.id: r.breakdown for r in asked.results}
    assert by_id[rule].query_types == [MemoryType.RULE]
    assert by_id[rule].signals["type"].raw == 1.0
    assert by_id[procedure].signals["type"].raw == 0.0
    assert by_id[rule].type_prior_note() is not None
    plain = engine.recall(RecallRequest(query="merging atlas changes", update_access=False))
    unnamed = {r.memory.id: r.breakdown for r in plain.results}
    assert unnamed[rule].query_types == [] and unnamed[rule].type_prior_note() is None
    # Without a named type, the configured order: rule 1.5, procedure 1.3 (of 1.5).
    assert unnamed[procedure].signals["type"].raw == pytest.approx(1.3 / 1.5)


def test_a_query_naming_a_period_favours_memories_of_it(engine: LocalEngine) -> None:
    may = remember(
        engine,
        "The harbor team went camping at the lake",
        created_at=NOW.replace(year=NOW.year - 1, month=5, day=10),
    )
    august = remember(
        engine,
        "The harbor team went camping at the coast",
        created_at=NOW.replace(year=NOW.year - 1, month=8, day=10),
    )
    asked = engine.recall(
        RecallRequest(
            query=f"where did the harbor team go camping in May {NOW.year - 1}", update_access=False
        )
    )
    by_id = {r.memory.id: r.breakdown for r in asked.results}
    assert by_id[may].signals["period"].raw == 1.0
    assert by_id[august].signals["period"].raw == 0.0
    assert by_id[may].period_note() == (
        f"the query names 'May {NOW.year - 1}' ({NOW.year - 1}-05-01 to {NOW.year - 1}-05-31): "
        "memories dated then get period 1"
    )
    assert asked.results[0].memory.id == may
    plain = engine.recall(
        RecallRequest(query="where did the harbor team go camping", update_access=False)
    )
    for result in plain.results:
        assert result.breakdown.signals["period"].raw == 0.0
        assert result.breakdown.period_note() is None


def said(engine: LocalEngine, content: str, speaker: str) -> str:
    """A conversation turn stored as the eval and an import store it (no write path)."""
    memory = engine.materialise(MemoryDraft(content=content, speaker=speaker))
    engine.insert([memory])
    return memory.id


def test_a_query_naming_a_speaker_favours_what_they_said(engine: LocalEngine) -> None:
    carol = said(engine, "I planted tomatoes in the garden this spring", "Caroline Reyes")
    mel = said(engine, "I planted roses in the garden this spring", "Melanie")
    asked = engine.recall(
        RecallRequest(query="What did Caroline plant in the garden?", update_access=False)
    )
    by_id = {r.memory.id: r.breakdown for r in asked.results}
    # Named by her first name alone, as people are.
    assert by_id[carol].graph_speaker == "Caroline Reyes"
    assert by_id[carol].graph_hops == 1
    assert by_id[carol].signals["graph_proximity"].raw == 1.0
    assert by_id[carol].graph_note() == "said by Caroline Reyes, whom the query names"
    assert by_id[mel].graph_speaker is None
    assert by_id[mel].signals["graph_proximity"].raw == 0.0
    assert by_id[mel].graph_note() is None
    plain = engine.recall(
        RecallRequest(query="what was planted in the garden", update_access=False)
    )
    assert all(r.breakdown.graph_speaker is None for r in plain.results)


def test_what_a_named_speaker_said_competes_beyond_the_other_channels_lists(
    engine: LocalEngine,
) -> None:
    """With one dense candidate and no lexical channel, the named speaker's turn is still
    a candidate: the graph channel searches what they said."""
    for i in range(5):
        said(engine, f"deploy pipeline step {i} runs the deploy pipeline checks", "Nate")
    joanna = said(engine, "the pipeline failed once on a Friday", "Joanna")
    settings = engine.settings.model_copy(deep=True)
    settings.recall.dense_candidates = 1
    settings.recall.lexical_candidates = 0
    narrow = engine.with_settings(settings)
    response = narrow.recall(
        RecallRequest(query="what did Joanna say about the deploy pipeline", update_access=False)
    )
    found = {r.memory.id: r.breakdown for r in response.results}
    assert joanna in found
    assert found[joanna].channels["graph"] is not None and found[joanna].graph_speaker == "Joanna"
    settings.recall.graph_candidates = 0
    without = engine.with_settings(settings).recall(
        RecallRequest(query="what did Joanna say about the deploy pipeline", update_access=False)
    )
    assert joanna not in {r.memory.id for r in without.results}


def test_a_speaker_first_seen_after_recall_is_recognised(engine: LocalEngine) -> None:
    said(engine, "the harbor walk was lovely", "Tim")
    engine.recall(RecallRequest(query="what did Tim like", update_access=False))
    new = said(engine, "the harbor walk was too long", "Gina")
    response = engine.recall(RecallRequest(query="what did Gina think", update_access=False))
    by_id = {r.memory.id: r.breakdown for r in response.results}
    assert by_id[new].graph_speaker == "Gina"


def test_a_candidate_mentioning_a_named_entity_gets_its_proximity_from_any_channel(
    engine: LocalEngine,
) -> None:
    """The graph channel lists one memory (graph_candidates 1); the other that mentions
    Priya comes from the dense and lexical channels and is as near to her."""
    first = remember(engine, "Priya approves schema changes")
    second = remember(engine, "Priya reviews the release notes")
    t = NOW - timedelta(days=1)
    priya = Entity(name="Priya", created_at=t, memory_ids=[first, second])
    engine.insert_graph([priya], [])
    settings = engine.settings.model_copy(deep=True)
    settings.recall.graph_candidates = 1
    response = engine.with_settings(settings).recall(
        RecallRequest(query="what does Priya do", update_access=False)
    )
    by_id = {r.memory.id: r.breakdown for r in response.results}
    listed = [
        memory_id for memory_id in (first, second) if by_id[memory_id].channels["graph"] is not None
    ]
    assert len(listed) == 1
    for memory_id in (first, second):
        assert by_id[memory_id].graph_hops == 1
        assert by_id[memory_id].signals["graph_proximity"].raw == 1.0
        assert by_id[memory_id].graph_note() == "mentions an entity the query names"


def test_a_question_in_the_first_person_favours_what_the_user_said(engine: LocalEngine) -> None:
    """The asker's own turns are the facts about them: "I" names the user, as a name
    names a speaker, and the assistant's longer answer on the topic ranks below."""
    mine = said(engine, "I graduated with a degree in marine biology in 2019", "user")
    answer = said(
        engine,
        "A degree in marine biology opens paths in conservation, research and data work; "
        "many graduates also move into environmental consulting.",
        "assistant",
    )
    asked = engine.recall(
        RecallRequest(query="What degree did I graduate with?", update_access=False)
    )
    by_id = {r.memory.id: r.breakdown for r in asked.results}
    assert by_id[mine].graph_speaker == "user"
    assert by_id[mine].signals["graph_proximity"].raw == 1.0
    assert by_id[mine].signals["asker"].raw == 1.0
    assert by_id[answer].signals["asker"].raw == 0.0
    assert by_id[mine].graph_note() == "said by the user, whom a question in the first person names"
    assert by_id[answer].graph_speaker is None
    assert asked.results[0].memory.id == mine
    # A question in the third person names nobody; the setting turns the reading off.
    plain = engine.recall(
        RecallRequest(query="which degree in marine biology", update_access=False)
    )
    assert all(r.breakdown.graph_speaker is None for r in plain.results)
    off = engine.with_settings(
        engine.settings.model_copy(
            update={
                "recall": engine.settings.recall.model_copy(update={"first_person_speaker": False})
            }
        )
    )
    unread = off.recall(
        RecallRequest(query="What degree did I graduate with?", update_access=False)
    )
    assert all(r.breakdown.graph_speaker is None for r in unread.results)


def test_a_question_about_what_you_said_favours_the_assistant(engine: LocalEngine) -> None:
    """ "The sealant you recommended" asks for the agent's words, not the person's."""
    asked_for = said(engine, "Which sealant should I use on my recycled pallet table?", "user")
    advice = said(
        engine, "Use a water-based polyurethane sealant on the pallet table.", "assistant"
    )
    for question in (
        "Can you remind me which sealant you recommended for my pallet table?",
        "What sealant did you suggest for the pallet table I built?",
    ):
        asked = engine.recall(RecallRequest(query=question, update_access=False))
        by_id = {r.memory.id: r.breakdown for r in asked.results}
        assert by_id[advice].graph_speaker == "assistant", question
        assert by_id[advice].graph_note() == (
            "said by the assistant, whom a question about what you said names"
        )
        assert by_id[advice].signals["asker"].raw == 0.0
        assert by_id[advice].signals["graph_proximity"].raw == 1.0
        assert by_id[asked_for].graph_speaker is None, question
    # Asking for something new names nobody: "can you recommend" is not "you recommended".
    fresh = engine.recall(
        RecallRequest(query="Can you recommend a sealant for a table?", update_access=False)
    )
    assert {r.breakdown.graph_speaker for r in fresh.results} == {None}
