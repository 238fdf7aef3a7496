"""Between review and the final answer: the score sheet, calibrated ranking, and reviewer history.

The arithmetic is :mod:`council.ranking`'s; this stage builds its input from
the review records, reads and folds each reviewer's calibration history in
the store, and hands back the ranking, agreement and bias flags, each
ranked answer with its rubric verdict.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping
from typing import Protocol

import numpy as np

from council.errors import StorageError, storage_cause
from council.events import RankingEvent
from council.logs import get_logger
from council.pipeline.context import RunContext
from council.pipeline.learned_weighting import choose_weighting
from council.pipeline.payloads import ranking_event_data
from council.pipeline.persist import HISTORY_NOT_STORED, waited_for_storage
from council.pipeline.progress import AutomaticScores, HistoryRead, QueuedWrite, Ranked, RunSoFar
from council.pipeline.verdicts import with_verdicts
from council.providers import Provider
from council.ranking.aggregation import aggregate
from council.ranking.sheet import HistoryIncrement, ReviewerHistory, ScoreSheet
from council.ranking.unanimity import KIND, unanimity_flags
from council.ranking.weights import LEARNED
from council.result import (
    AgreementRecord,
    AnswerRecord,
    BiasFlagRecord,
    CalibrationRecord,
    RankingEntry,
    ReviewRecord,
)
from council.rubrics.model import Rubric
from council.storage.backlog import StorageUnavailableError

_log = get_logger("council")
UNCALIBRATED_NOTE = ("learned weights not used: only the calibrated method weighs reviewers, and this ranking was "
                     "not calibrated (too few answers, or another review.aggregation)")


def reviewer_key(provider: Provider) -> str:
    """The calibration-history key of a reviewer: a new model starts a new history."""
    member = provider.member
    return f"{member.name}|{member.provider}|{member.model}"


def build_sheet(candidates: list[AnswerRecord], reviews: list[ReviewRecord], rubric: Rubric) -> ScoreSheet:
    """The score matrices of one run, for the aggregator."""
    names = tuple(a.member for a in candidates)
    ok_reviews = [r for r in reviews if r.status == "ok"]
    reviewers = tuple(r.reviewer for r in ok_reviews)
    shape = (len(reviewers), len(names))
    overall = np.full(shape, np.nan)
    dimensions = {d: np.full(shape, np.nan) for d in rubric.criterion_ids()}
    position = np.full(shape, -1, dtype=int)
    column = {name: index for index, name in enumerate(names)}
    for row, review in enumerate(ok_reviews):
        # A mean over both orders (review.both_orders) stands on no one slot: no position to test for bias.
        seen_once = sum(ballot.status == "ok" for ballot in review.order_ballots) < 2
        for slot, member in enumerate(review.order if seen_once else []):
            if member in column:
                position[row, column[member]] = slot
        for member, scores in review.scores.items():
            if member not in column:
                continue
            overall[row, column[member]] = scores.overall
            for dimension, value in scores.normalized.items():
                if dimension in dimensions:
                    dimensions[dimension][row, column[member]] = value
    lengths = np.array([len(a.content or "") for a in candidates], dtype=float)
    return ScoreSheet(names, reviewers, overall, dimensions, position, lengths)


class CalibrationStore(Protocol):
    """Where reviewers' calibration history lives between runs (the run store implements it)."""

    def read_reviewer_history(self, keys: list[str], *,
                              ahead: bool = False) -> Awaitable[dict[str, ReviewerHistory]]:
        """The stored statistics of these reviewer keys (absent keys have none yet); ``ahead``: read
        ahead of need, along with other work, and at once when awaited."""

    def add_to_reviewer_history(self, increments: Mapping[str, HistoryIncrement]) -> asyncio.Future[None]:
        """Fold one run's increments into the stored statistics, atomically, without the run waiting."""


def read_history_ahead(ctx: RunContext, calibration: CalibrationStore | None) -> HistoryRead | None:
    """Start reading the history of everyone who may review (the judges, or else the members).

    Started as the reviews go out, the read rides along with the run's
    pending write instead of costing a trip to the store of its own, and
    the ranking does not wait for it.
    """
    reviewers = ctx.plan.judges if ctx.plan.judges is not None else ctx.plan.members
    keys = sorted({reviewer_key(ctx.providers[name]) for name in reviewers if name in ctx.providers})
    if calibration is None or not keys:
        return None
    return HistoryRead(frozenset(keys), calibration.read_reviewer_history(keys, ahead=True))


