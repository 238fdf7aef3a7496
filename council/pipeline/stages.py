"""The run's stages, declared in order, and the one loop that runs them.

Each stage is a function from the run's context and :class:`RunSoFar` to the
next :class:`RunSoFar`; none writes to the result, the store or the context
on the side. The loop (:func:`run_stages`) does that for all of them, after
each stage: it times it, writes its records and degraded reasons into the
result, queues the store writes it started, saves the run at the stage's
checkpoint, and ends the run when a stage says it must stop. Adding a stage
(a cache lookup, a second review round) is adding one entry to
:data:`RUN_STAGES`, saying when a run has it (``runs_when``) and what the
run keeps if it crashes (``on_crash``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Literal

from council.pipeline.answer import answers_stage, quorum_stage
from council.pipeline.context import RunContext, timed
from council.pipeline.council_reading import council_reading_stage, reads
from council.pipeline.deliberation import (
    deliberation_stage,
    first_round_stands,
    revision_stage,
    second_ranking_stage,
    second_review_stage,
)
from council.pipeline.persist import queue_save
from council.pipeline.progress import RunSoFar
from council.pipeline.rank_stage import ranking_stage
from council.pipeline.review_stage import review_stage
from council.pipeline.safety_stage import safety_stage
from council.pipeline.synthesize import final_stage
from council.pipeline.verdicts import rubric_scores_stage
from council.storage.run_records import Stage as Checkpoint

#: Where a stage's time is added up in the result's ``timings`` (several stages may share one).
TimingField = Literal["answers_ms", "safety_ms", "review_ms", "aggregate_ms", "deliberation_ms", "final_ms"]


@dataclass(frozen=True)
class RunStage:
    """One step of the run: its name, what it does, where its time is counted, and the save after it."""

    name: str
    run: Callable[[RunContext, RunSoFar], Awaitable[RunSoFar]]
    timing: TimingField | None = None
    #: The run is saved after this stage, as this stage of its record (None: not saved here).
    checkpoint: Checkpoint | None = None
    #: Whether a run has this stage, given what it has so far (None: every run has it); a run without it is
    #: as if it were not listed.
    runs_when: Callable[[RunContext, RunSoFar], bool] | None = None
    #: What the run keeps when this stage crashes (None: the crash ends the run as failed).
    on_crash: Callable[[RunContext, RunSoFar, Exception], RunSoFar] | None = None


def _two_rounds(ctx: RunContext, _so_far: RunSoFar) -> bool:
    return ctx.plan.rounds > 1


def _second_round_pending(_ctx: RunContext, so_far: RunSoFar) -> bool:
    return so_far.second_round is not None


RUN_STAGES: tuple[RunStage, ...] = (
    RunStage("answers", answers_stage, timing="answers_ms"),
    RunStage("safety", safety_stage, timing="safety_ms", checkpoint="answers"),
    RunStage("quorum", quorum_stage),
    RunStage("rubric_scores", rubric_scores_stage, timing="review_ms"),
    RunStage("review", review_stage, timing="review_ms"),
    # The council's own reading of what it reviewed: blocks and flags before anything ranks or sees the answers.
    RunStage("council_reading", council_reading_stage, timing="safety_ms", runs_when=reads),
    RunStage("ranking", ranking_stage, timing="aggregate_ms", checkpoint="ranking"),
    # The second round (review.rounds: 2): the decision, then, when the first ranking is unsure, the round itself.
    # Saved after the decision too: a run kept to one round stores why there.
    RunStage("deliberation", deliberation_stage, timing="deliberation_ms", checkpoint="deliberation",
             runs_when=_two_rounds, on_crash=first_round_stands),
    RunStage("revisions", revision_stage, timing="deliberation_ms", runs_when=_second_round_pending,
             on_crash=first_round_stands),
    RunStage("second_review", second_review_stage, timing="deliberation_ms", runs_when=_second_round_pending,
             on_crash=first_round_stands),
    RunStage("second_ranking", second_ranking_stage, timing="deliberation_ms", checkpoint="deliberation",
             runs_when=_second_round_pending, on_crash=first_round_stands),
    RunStage("final", final_stage, timing="final_ms"),
)


async def run_stages(ctx: RunContext, stages: Sequence[RunStage] = RUN_STAGES,
                     so_far: RunSoFar | None = None) -> RunSoFar:
    """Run ``stages`` in order from ``so_far`` (a new run by default); the last :class:`RunSoFar`.

    Its ``stop`` says why the run ended early, if it did. The run's result
    holds each stage's records as soon as the stage ends, so a run
    interrupted or crashed midway keeps what it reached.
    """
    so_far = so_far or RunSoFar()
    for stage in stages:
        if stage.runs_when is not None and not stage.runs_when(ctx, so_far):
            continue
        with timed(ctx.result.timings, stage.timing) if stage.timing else nullcontext():
            try:
                so_far = await stage.run(ctx, so_far)
            except Exception as error:
                if stage.on_crash is None:
                    raise
                so_far = stage.on_crash(ctx, so_far, error)
        so_far.record_into(ctx.result)
        ctx.queued_writes.extend(so_far.writes)
        ctx.late_calls.extend(so_far.late)
        if stage.checkpoint is not None:
            queue_save(ctx, ctx.store, stage.checkpoint)
        if so_far.stop is not None:
            break
    return so_far
