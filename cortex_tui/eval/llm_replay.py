"""Replayed LLM answers for the pairs eval: what routing close calls to an LLM can do.

No model is reachable from where this project is measured, so `eval --llm-replay` puts
the real `anthropic` SDK (the client a user configures) over an `httpx2.MockTransport`
that answers the judge's tool call from the dataset itself:

- **oracle**: every answer is the pair's own label: the ceiling of sending the close
  calls to an LLM (all the rules' errors inside the band fixed, none outside);
- **contrary**: every answer is wrong (a duplicate or a paraphrase called new, an update
  called a contradiction and back, a new fact called a paraphrase): the floor, what a
  useless LLM could cost.

The truth lies between, and depends on the model; the report labels these runs as
replays, never as a model's figures.
"""

from __future__ import annotations

import html
import json
import re
from typing import TYPE_CHECKING, Literal

from cortex_tui.eval.pairs_dataset import PairsDataset
from cortex_tui.models import WriteLabel
from cortex_tui.write.judge.llm_judge import JUDGE_TOOL, JudgeLabel

if TYPE_CHECKING:
    import httpx2

    from cortex_tui.llm.anthropic_client import AnthropicClient

ReplayMode = Literal["oracle", "contrary"]
REPLAY_MODES: tuple[ReplayMode, ...] = ("oracle", "contrary")
WRONG: dict[WriteLabel, JudgeLabel] = {
    "duplicate": "new",
    "reinforce": "new",
    "update": "contradiction",
    "contradiction": "update",
    "new": "reinforce",
}
_STATEMENT = re.compile(r"<(existing|new)>\n(.*?)\n</\1>", re.DOTALL)


def replay_client(dataset: PairsDataset, mode: ReplayMode) -> AnthropicClient:
    """A Claude client whose every judge call is answered from `dataset`'s labels."""
    import httpx2

    from cortex_tui.llm.anthropic_client import AnthropicClient

    labels = {(pair.old, pair.new): pair.label for pair in dataset.pairs}

    def answer(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        found = dict(_STATEMENT.findall(body["messages"][0]["content"]))
        key = (html.unescape(found.get("existing", "")), html.unescape(found.get("new", "")))
        truth = labels.get(key)
        if truth is None:  # a statement compared with a pair it does not belong to
            label: JudgeLabel = "new"
        else:
            label = truth if mode == "oracle" else WRONG[truth]
        call = {
            "type": "tool_use",
            "id": "toolu_replay",
            "name": JUDGE_TOOL.name,
            "input": {"label": label, "reason": f"replayed ({mode}): {label}"},
        }
        return httpx2.Response(
            200,
            json={
                "id": "msg_replay",
                "type": "message",
                "role": "assistant",
                "model": "replay",
                "content": [call],
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": {"input_tokens": 0, "output_tokens": 0},
            },
        )

    return AnthropicClient(
        api_key="replay",
        model=f"{mode}-replay",
        retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(answer)),
    )