def unranked(answers: list[AnswerRecord]) -> list[RankingEntry]:
    """The answers in the order given, unscored: the ranking when there is nothing to rank them by."""
    return [RankingEntry(member=a.member, rank=i + 1, score=0.0, raw_mean=None, n_reviews=0)
            for i, a in enumerate(answers)]


async def rank_answers(ctx: RunContext, surviving: list[AnswerRecord], reviews: list[ReviewRecord],
                       calibration: CalibrationStore | None, ahead: HistoryRead | None = None,
                       add_to_history: bool = True) -> Ranked:
    """Rank the surviving answers from the reviews, calibrated with each reviewer's stored history.

    The history is ``ahead``'s when it covers every reviewer, or read now.
    One answer is ranked alone, unreviewed. History that cannot be read or
    written costs calibration, not the ranking: it is said in ``problems``.
    """
    if len(surviving) <= 1:
        return Ranked(unranked(surviving))
    problems = []
    failed = [f"{r.reviewer} ({r.error.reason})" for r in reviews if r.status == "failed" and r.error]
    if failed:
        problems.append(f"reviews failed: {', '.join(failed)}")
    if not any(r.status == "ok" for r in reviews):
        problems.append("no review succeeded: the ranking carries no information")
    sheet = build_sheet(surviving, reviews, ctx.plan.rubric)
    keys = {r: reviewer_key(ctx.providers[r]) for r in sheet.reviewers if r in ctx.providers}
    stored: dict[str, ReviewerHistory] | None = {}
    if calibration is not None and keys:
        # Read as the reviews went out (or now) and recorded in the result: the ranking is reproducible from the run.
        # A database that does not answer within storage.critical_wait_s costs the calibration, not the answer.
        try:
            stored = await waited_for_storage(ctx, ahead.stored if ahead is not None and ahead.keys.issuperset(
                keys.values()) else calibration.read_reviewer_history(list(keys.values())))
        except (TimeoutError, StorageUnavailableError) as error:
            # Not logged per run: the store logs the outage once (council.storage.backlog).
            why = ("the database is unavailable" if isinstance(error, StorageUnavailableError) else
                   f"the database did not answer within {ctx.config.storage.critical_wait_s:g} s")
            problems.append(f"reviewer calibration history was not read ({why}): ranked without it, "
                            "and this run does not add to it")
            stored = None
        except StorageError as error:
            _log.error("reviewer_history_unavailable", run_id=ctx.result.run_id, cause=str(error))
            problems.append(f"reviewer calibration history could not be read ({storage_cause(error)})")
            stored = None  # and not updated either: this run's residuals would be measured against nothing
    history = {name: stored[key] for name, key in keys.items() if stored and key in stored}
    choice = await choose_weighting(ctx, sheet.reviewers, keys)
    outcome = aggregate(sheet, history, ctx.config.review.aggregation, ctx.config.review.tie_threshold,
                        weighting=choice.weighting, learned=choice.weights or None)
    confidence = outcome.confidence
    ranking = [
        RankingEntry(member=c.member, rank=c.rank, score=round(c.score, 4),
                     raw_mean=None if np.isnan(c.raw_mean) else round(c.raw_mean, 4), n_reviews=c.n_reviews,
                     dimensions={k: round(v, 3) for k, v in c.dimensions.items() if not np.isnan(v)},
                     rank_probabilities=confidence.rank_probabilities.get(c.member, []) if confidence else [])
        for c in outcome.ranking
    ]
    history_write = None
    if add_to_history and calibration is not None and keys and stored is not None:
        history_write = calibration.add_to_reviewer_history(
            {keys[name]: increment for name, increment in outcome.increments.items() if name in keys})
    used = [CalibrationRecord(reviewer=name, count=h.count, mean=h.mean, m2=h.m2, resid_count=h.resid_count,
                              resid_m2=h.resid_m2, bias=list(h.bias)) for name, h in sorted(history.items())]
    reviewed = any(r.status == "ok" for r in reviews)
    agreement = AgreementRecord(**vars(outcome.agreement), method=outcome.method, calibrated=outcome.normalized,
                                weighting=outcome.weighting,
                                reviewer_weights={k: round(w, 4) for k, w in outcome.reviewer_weights.items()},
                                learned=choice.records if outcome.weighting == LEARNED else {},
                                weighting_note=choice.note if outcome.weighting == choice.weighting
                                or choice.weighting != LEARNED else UNCALIBRATED_NOTE)
    return Ranked(ranking, agreement,
                  [BiasFlagRecord(**vars(flag)) for flag in outcome.bias_flags], problems, used, history_write,
                  confidence.top_confidence if confidence and reviewed else None,
                  list(confidence.tied_with_top) if confidence and reviewed else [])


