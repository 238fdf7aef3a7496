"""Between review and the final answer: the score sheet, calibrated ranking, and reviewer history.

The arithmetic is :mod:`council.ranking`'s; this stage builds its input from
the review records, reads and folds each reviewer's calibration history in
the store, and writes the ranking, agreement and bias flags into the result.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from council.errors import StorageError, storage_cause
from council.logs import get_logger
from council.pipeline.context import RunContext
from council.providers import Provider
from council.ranking.aggregation import aggregate, update_history
from council.ranking.sheet import ScoreSheet
from council.result import AgreementRecord, AnswerRecord, BiasFlagRecord, RankingEntry, ReviewRecord
from council.rubrics.model import Rubric
from council.storage.store import Store

_log = get_logger("council")


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
        for slot, member in enumerate(review.order):
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


def rank_answers(ctx: RunContext, surviving: list[AnswerRecord], store: Store | None) -> None:
    """Rank the surviving answers from the reviews into ``ctx.result``, with calibration history from ``store``.

    A store that cannot be read or written degrades the run (said in the
    result) and the ranking goes on without history.
    """
    result = ctx.result
    failed = [f"{r.reviewer} ({r.error.reason})" for r in result.reviews if r.status == "failed" and r.error]
    if failed:
        result.degrade(f"reviews failed: {', '.join(failed)}")
    if not any(r.status == "ok" for r in result.reviews):
        result.degrade("no review succeeded: the ranking carries no information")
    sheet = build_sheet(surviving, result.reviews, ctx.rubric)
    keys = {r: reviewer_key(ctx.providers[r]) for r in sheet.reviewers if r in ctx.providers}
    try:
        stored = store.reviewer_history(list(keys.values())) if store is not None else {}
    except StorageError as error:
        _log.error("reviewer_history_unavailable", run_id=result.run_id, cause=str(error))
        result.degrade(f"reviewer calibration history could not be read ({storage_cause(error)})")
        stored = {}
    history = {name: stored[key] for name, key in keys.items() if key in stored}
    outcome = aggregate(sheet, history, ctx.config.review.aggregation)
    result.ranking = [
        RankingEntry(member=c.member, rank=c.rank, score=round(c.score, 4),
                     raw_mean=None if np.isnan(c.raw_mean) else round(c.raw_mean, 4), n_reviews=c.n_reviews,
                     dimensions={k: round(v, 3) for k, v in c.dimensions.items() if not np.isnan(v)})
        for c in outcome.ranking
    ]
    result.agreement = AgreementRecord(**vars(outcome.agreement))
    result.bias_flags = [BiasFlagRecord(**vars(flag)) for flag in outcome.bias_flags]
    if store is not None and sheet.reviewers:
        by_key = {key: name for name, key in keys.items()}

        def fold(current: dict[str, Any]) -> dict[str, Any]:
            named = {by_key[k]: v for k, v in current.items()}
            return {keys[name]: stats for name, stats in update_history(named, sheet).items() if name in keys}

        try:
            store.update_reviewer_history(list(keys.values()), fold)
        except StorageError as error:
            _log.error("reviewer_history_not_stored", run_id=result.run_id, cause=str(error))
            result.degrade(f"reviewer calibration history could not be updated ({storage_cause(error)})")
