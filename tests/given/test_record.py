"""A given record says exactly what the block gave: each memory line matched to the
result (or standing rule) it shows, and each ranked result the budget had no room for
left out, never given."""

from __future__ import annotations

from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.standing import standing_block
from cortex_tui.format import line_memory_id
from cortex_tui.given.record import Asker, Given, build_record
from cortex_tui.models import MemoryDraft, MemoryType
from cortex_tui.recall.request import RecallRequest

FACTS = [
    "The deploy pipeline for atlas runs on Fridays after the standup",
    "Atlas deploys need a green staging run before production",
    "The atlas staging cluster lives in eu-west-1",
    "Atlas release notes are written by the on-call engineer",
]


def _asker(query: str, max_chars: int | None = None) -> Asker:
    return Asker(agent="claude", trigger="prompt", session="s-1", query=query, max_chars=max_chars)


def test_the_lines_given_are_the_memories_recorded_and_the_rest_left_out(
    engine: LocalEngine,
) -> None:
    for fact in FACTS:
        engine.remember(MemoryDraft(content=fact))
    request = RecallRequest(query="how do atlas deploys work", max_chars=260, update_access=False)
    response = engine.recall(request)
    shown = [line_memory_id(line) for line in response.context.split("\n")]
    shown_ids = [short for short in shown if short]
    assert 0 < len(shown_ids) < len(response.results), "the cap must leave some out"

    given = Given(response.context, recalled=response.results)
    record = build_record(_asker(request.query, 260), engine.now(), given, 2000)

    assert [memory.short_id for memory in record.given] == shown_ids
    by_id = {result.memory.id: result for result in response.results}
    for memory in record.given:
        result = by_id[memory.id]
        assert memory.block == "recalled"
        assert (memory.rank, memory.score, memory.breakdown) == (
            result.rank,
            result.score,
            result.breakdown,
        )
        assert result.memory.content in record.line_of(memory)
    left = {memory.id for memory in record.left_out}
    assert left == set(by_id) - {memory.id for memory in record.given}
    for memory in record.left_out:
        assert memory.text == by_id[memory.id].memory.content[: len(memory.text)]
        assert memory.chars > 0
    assert record.context == response.context
    assert record.used_tokens > 0 and record.max_chars == 260


def test_standing_rules_are_recorded_as_standing_and_not_as_left_out(engine: LocalEngine) -> None:
    rule = engine.remember(
        MemoryDraft(content="Always run the atlas deploy checklist", type=MemoryType.RULE)
    ).memory
    engine.remember(MemoryDraft(content=FACTS[0]))
    standing = standing_block(engine, None, 400, 4000)
    assert standing.memories == [rule]
    response = engine.recall(RecallRequest(query="atlas deploy", update_access=False))
    assert rule.id in {result.memory.id for result in response.results}
    # The hook gives a memory once: in the standing block when it is there.
    recalled = "\n".join(
        line for line in response.context.split("\n") if line_memory_id(line) != rule.short_id
    )
    given = Given(f"{standing.text}\n{recalled}", standing.memories, response.results)

    record = build_record(_asker("atlas deploy"), engine.now(), given, 2000)

    blocks = {memory.id: memory.block for memory in record.given}
    assert blocks[rule.id] == "standing"
    assert {block for memory_id, block in blocks.items() if memory_id != rule.id} == {"recalled"}
    standing_entry = next(memory for memory in record.given if memory.id == rule.id)
    assert standing_entry.breakdown is None and standing_entry.rank is None
    assert rule.id not in {memory.id for memory in record.left_out}


def test_the_prompt_is_kept_to_its_start(engine: LocalEngine) -> None:
    long_prompt = "why " * 200
    record = build_record(_asker(long_prompt), engine.now(), Given(), 2000)
    assert len(record.prompt) == 200 and long_prompt.startswith(record.prompt)
    assert record.given == [] and record.left_out == [] and record.used_tokens == 0