async def rank_round(ctx: RunContext, surviving: list[AnswerRecord], reviews: list[ReviewRecord],
                     automatic: AutomaticScores, history: HistoryRead | None,
                     add_to_history: bool = True) -> tuple[Ranked, tuple[QueuedWrite, ...]]:
    """One round's ranking, each answer with its verdict, and the history write it queued (member order if it fails).

    ``add_to_history`` False ranks with the stored history and adds nothing
    to it: a second round's reviewers were counted once already this run.
    """
    writes: tuple[QueuedWrite, ...] = ()
    try:
        ranked = await rank_answers(ctx, surviving, reviews, ctx.store, history, add_to_history)
        if ranked.history_write is not None:
            writes = ((ranked.history_write, HISTORY_NOT_STORED),)
        ranked.ranking = with_verdicts(ctx.plan.rubric, ranked.ranking, reviews, automatic.values, automatic.evidence,
                                       {a.member: a.safety for a in surviving})
        ranked.bias_flags = [*ranked.bias_flags, *unanimity_bias_flags(ctx.plan.rubric, surviving, reviews, ranked)]
    except Exception as error:
        _log.error("ranking_crashed", run_id=ctx.result.run_id, error=error, exc_info=True)
        ranked = Ranked(unranked(surviving), problems=[
            f"ranking failed (internal error: {type(error).__name__}: {error}); answers are in member order"])
    return ranked, writes


def emit_ranking(ctx: RunContext, ranked: Ranked, round_no: int = 1) -> None:
    """Tell listeners a round's ranking."""
    if ranked.ranking and ctx.listening:
        ctx.emit(RankingEvent(ctx.run_id, ranking_event_data(ranked.ranking, ranked.agreement, ranked.bias_flags,
                                                             ranked.confidence, ranked.tied_for_first, round_no)))


async def ranking_stage(ctx: RunContext, so_far: RunSoFar) -> RunSoFar:
    """The surviving answers ranked from the reviews, each with its verdict; in member order if ranking fails."""
    ranked, writes = await rank_round(ctx, so_far.surviving, list(so_far.reviews), so_far.automatic, so_far.history)
    emit_ranking(ctx, ranked)
    return so_far.then(ranked=ranked, degraded=tuple(ranked.problems), writes=writes)


def unanimity_bias_flags(rubric: Rubric, surviving: list[AnswerRecord], reviews: list[ReviewRecord],
                         ranked: Ranked) -> list[BiasFlagRecord]:
    """A bias flag for each answer every reviewer put at the top on every dimension while something disagrees."""
    if len(surviving) < 2:
        return []
    sheet = build_sheet(surviving, reviews, rubric)
    failed_by_code = {entry.member for entry in ranked.ranking if entry.verdict is not None and any(
        not c.passed and not c.informational and c.method in ("deterministic", "schema")
        for c in entry.verdict.criteria)}
    flags = unanimity_flags(sheet, {a.member: a.content or "" for a in surviving},
                            {a.member for a in surviving if a.flags}, failed_by_code)
    return [BiasFlagRecord(reviewer=f"all {flag.reviewers} reviewers", kind=KIND, correlation=1.0,
                           detail=f"{flag.candidate} got the top score on every dimension from every reviewer, "
                                  f"yet {flag.why}: its rank may not be earned")
            for flag in flags]
