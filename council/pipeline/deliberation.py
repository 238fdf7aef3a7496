"""Deliberation (``review.rounds: 2``): a second round when the first ranking is unsure.

After the first ranking, the round runs only when it may help: the
ranking's confidence in its top answer is below ``review.deliberate_below``,
or another answer is tied with the top. Then every surviving member reads
the anonymous critiques and revises its answer or keeps it
(:mod:`.revisions`), the revised answers pass the safety gate again, and
the reviewers score the new set as in the first round (a new shuffle, the
same sandbox and parser). The second ranking is the run's, and the chairman
writes from it; the first round is kept in the result's ``deliberation``,
with who revised, how each answer moved, agreement and confidence before
and after, and what the round cost. A round that does not fit the run's
budget is skipped, saying so. The reviewers' calibration history counts
each reviewer once per run: the second round reads it and adds nothing.

The round is four entries of the run's stage list (:mod:`.stages`): the
decision (:func:`deliberation_stage`), the revisions, the second review and
the second ranking, each run by the same loop as the first round's stages
(events, timings, budget, storage). Its records stay in
:class:`~council.pipeline.progress.SecondRound` until its ranking is done,
so a stage that crashes leaves the first round standing
(:func:`first_round_stands`).
"""

from __future__ import annotations

import time
from dataclasses import replace

from council.events import DeliberationEvent, StageStartedEvent
from council.logs import get_logger
from council.pipeline.context import RunContext, elapsed_ms
from council.pipeline.cost import usd_of
from council.pipeline.council_reading import read_answers, reads
from council.pipeline.progress import AutomaticScores, Ranked, RevisionCall, RunSoFar, SecondRound
from council.pipeline.rank_stage import emit_ranking, rank_round
from council.pipeline.review_stage import round_reviews
from council.pipeline.revisions import gather_revisions, revised_answers, revision_calls
from council.pipeline.safety_stage import manipulation_problem
from council.pipeline.verdicts import automatic_scores
from council.result import (
    AgreementRecord,
    AnswerMove,
    DeliberationRecord,
    FirstRound,
    ReviewRecord,
    RevisionRecord,
)
from council.types import ChatMessage

_log = get_logger("stage.deliberation")


def agreement_value(agreement: AgreementRecord) -> float | None:
    """The agreement figure the ranking reports (Kendall's W, or the mean pairwise tau), or None."""
    if agreement.statistic == "kendall_w":
        return agreement.kendall_w
    if agreement.statistic == "mean_pairwise_tau":
        return agreement.mean_pairwise_tau
    return None


def second_round_reason(ctx: RunContext, so_far: RunSoFar) -> tuple[bool, str]:
    """Whether the first ranking calls for a second round, and why (or why not), in a sentence."""
    ranked = so_far.ranked
    threshold = ctx.plan.deliberate_below
    if len(so_far.surviving) < 2:
        return False, "one round: fewer than two answers to compare"
    if ranked is None or ranked.confidence is None:
        return False, "one round: the first ranking has no measured confidence (no review succeeded)"
    if threshold >= 1.0:
        return True, "two rounds: review.deliberate_below is 1, so every run has a second round"
    if ranked.tied_for_first:
        tied = ", ".join([ranked.ranking[0].member, *ranked.tied_for_first])
        return True, f"two rounds: the top answers were tied ({tied}; confidence {ranked.confidence:.3f})"
    if ranked.confidence < threshold:
        return True, f"two rounds: the first ranking was unsure (confidence {ranked.confidence:.3f} < {threshold:g})"
    return False, f"one round: the first ranking was sure (confidence {ranked.confidence:.3f} >= {threshold:g}, no tie)"


