"""Entity resolution order: exact → alias → fuzzy → name vector → LLM judge → new."""

from __future__ import annotations

import pytest

from cortex_tui.config import GraphConfig
from cortex_tui.engine.local import LocalEngine
from cortex_tui.graph.resolve import EntityJudge, EntityResolver, MatchRule, Resolution
from cortex_tui.models import CandidateEntity, Entity, EntityType
from tests.conftest import NOW

PERSON, TOOL, PLACE, SYSTEM, OTHER = (
    EntityType.PERSON,
    EntityType.TOOL,
    EntityType.PLACE,
    EntityType.SYSTEM,
    EntityType.OTHER,
)


def seed(engine: LocalEngine, *entities: tuple[str, EntityType, list[str]]) -> list[Entity]:
    made = [Entity(name=n, type=t, aliases=a, created_at=NOW) for n, t, a in entities]
    engine.insert_graph(made, [])
    return made


def resolve(
    engine: LocalEngine,
    name: str,
    type: EntityType = OTHER,
    config: GraphConfig | None = None,
    judge: EntityJudge | None = None,
) -> Resolution:
    resolver = EntityResolver(
        engine.store.all_entities(),
        engine.store,
        engine.embedder,
        config or engine.settings.graph,
        judge,
    )
    return resolver.resolve(CandidateEntity(name=name, type=type))


def test_exact_normalised_name_wins_whatever_the_type(engine: LocalEngine) -> None:
    priya, _ = seed(engine, ("Priya Raman", PERSON, []), ("Priya", TOOL, ["priya raman"]))
    for spelling in ("Priya Raman", "  priya   RAMAN!", "priya-raman"):
        r = resolve(engine, spelling, PERSON)
        assert (r.rule, r.entity) == (MatchRule.EXACT, priya)
    # A name is a key: a candidate typed differently still gets the named entity.
    assert resolve(engine, "Priya Raman", PLACE).entity == priya


def test_alias_match_after_names(engine: LocalEngine) -> None:
    (pg,) = seed(engine, ("PostgreSQL", SYSTEM, ["pg", "Postgres 16"]))
    r = resolve(engine, "PG", TOOL)
    assert (r.rule, r.entity) == (MatchRule.ALIAS, pg)
    assert resolve(engine, "postgres-16").rule is MatchRule.ALIAS


def test_fuzzy_needs_the_same_type_unless_one_is_other(engine: LocalEngine) -> None:
    (k8s,) = seed(engine, ("Kubernetes cluster", SYSTEM, []))
    same = resolve(engine, "kubernetes clusters", SYSTEM)
    assert (same.rule, same.entity) == (MatchRule.FUZZY, k8s)
    assert same.score is not None and same.score >= engine.settings.graph.fuzzy_threshold
    assert resolve(engine, "kubernetes clusters", OTHER).rule is MatchRule.FUZZY
    assert resolve(engine, "kubernetes clusters", PERSON).rule is MatchRule.NEW


def test_fuzzy_prefers_the_closest_spelling_among_subset_ties(engine: LocalEngine) -> None:
    _, api = seed(engine, ("Atlas", SYSTEM, []), ("Atlas API", SYSTEM, []))
    # token-set ratio is 100 against both ("atlas" is a subset of each); ratio decides.
    assert resolve(engine, "the Atlas API", SYSTEM).entity == api


def test_containment_needs_a_shared_part_of_some_length(engine: LocalEngine) -> None:
    priya, _ = seed(engine, ("Priya Raman", PERSON, []), ("Atlas API", SYSTEM, []))
    assert resolve(engine, "Priya", PERSON).entity == priya
    assert resolve(engine, "API", SYSTEM).rule is MatchRule.NEW


def test_names_with_different_numbers_never_match_on_similarity(engine: LocalEngine) -> None:
    seed(engine, ("Python 3.11", TOOL, []))
    loose = GraphConfig(fuzzy_threshold=50, vector_threshold=0.1)
    assert resolve(engine, "Python 3.12", TOOL, loose).rule is MatchRule.NEW
    assert resolve(engine, "Python", TOOL, loose).rule is MatchRule.FUZZY


