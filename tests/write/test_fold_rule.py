"""A fold is the last resort: two statements that fill one slot differently — a value,
a negation, a modality, a scope, a polarity — are never folded into one memory, whoever
proposes the fold (the rules, a pair model, an LLM) and however close the embeddings put
them. Pairs are generated: one slot of each kind changed, in several phrasings."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cortex_tui.config import WritePathConfig
from cortex_tui.llm.anthropic_client import AnthropicClient
from cortex_tui.models import RULES_JUDGE
from cortex_tui.write.judge.contradiction import FOLDS, PairCall, judge_offline
from cortex_tui.write.judge.decision import WriteJudge
from cortex_tui.write.judge.slots import differing_slot
from cortex_tui.write.judge.statement import read
from tests.llm.conftest import Script
from tests.llm.test_anthropic_judge import tool_answer
from tests.write.test_write_judge import claude

Pair = tuple[str, str]
Draw = Callable[..., object]

THINGS = ["billing service", "search index", "deploy pipeline", "audit log", "mobile app"]
PEOPLE = ["Priya", "Marco", "Lena", "Jonas", "Aiko", "Tomás"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
UNITS = ["seconds", "minutes", "hours", "days"]


def _two(draw: Draw, values: list[str]) -> tuple[str, str]:
    first = draw(st.sampled_from(values))
    second = draw(st.sampled_from([v for v in values if v != first]))
    return first, second


@st.composite
def value_pairs(draw: Draw) -> Pair:
    thing = draw(st.sampled_from(THINGS))
    kind = draw(st.sampled_from(["number", "unit", "clock", "day", "date", "name"]))
    if kind == "number":
        n, m = _two(draw, ["7", "14", "30", "90", "365"])
        template = draw(
            st.sampled_from(
                [
                    "The {t} keeps its logs for {v} days.",
                    "Logs of the {t} are retained {v} days.",
                    "We retain {t} logs for {v} days.",
                ]
            )
        )
        return template.format(t=thing, v=n), template.format(t=thing, v=m)
    if kind == "unit":
        u, w = _two(draw, UNITS)
        template = "The {t} times out after 30 {v}."
        return template.format(t=thing, v=u), template.format(t=thing, v=w)
    if kind == "clock":
        h, k = _two(draw, ["8", "9", "10", "11"])
        template = draw(st.sampled_from(["The {t} standup is at {v} am.", "We meet at {v}:00."]))
        return template.format(t=thing, v=h), template.format(t=thing, v=k)
    if kind == "day":
        d, e = _two(draw, DAYS)
        template = draw(
            st.sampled_from(["The {t} deploys on {v}s.", "Releases of the {t} go out on {v}."])
        )
        return template.format(t=thing, v=d), template.format(t=thing, v=e)
    if kind == "date":
        d, e = _two(draw, ["03", "10", "17", "24"])
        template = "The {t} launch is on 2027-05-{v}."
        return template.format(t=thing, v=d), template.format(t=thing, v=e)
    p, q = _two(draw, PEOPLE)
    template = draw(
        st.sampled_from(
            ["{v} owns the {t}.", "The {t} is maintained by {v}.", "Ask {v} about the {t}."]
        )
    )
    return template.format(t=thing, v=p), template.format(t=thing, v=q)


@st.composite
def negation_pairs(draw: Draw) -> Pair:
    thing = draw(st.sampled_from(THINGS))
    affirmed, denied = draw(
        st.sampled_from(
            [
                ("We deploy the {t} on Fridays.", "We do not deploy the {t} on Fridays."),
                ("We deploy the {t} on Fridays.", "We never deploy the {t} on Fridays."),
                ("The {t} is on the critical path.", "The {t} isn't on the critical path."),
                ("I like tabs in the {t} code.", "I don't like tabs in the {t} code."),
                ("The {t} uses Redis for caching.", "The {t} no longer uses Redis for caching."),
                ("Tests for the {t} run in CI.", "Tests for the {t} can't run in CI."),
            ]
        )
    )
    return affirmed.format(t=thing), denied.format(t=thing)


@st.composite
def modality_pairs(draw: Draw) -> Pair:
    thing = draw(st.sampled_from(THINGS))
    one, other = draw(
        st.sampled_from(
            [
                ("must", "may"),
                ("must", "should"),
                ("should", "may"),
                ("have to", "are allowed to"),
                ("must", "can"),
                ("should", "can"),
                ("", "may"),
                ("", "might"),
            ]
        )
    )
    template = draw(
        st.sampled_from(
            [
                "Contributors to the {t} {m} sign the CLA before merging.",
                "Reviewers {m} approve schema changes in the {t}.",
                "You {m} run the linter on the {t} before pushing.",
            ]
        )
    )

    def say(modal: str) -> str:
        return " ".join(template.format(t=thing, m=modal).split())

    return say(one), say(other)


@st.composite
def frequency_pairs(draw: Draw) -> Pair:
    thing = draw(st.sampled_from(THINGS))
    one, other = draw(
        st.sampled_from([("always", "sometimes"), ("always", "rarely"), ("usually", "rarely")])
    )
    template = draw(
        st.sampled_from(
            ["I {f} run the full suite of the {t} before a release.", "The {t} {f} pages on-call."]
        )
    )
    return template.format(t=thing, f=one), template.format(t=thing, f=other)


@st.composite
def scope_pairs(draw: Draw) -> Pair:
    thing = draw(st.sampled_from(THINGS))
    only, open_ = draw(
        st.sampled_from(
            [
                ("Only admins can delete the {t}.", "Admins can delete the {t}."),
                ("We deploy the {t} only on Tuesdays.", "We deploy the {t} on Tuesdays."),
                ("The {t} is used solely by the data team.", "The {t} is used by the data team."),
            ]
        )
    )
    return only.format(t=thing), open_.format(t=thing)


@st.composite
def polarity_pairs(draw: Draw) -> Pair:
    thing = draw(st.sampled_from(THINGS))
    one, other = draw(
        st.sampled_from(
            [
                (
                    "Enable the cache of the {t} in staging.",
                    "Disable the cache of the {t} in staging.",
                ),
                (
                    "Force pushes to the {t} repo are allowed.",
                    "Force pushes to the {t} repo are denied.",
                ),
                ("Add the lint step to the {t} CI.", "Remove the lint step from the {t} CI."),
                ("The {t} is stateless.", "The {t} is stateful."),
                ("Python 3.9 is supported by the {t}.", "Python 3.9 is unsupported by the {t}."),
                ("The {t} endpoint is public.", "The {t} endpoint is private."),
                ("The {t} runs its tests in parallel.", "The {t} runs its tests sequentially."),
                (
                    "Include the {t} in the release notes.",
                    "Exclude the {t} from the release notes.",
                ),
                ("Aiko is the eldest on the {t} team.", "Aiko is the youngest on the {t} team."),
                ("The {t} team won the final.", "The {t} team lost the final."),
            ]
        )
    )
    return one.format(t=thing), other.format(t=thing)


DIFFERENT_CLAIMS = st.one_of(
    value_pairs(),
    negation_pairs(),
    modality_pairs(),
    frequency_pairs(),
    scope_pairs(),
    polarity_pairs(),
)


@st.composite
def dressed(draw: Draw, pairs: st.SearchStrategy[Pair]) -> Pair:
    """The pair in either order, with the small variations of real statements."""
    old, new = draw(pairs)
    if draw(st.booleans()):
        old, new = new, old
    if draw(st.booleans()):
        new = new.rstrip(".")
    if draw(st.booleans()):
        old = old.lower()
    return old, new


def _folds_everything(old: str, new: str) -> PairCall:
    return PairCall("repeat", "a reckless rule that calls everything the same words")


@settings(max_examples=400, deadline=None)
@given(dressed(DIFFERENT_CLAIMS), st.floats(min_value=0.45, max_value=1.0))
def test_a_pair_that_differs_in_one_slot_is_never_folded(pair: Pair, similarity: float) -> None:
    old, new = pair
    assert differing_slot(read(old), read(new)) is not None
    for rules in (judge_offline, _folds_everything):
        judge = WriteJudge(WritePathConfig(), rules=rules)
        ruling = judge.rule(old, new, similarity, judge.budget())
        assert ruling.call.verdict not in FOLDS, (old, new, ruling)


@settings(max_examples=200, deadline=None)
@given(dressed(DIFFERENT_CLAIMS))
def test_every_generated_pair_names_the_slot_that_differs(pair: Pair) -> None:
    old, new = pair
    judge = WriteJudge(WritePathConfig(), rules=_folds_everything)
    reason = judge.rule(old, new, 0.99, judge.budget()).call.reason
    assert "differs:" in reason


@pytest.mark.parametrize(
    ("template", "word", "name"),
    [
        ("The novel is based on a {v} story.", "science-fiction", "Southern Gothic"),
        ("The mirror runs on {v} hardware.", "rented", "Hetzner"),
        ("The platform team reports to the {v} lead.", "product", "Lena Park"),
    ],
)
def test_a_name_put_where_words_stood_is_never_folded(template: str, word: str, name: str) -> None:
    plain, named = template.format(v=word), template.format(v=name)
    for old, new in ((plain, named), (named, plain)):
        judge = WriteJudge(WritePathConfig(), rules=_folds_everything)
        ruling = judge.rule(old, new, 0.99, judge.budget())
        assert ruling.call.verdict not in FOLDS, ruling
        assert "value differs" in ruling.call.reason


def test_the_same_words_in_another_order_are_not_a_repeat() -> None:
    for old, new in [
        ("We use Postgres, not MySQL.", "We use MySQL, not Postgres."),
        ("I prefer tabs over spaces.", "I prefer spaces over tabs."),
    ]:
        judge = WriteJudge(WritePathConfig())
        assert judge.rule(old, new, 0.99, judge.budget()).call.verdict == "contradiction"


def test_the_same_claim_in_other_forms_still_folds() -> None:
    """The guard holds back only what differs: contractions, modal synonyms, a plain
    claim beside its "always" or "must", and an elaboration still fold."""
    same = [
        ("Raj isn't on the hiring panel.", "Raj is not on the hiring panel."),
        ("Contributors must sign the CLA.", "Contributors have to sign the CLA."),
        ("Use tabs for indentation.", "Always use tabs for indentation."),
        ("Run the linter before pushing.", "You must run the linter before pushing."),
        ("The DNS is hosted in AWS.", "The DNS is hosted in AWS Route 53."),
        ("The API is private.", "The API is not public."),
        ("Use TypeScript, not JavaScript.", "Use TypeScript rather than JavaScript."),
        ("Explain the why, not just the what.", "Explain the why not just the what."),
        ("Admins can delete projects.", "Admins may delete projects."),
    ]
    judge = WriteJudge(WritePathConfig(), rules=_folds_everything)
    for old, new in same:
        assert differing_slot(read(old), read(new)) is None, (old, new)
        assert judge.rule(old, new, 0.99, judge.budget()).call.verdict == "repeat"


def _claude_says(label: str) -> AnthropicClient:
    return claude(Script([(200, tool_answer({"label": label, "reason": "The same rule."}))]))


def test_an_llm_that_would_fold_two_claims_is_overruled() -> None:
    """A close call goes to the LLM; its "duplicate" would lose the permission the new
    statement grants, so the rules keep the two apart and say who wanted the fold."""
    config = WritePathConfig()
    judge = WriteJudge(
        config,
        llm=_claude_says("duplicate"),
        rules=lambda old, new: PairCall("paraphrase", "the same values in other words"),
    )
    old = "Contributors must sign the CLA before merging."
    new = "Contributors may sign the CLA before merging."
    ruling = judge.rule(old, new, config.restate_threshold + 0.01, judge.budget())
    assert ruling.call.verdict == "contradiction"
    assert ruling.judge == RULES_JUDGE and ruling.close_call is not None
    assert ruling.call.reason == (
        "modality differs: required → permitted, so not folded; "
        "anthropic:claude-haiku-5-5 would fold it"
    )


def test_an_llm_fold_of_the_same_claim_stands() -> None:
    config = WritePathConfig()
    judge = WriteJudge(
        config,
        llm=_claude_says("reinforce"),
        rules=lambda old, new: PairCall("paraphrase", "the same values in other words"),
    )
    old, new = "Contributors must sign the CLA.", "Every contributor has to sign the CLA."
    ruling = judge.rule(old, new, config.restate_threshold + 0.01, judge.budget())
    assert ruling.call.verdict == "restatement" and ruling.judge != RULES_JUDGE
