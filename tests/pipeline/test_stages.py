"""The declared stage list and the loop that runs it: records, reasons, stops and saves, all done by the loop."""

from __future__ import annotations

import dataclasses

import pytest

from council.pipeline.context import RunContext
from council.pipeline.persist import queue_save
from council.pipeline.progress import RunSoFar
from council.pipeline.stages import RUN_STAGES, RunStage, run_stages
from council.storage import Store
from tests.pipeline.stages import context, member

MEMBERS = {"a": member("a: quality=9"), "b": member("b: quality=5"), "c": member("c: quality=2")}


def names(stages: tuple[RunStage, ...] | list[RunStage]) -> list[str]:
    return [stage.name for stage in stages]


async def test_the_declared_stages_make_a_whole_run():
    ctx, events = context(MEMBERS)
    so_far = await run_stages(ctx)
    result = ctx.result
    assert so_far.stop is None
    assert [a.member for a in result.answers] == ["a", "b", "c"]
    assert len(result.reviews) == 3 and all(r.status == "ok" for r in result.reviews)
    assert [e.member for e in result.ranking] == ["a", "b", "c"], "ranked by the quality the reviewers saw"
    assert (result.final_answer.by, result.status) == ("a", "complete")
    assert result.timings.answers_ms > 0 and result.timings.review_ms > 0
    assert [e.data["stage"] for e in events if e.kind == "stage_started"] == ["answers", "review", "final"]


async def test_adding_a_stage_is_one_entry_and_its_stop_ends_the_run():
    seen: list[str] = []

    async def cache_lookup(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
        seen.append("cache")
        return so_far.then(degraded=("served from the cache",), stop="answered from the cache")

    async def never(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
        seen.append("after the stop")
        return so_far

    stages = [*RUN_STAGES[:2], RunStage("cache", cache_lookup), RunStage("never", never), *RUN_STAGES[2:]]
    ctx, _ = context(MEMBERS)
    so_far = await run_stages(ctx, stages)
    assert so_far.stop == "answered from the cache"
    assert seen == ["cache"], "no stage runs after one that stops the run"
    assert ctx.result.degraded_reasons == ["served from the cache"]
    assert len(ctx.result.answers) == 3 and ctx.result.reviews == [] and ctx.result.ranking == []


async def test_the_quorum_stage_stops_a_run_with_too_few_answers():
    def down(_messages):
        raise ConnectionError("member down")

    ctx, _ = context({"a": member("a: quality=9"), "b": down, "c": down}, stages={"quorum": 2, "stage_deadline_s": 5})
    so_far = await run_stages(ctx)
    assert so_far.stop == "quorum not met: 1 of 3 members answered, 2 needed"
    assert ctx.result.degraded_reasons[0].startswith("members failed: b (")
    assert ctx.result.reviews == [] and ctx.result.final_answer is None


async def test_a_stage_cannot_change_what_it_was_given():
    async def meddler(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
        so_far.answers = ()  # type: ignore[misc]
        return so_far

    ctx, _ = context(MEMBERS)
    with pytest.raises(dataclasses.FrozenInstanceError):
        await run_stages(ctx, [*RUN_STAGES[:1], RunStage("meddler", meddler)])


async def test_each_reason_a_stage_gives_is_recorded_once_and_only_for_that_step():
    async def warn(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
        return so_far.then(degraded=("first", None, "first"))

    async def quiet(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
        return so_far.then()

    ctx, _ = context(MEMBERS)
    so_far = await run_stages(ctx, [RunStage("warn", warn), RunStage("quiet", quiet)])
    assert ctx.result.degraded_reasons == ["first"] and so_far.degraded == ()


async def test_checkpoints_save_the_run_as_each_stage_ends(tmp_path):
    store = Store(str(tmp_path / "runs.sqlite"))
    try:
        ctx, _ = context(MEMBERS)
        ctx.store = store
        queue_save(ctx, store, "started")  # as the run does before its stages
        await run_stages(ctx, [stage for stage in RUN_STAGES if stage.name in ("answers", "safety")])
        for write, _loss in ctx.queued_writes:
            await write
        stored = store.get(ctx.result.run_id)
        assert stored is not None
        assert [a.member for a in stored.answers] == ["a", "b", "c"]
        assert stored.ranking == [], "the ranking stage did not run: nothing of it is stored"
    finally:
        store.close()


def test_the_stage_list_reads_in_run_order():
    second_round = ["deliberation", "revisions", "second_review", "second_ranking"]
    assert names(RUN_STAGES) == ["answers", "safety", "quorum", "rubric_scores", "review", "council_reading",
                                 "ranking", *second_round, "final"]
    assert [s.checkpoint for s in RUN_STAGES if s.checkpoint] == ["answers", "ranking", "deliberation", "deliberation"]
    assert [s.name for s in RUN_STAGES if s.runs_when is not None] == ["council_reading", *second_round], \
        "only safety.council_review has the reading, only review.rounds: 2 the second round"
    assert [s.name for s in RUN_STAGES if s.on_crash is not None] == second_round, "a crash there costs the round"