def test_vector_cosine_with_the_same_type_rule(engine: LocalEngine) -> None:
    """Fuzzy is pushed out of reach, so only the stored name vectors can match."""
    (k8s,) = seed(engine, ("Kubernetes cluster", SYSTEM, []))
    config = GraphConfig(fuzzy_threshold=99.5, vector_threshold=0.7)
    hit = resolve(engine, "kubernetes clusters", SYSTEM, config)
    assert (hit.rule, hit.entity) == (MatchRule.VECTOR, k8s)
    assert hit.score is not None and 0.7 <= hit.score < 1.0
    assert resolve(engine, "kubernetes clusters", PERSON, config).rule is MatchRule.NEW
    strict = GraphConfig(fuzzy_threshold=99.5, vector_threshold=0.95)
    assert resolve(engine, "kubernetes clusters", SYSTEM, strict).rule is MatchRule.NEW


def test_llm_judge_is_last_and_sees_a_compatible_shortlist(engine: LocalEngine) -> None:
    vault, _ = seed(engine, ("HashiCorp Vault", SYSTEM, []), ("Vault Street", PLACE, []))
    asked: list[tuple[str, list[str]]] = []

    def judge(name: str, shortlist: list[Entity]) -> str | None:
        asked.append((name, [e.name for e in shortlist]))
        return vault.id

    r = resolve(engine, "secrets store", SYSTEM, judge=judge)
    assert (r.rule, r.entity) == (MatchRule.LLM, vault)
    assert asked and "Vault Street" not in asked[0][1]
    asked.clear()
    assert resolve(engine, "HashiCorp Vault", SYSTEM, judge=judge).rule is MatchRule.EXACT
    assert asked == []


def test_llm_judge_may_answer_a_name_or_decline(engine: LocalEngine) -> None:
    (vault,) = seed(engine, ("HashiCorp Vault", SYSTEM, []))
    by_name = resolve(engine, "secrets store", SYSTEM, judge=lambda _n, _s: "hashicorp vault")
    assert by_name.entity == vault
    assert resolve(engine, "secrets store", SYSTEM, judge=lambda _n, _s: None).rule is (
        MatchRule.NEW
    )
    # An answer outside the shortlist is not trusted.
    assert resolve(engine, "secrets store", SYSTEM, judge=lambda _n, _s: "nope").entity is None


def test_empty_store_makes_everything_new(engine: LocalEngine) -> None:
    r = resolve(engine, "Atlas")
    assert r == Resolution(MatchRule.NEW)


@pytest.mark.slow
def test_real_model_matches_spellings_by_meaning(onnx_engine: LocalEngine) -> None:
    """MiniLM puts "PostgreSQL DB" next to "Postgres database" (cosine ≈ 0.95) although
    their token-set ratio is only ≈ 73; "MySQL" stays a different system."""
    postgres, nyc = seed(
        onnx_engine, ("Postgres database", SYSTEM, []), ("New York City", PLACE, [])
    )
    r = resolve(onnx_engine, "PostgreSQL DB", SYSTEM)
    assert (r.rule, r.entity) == (MatchRule.VECTOR, postgres)
    assert resolve(onnx_engine, "NYC", PLACE).entity == nyc
    assert resolve(onnx_engine, "MySQL", SYSTEM).rule is MatchRule.NEW
    assert resolve(onnx_engine, "NYC", PERSON).rule is MatchRule.NEW


@pytest.mark.slow
def test_real_model_postgres_vs_postgresql(onnx_engine: LocalEngine) -> None:
    """The pair sits at cosine ≈ 0.898 and token-set ratio ≈ 88.9: under the fuzzy
    threshold but over the default vector threshold (0.87), so the name vector links them;
    a stricter threshold keeps them apart."""
    (pg,) = seed(onnx_engine, ("PostgreSQL", SYSTEM, []))
    r = resolve(onnx_engine, "Postgres", SYSTEM)
    assert (r.rule, r.entity) == (MatchRule.VECTOR, pg)
    strict = GraphConfig(vector_threshold=0.95)
    assert resolve(onnx_engine, "Postgres", SYSTEM, strict).rule is MatchRule.NEW