def over_budget(ctx: RunContext, calls: list[RevisionCall], reviews: list[ReviewRecord]) -> str | None:
    """Why the second round does not fit what is left of the run's budget, or None when it fits (or no cap).

    Its bound: each revision's, as the budget would reserve it, the first
    round's reviews again at what they cost, and room left for the
    chairman (bounded by the largest revision prompt, which holds more than
    the chairman's): a second round never costs the run its final answer.
    """
    budget = ctx.budget
    if budget is None or not calls:
        return None

    def bound(member: str, messages: list[ChatMessage]) -> float:
        provider = ctx.providers[member]
        return budget.bound_usd(provider.member, messages, ctx.params_for(provider))

    revising = sum(bound(c.member, c.messages) for c in calls)
    reviewing = sum(usd_of(r.usage, budget.prices.get(r.reviewer)) or 0.0 for r in reviews)
    largest = max(calls, key=lambda c: sum(len(m.content) for m in c.messages)).messages
    chairman = ctx.plan.chairman
    chairing = bound(chairman, largest) if chairman is not None and chairman in budget.prices else 0.0
    if revising + reviewing + chairing <= budget.left_usd:
        return None
    return (f"one round: the second could cost up to ${revising + reviewing:.4f} (and the chairman up to "
            f"${chairing:.4f}) while ${max(budget.left_usd, 0):.4f} of the run's ${budget.limit_usd:g} budget is left")


def moves(first: Ranked, second: Ranked, revised: set[str]) -> list[AnswerMove]:
    """How each answer's calibrated score and rank moved between the rounds."""
    before = {e.member: e for e in first.ranking}
    after = {e.member: e for e in second.ranking}
    return [AnswerMove(member=member, revised=member in revised,
                       rank_before=before[member].rank if member in before else None,
                       rank_after=after[member].rank if member in after else None,
                       score_before=before[member].score if member in before else None,
                       score_after=after[member].score if member in after else None)
            for member in [*after, *(m for m in before if m not in after)]]


def round_cost(ctx: RunContext, revisions: list[RevisionRecord], reviews: list[ReviewRecord]) -> dict[str, object]:
    """The second round's upstream calls, tokens and cost (None when a call's cost is unknown)."""
    prices = {m.name: m.price for m in ctx.config.members}
    made = [(r.member, r.usage, r.reused, 1) for r in revisions if r.usage.total_tokens or r.usage.cost_usd]
    made += [(r.reviewer, r.usage, r.reused, r.attempts) for r in reviews if r.usage.total_tokens]
    fresh = [(member, usage, attempts) for member, usage, reused, attempts in made if not reused]
    costs = [usd_of(usage, prices.get(member)) for member, usage, _attempts in fresh]
    return {"calls": sum(attempts for _m, _u, attempts in fresh),
            "tokens": sum(usage.total_tokens for _m, usage, _a in fresh),
            "cost_usd": None if any(c is None for c in costs) else round(sum(c for c in costs if c is not None), 6)}


def _problems(revisions: list[RevisionRecord], ranked: Ranked) -> tuple[str, ...]:
    failed = [f"{r.member} ({r.error.reason})" for r in revisions if r.decision == "failed" and r.error]
    blocked = [r.member for r in revisions if r.decision == "blocked"]
    return (*(f"second round: {problem}" for problem in ranked.problems),
            *([f"second round: revisions failed: {', '.join(failed)}; their first answers stand"] if failed else []),
            *([f"second round: revised answers blocked by the safety gate: {', '.join(blocked)}; their first "
               "answers stand"] if blocked else []))


def _one_round(ctx: RunContext, so_far: RunSoFar, reason: str, *degraded: str) -> RunSoFar:
    ranked = so_far.ranked or Ranked([])
    record = DeliberationRecord(rounds=1, reason=reason, threshold=ctx.plan.deliberate_below,
                                confidence_before=ranked.confidence, agreement_statistic=ranked.agreement.statistic,
                                agreement_before=agreement_value(ranked.agreement))
    ctx.emit(DeliberationEvent(ctx.run_id, record.event_data()))
    return so_far.then(deliberation=record, second_round=None, degraded=degraded)


def first_round_stands(ctx: RunContext, so_far: RunSoFar, error: Exception) -> RunSoFar:
    """A second round's stage crashed (a bug, not a failed call: those are records): the round is lost, not the run.

    The first round's records were never replaced (a round's records become
    the run's only when its ranking is done), so they stand as they were.
    """
    _log.error("deliberation_crashed", run_id=ctx.result.run_id, error=error, exc_info=True)
    why = f"the second round failed (internal error: {type(error).__name__}: {error}); the first round stands"
    return _one_round(ctx, so_far, f"one round: {why}", why)


