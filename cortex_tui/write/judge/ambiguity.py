"""Which of the offline judge's calls are close ones, worth a second opinion.

The rules read structure; the embeddings say how close two statements are in meaning. A
call is close when the two disagree, or when the call rests on a similarity threshold
the pair sits near:

- a softer verdict (an announced change with no value seen to change, a paraphrase, an
  elaboration) within `unsure_margin` of the threshold that settles it;
- "different claims" for two statements the embeddings put at least `restate_threshold`
  close (a paraphrase the rules failed to align, or an update in other words);
- "same claim, another value" for two statements the embeddings put below
  `restate_threshold` (two facts about different things that happen to align).

Repeats, restatements, announced updates and negations are never close: structure alone
decides them. `cortex-tui eval` on a pairs dataset reports how many pairs fall in the
band and how many of the rules' errors it holds (docs/measurements.md, "Close calls
sent to a second opinion").
"""

from __future__ import annotations

from cortex_tui.config import WritePathConfig
from cortex_tui.write.judge.contradiction import DIFFERENT_VALUE, PairCall


def close_call(judgement: PairCall, similarity: float, config: WritePathConfig) -> str | None:
    """Why the rules' `judgement` at this cosine is a close call; None when it is not."""
    margin = config.unsure_margin
    soft = {
        "change": ("change", config.change_threshold),
        "paraphrase": ("restate", config.restate_threshold),
        "elaboration": ("elaborate", config.elaborate_threshold),
        "reworded": ("elaborate", config.elaborate_threshold),
    }
    verdict = judgement.verdict
    if verdict in soft:
        name, threshold = soft[verdict]
        if abs(similarity - threshold) < margin:
            return (
                f"{verdict} at cosine {similarity:.2f}, within {margin:.2f} of the "
                f"{name} threshold {threshold:.2f}"
            )
        return None
    if verdict == "distinct" and similarity >= config.restate_threshold:
        return f"the rules find different claims, the embeddings a close pair ({similarity:.2f})"
    if (
        verdict == "contradiction"
        and judgement.reason.startswith(DIFFERENT_VALUE)
        and similarity < config.restate_threshold
    ):
        return f"another value for a claim the embeddings barely relate ({similarity:.2f})"
    return None