def _pending(so_far: RunSoFar) -> SecondRound:
    # The stage list runs the round's stages only while a round is pending (RunStage.runs_when).
    if so_far.second_round is None:
        raise RuntimeError("a second round's stage ran with no second round under way")
    return so_far.second_round


async def deliberation_stage(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
    """Whether a second round runs: when the first ranking is unsure and the budget allows; else why not, recorded."""
    run, reason = second_round_reason(ctx, so_far)
    if not run or so_far.ranked is None:
        return _one_round(ctx, so_far, reason)
    calls = revision_calls(ctx, so_far.surviving, list(so_far.reviews))
    if (too_costly := over_budget(ctx, calls, list(so_far.reviews))) is not None:
        return _one_round(ctx, so_far, too_costly)
    ctx.emit(StageStartedEvent(ctx.run_id, {"stage": "deliberation", "reason": reason}))
    return so_far.then(second_round=SecondRound(reason, time.perf_counter(), tuple(calls)))


async def revision_stage(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
    """Every member reads the critiques and revises or keeps its answer; a revised text passes the gate again."""
    pending = _pending(so_far)
    answers, revisions = await revised_answers(ctx, list(so_far.answers),
                                               await gather_revisions(ctx, list(pending.calls)))
    # Text aimed at the reviewers added while revising degrades the run as in the first round (and so keeps it
    # out of the result cache): the flag alone would pass unnoticed.
    added = manipulation_problem([a for a in answers if a.revised])
    return so_far.then(second_round=replace(pending, answers=tuple(answers), revisions=tuple(revisions)),
                       degraded=(f"in the second round, {added}" if added else None,))


async def second_review_stage(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
    """The reviewers score the second round's answers as in the first (a new shuffle, the same sandbox and parser)."""
    pending = _pending(so_far)
    surviving = [a for a in pending.answers if a.status == "ok"]
    values, evidence = automatic_scores(ctx.plan.rubric, surviving, ctx.plan.messages)
    reviews, late = await round_reviews(ctx, list(pending.answers), values, round_no=2)
    answers, degraded = list(pending.answers), tuple[str, ...]()
    if reads(ctx):
        # The revised texts are read as the first answers were: a majority blocks, any reviewer flags.
        answers, read_problems = read_answers(ctx, answers, reviews)
        degraded = tuple(f"in the second round, {problem}" for problem in read_problems)
    return so_far.then(second_round=replace(pending, answers=tuple(answers), reviews=tuple(reviews),
                                            automatic=AutomaticScores(values, evidence)),
                       late=tuple(late), degraded=degraded)


async def second_ranking_stage(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
    """The second ranking, with the stored history and adding nothing to it; its records become the run's.

    The first round is kept in the deliberation record, with who revised,
    how each answer moved, and what the round cost.
    """
    pending, first = _pending(so_far), so_far.ranked
    if first is None:
        raise RuntimeError("a second round with no first ranking")
    surviving = [a for a in pending.answers if a.status == "ok"]
    second, writes = await rank_round(ctx, surviving, list(pending.reviews), pending.automatic, so_far.history,
                                      add_to_history=False)
    emit_ranking(ctx, second, round_no=2)
    revisions = list(pending.revisions)
    revised = {r.member for r in revisions if r.decision == "revised"}
    kept = FirstRound(answers=list(so_far.answers), reviews=list(so_far.reviews), ranking=first.ranking,
                      agreement=first.agreement, bias_flags=first.bias_flags, ranking_confidence=first.confidence,
                      tied_for_first=first.tied_for_first)
    record = DeliberationRecord(
        rounds=2, reason=pending.reason, threshold=ctx.plan.deliberate_below, confidence_before=first.confidence,
        confidence_after=second.confidence, agreement_statistic=second.agreement.statistic,
        agreement_before=agreement_value(first.agreement), agreement_after=agreement_value(second.agreement),
        first_round=kept, revisions=revisions, moves=moves(first, second, revised),
        latency_ms=elapsed_ms(pending.started), **round_cost(ctx, revisions, list(pending.reviews)))
    if ctx.listening:
        ctx.emit(DeliberationEvent(ctx.run_id, record.event_data()))
    return so_far.then(answers=pending.answers, automatic=pending.automatic, reviews=pending.reviews, ranked=second,
                       deliberation=record, second_round=None, writes=writes, degraded=_problems(revisions, second))
