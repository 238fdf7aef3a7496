"""Turn the reviewers' scores of one council run into a ranking.

Pure numpy: no I/O, nothing async, and no exception on any numeric input.
Non-finite scores count as missing; candidates nobody scored come last, by name,
with score 0.0, ``raw_mean`` NaN and ``n_reviews`` 0. Self-reviews, when the
pipeline includes them (``review.include_self``), are corrected for each
reviewer's estimated self-bonus before any method ranks (see "Self-preference"
below).

Methods (``METHODS``); ties always go to the higher raw mean, then the name:

``calibrated`` (default)
    Reviewer r's own statistics merge its history with its finite overall
    scores in this sheet: n_r scores, mean m_r, sum of squared deviations M2_r.
    The run prior is m_0, the mean of every overall score in the sheet, and
    v_0, the pooled within-reviewer variance of the sheet (the sum of each
    reviewer's squared deviations from its own mean over the sum of k_r - 1).
    With kappa = ``PRIOR_SCORES`` pseudo-scores of the prior::

        mu_r      = (n_r * m_r + kappa * m_0) / (n_r + kappa)
        sigma2_r  = (M2_r + kappa * v_0) / (max(n_r - 1, 0) + kappa)
        z_rc      = (x_rc - mu_r) / sigma_r

    z_rc is 0 when sigma_r is 0, or when the reviewer's own scores (history
    and sheet, at least two) never varied. Without history, a reviewer of a
    5-member council has 4 scores, which weigh as much as the prior (kappa =
    4): half way between the raw mean (kappa infinite) and per-question
    centering, because a z from 3-4 scores alone is noisier than the raw
    mean. Each run adds to the history, which soon outweighs the prior.
    Reliability weights down-weight reviewers who disagree with the others::

        rho2_r = (S_r + lambda * RHO2_REF) / (k_r + lambda)
        w_r    = clip(RHO2_REF / rho2_r, MIN_RELIABILITY, 1)
        score_c = sum_r w_r * z_rc / sum_r w_r     (reviewers who scored c)

    S_r sums the squared residuals (z_rc minus the mean z of the other
    reviewers of c) over the history and this sheet; k_r counts them;
    lambda = ``RELIABILITY_PRIOR``. With few residuals the weight is 1.
    The constants were tuned on ``scripts/bench_aggregation.py`` with seeds
    other than the reported run's.

``raw_mean``
    Mean of the raw overall scores.
``per_question_z``
    Each reviewer's z from this sheet only (population std), unweighted mean.
``borda``
    A reviewer that scored k candidates gives each one (wins + ties / 2) / (k - 1)
    points (0.5 when k = 1). The score is the mean of those points.
``bradley_terry``
    Every reviewer's scores become pairwise preferences (the higher score wins,
    a tie is half a win each), pooled over reviewers and fitted with a
    Bradley-Terry model under a small ridge prior
    (:mod:`council.ranking.bradley_terry`). The score is the centred
    log-strength.

Self-preference: a reviewer's self-difference in a run is its calibrated z for
its own answer minus the mean z of the other reviewers of that answer. Its
history keeps running sums of them (after the position and length sums in the
bias tuple); with this run's difference added, the shrunk estimate
``bonus_r = sum_d / (n + SELF_PRIOR)`` is subtracted from the reviewer's
own-answer z (``calibrated``), or ``bonus_r * sigma_r`` from its raw
own-answer score (every other method; sigma_r is its calibrated standard
deviation). Consensus residuals are taken after the correction. Reviewers
that never score their own answer are untouched. See
:mod:`council.ranking.self_preference`.

With fewer than 3 candidates no normalization is done: calibrated and
per_question_z use the raw mean and report ``normalized=False``.

Agreement is Kendall's W (tie-corrected) when every reviewer with a score
scored the same 2 or more candidates. Self-exclusion makes W undefined, so the
mean Kendall tau-b over pairs of reviewers sharing 2 or more scored
candidates is also reported, and is the headline number when W is missing.

A bias flag names a reviewer whose overall scores follow the slot it saw the
answers in, or their length: |Kendall tau-b| of at least ``BIAS_THRESHOLD``
over at least ``BIAS_MIN_ITEMS`` scored answers; pooled across runs, see
:mod:`council.ranking.agreement`. A ``self_preference`` flag names a reviewer
whose estimated self-bonus is material (its ``correlation`` is the bonus in
standard deviations).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping

import numpy as np

from council.ranking.agreement import (  # noqa: F401 - the bias constants and kendall_tau are part of this module's API
    BIAS_MIN_ITEMS,
    BIAS_SUMS,
    BIAS_THRESHOLD,
    PAIR_SUMS,
    SELF_SUMS,
    Agreement,
    BiasFlag,
    agreement,
    bias_flags,
    bias_pairs,
    column_means,
    kendall_tau,
    pooled_flags,
)
from council.ranking.bradley_terry import bradley_terry
from council.ranking.calibration import (  # noqa: F401 - PRIOR_SCORES and z_scores are part of this module's API
    PRIOR_SCORES,
    SelfCorrection,
    bias_arrays,
    history_arrays,
    padded_bias,
    per_question_z,
    residuals,
    row_stats,
    sane_history,
    self_correction,
    stored_bias,
    weighted_mean,
    z_scores,
)
from council.ranking.confidence import DEFAULT_TIE_THRESHOLD, noise_sd, rank_confidence
from council.ranking.self_preference import SELF_PRIOR, self_flags
from council.ranking.sheet import (  # noqa: F401 - the reliability constants are part of this module's API
    MIN_RELIABILITY,
    RELIABILITY_PRIOR,
    RHO2_REF,
    Aggregate,
    CandidateScore,
    HistoryIncrement,
    ReviewerHistory,
    ScoreSheet,
    reliability_weight,
)

METHODS = ("calibrated", "raw_mean", "per_question_z", "borda", "bradley_terry")

def _borda(x: np.ndarray) -> np.ndarray:
    ok = np.isfinite(x)
    vals = np.where(ok, x, 0.0)
    both = ok[:, :, None] & ok[:, None, :]
    wins = np.sum(both & (vals[:, :, None] > vals[:, None, :]), axis=2)
    ties = np.sum(both & (vals[:, :, None] == vals[:, None, :]), axis=2) - 1
    k = ok.sum(axis=1, keepdims=True)
    points = np.where(k > 1, (wins + 0.5 * ties) / np.maximum(k - 1, 1), 0.5)
    return np.where(ok, points, np.nan)


def _finite(value: float) -> float:
    return value if math.isfinite(value) else 0.0


def aggregate(
    sheet: ScoreSheet, history: Mapping[str, ReviewerHistory] | None = None, method: str = "calibrated",
    tie_threshold: float = DEFAULT_TIE_THRESHOLD, *, self_prior: float = SELF_PRIOR, with_confidence: bool = True,
) -> Aggregate:
    """Rank the candidates of one run by ``method`` (see the module docstring).

    ``history`` holds each reviewer's statistics from earlier runs, excluding
    this one; ``calibrated`` reads all of it, every method its self-preference
    sums. ``self_prior`` is the self-bonus estimate's prior strength
    (``math.inf`` turns the correction off). ``with_confidence=False`` skips
    the resampling behind :attr:`Aggregate.confidence` (a benchmark ranking
    thousands of sheets needs only the order). An unknown method raises
    ``ValueError``; numeric input never raises.
    """
    if method not in METHODS:
        raise ValueError(f"unknown aggregation method {method!r}; choose one of {', '.join(METHODS)}")
    with np.errstate(all="ignore"):
        x = np.where(np.isfinite(sheet.overall), sheet.overall, np.nan)
        n_rev, n_cand = x.shape
        raw_mean, n_reviews = column_means(x)
        normalized = method in ("calibrated", "per_question_z") and n_cand >= 3 and n_rev > 0
        hist, bias = history_arrays(sheet, history), bias_arrays(sheet, history)
        corrected = self_correction(sheet, x, hist, bias, self_prior)
        # Each reviewer's weight and noise, from its residuals over the history and this run: calibrated
        # ranks with the weights, and every method's confidence resamples with both.
        count, m2 = residuals(corrected.z)
        increments = _increments(sheet, x, corrected, count, m2)
        resid_count, resid_m2 = hist[:, 3] + count, hist[:, 4] + m2
        reliability = np.array([reliability_weight(c, m) for c, m in zip(resid_count, resid_m2, strict=True)])
        noise = noise_sd(resid_count, resid_m2)
        weights = np.ones(n_rev)
        if method == "borda":
            score = column_means(_borda(corrected.scores))[0]
        elif method == "bradley_terry":
            score = bradley_terry(corrected.scores)
        elif not normalized:
            score = column_means(corrected.scores)[0]
        elif method == "per_question_z":
            score = column_means(per_question_z(corrected.scores))[0]
        else:
            weights = reliability
            score = weighted_mean(corrected.z, weights)
        run_agreement = agreement(x)
        flags = bias_flags(sheet.reviewers, sheet.position, sheet.answer_length, x)
        # Each reviewer's bias sums: its history's plus this run's.
        pooled = pooled_flags(sheet.reviewers, bias[:, :PAIR_SUMS] + sheet.run_bias_pairs)
        seen = {(f.reviewer, f.kind) for f in pooled}
        flags = pooled + self_flags(sheet.reviewers, corrected.total, self_prior) + [
            f for f in flags if (f.reviewer, f.kind) not in seen]
        # Every dimension's means in one call, (dimensions, candidates).
        dim_names = list(sheet.dimensions)
        dim_means = (column_means(np.stack([sheet.dimensions[name] for name in dim_names]))[0] if dim_names
                     else np.empty((0, n_cand)))
    # Plain Python numbers from here: a handful of them, each read on its own, which numpy does slowly.
    scores, means, counts, dims = score.tolist(), raw_mean.tolist(), n_reviews.tolist(), dim_means.T.tolist()
    # Scores equal up to float noise count as tied, so the raw mean decides as documented.
    order = sorted(
        range(n_cand),
        key=lambda c: (
            counts[c] == 0,
            -round(_finite(scores[c]), 9),
            -means[c] if math.isfinite(means[c]) else math.inf,
            sheet.candidates[c],
        ),
    )
    ranking = [
        CandidateScore(
            member=sheet.candidates[c],
            rank=rank,
            score=_finite(scores[c]) if counts[c] else 0.0,
            raw_mean=means[c],
            n_reviews=counts[c],
            dimensions={name: v for name, v in zip(dim_names, dims[c], strict=True) if math.isfinite(v)},
        )
        for rank, c in enumerate(order, start=1)
    ]
    # Resampled on the calibrated z scale whatever the method: the reviewers' uncertainty (their
    # self-bonus corrected z, reliability weights and noise) does not depend on how they are ranked.
    confidence = None
    if with_confidence:
        with np.errstate(all="ignore"):  # extreme or missing scores are the draws' to carry, not warnings
            confidence = rank_confidence([sheet.candidates[c] for c in order], corrected.z[:, order], reliability,
                                         noise, tie_threshold)
    bonus, self_runs = corrected.bonus.tolist(), corrected.total[:, 0].tolist()
    return Aggregate(
        method=method,
        ranking=ranking,
        agreement=run_agreement,
        bias_flags=flags,
        reviewer_weights=dict(zip(sheet.reviewers, weights.tolist(), strict=True)),
        normalized=bool(normalized),
        confidence=confidence,
        self_bonus={name: bonus[i] for i, name in enumerate(sheet.reviewers) if self_runs[i] > 0},
        increments=increments,
    )


def history_increments(history: Mapping[str, ReviewerHistory], sheet: ScoreSheet, *,
                       self_prior: float = SELF_PRIOR) -> dict[str, HistoryIncrement]:
    """This run's increment for each reviewer of the sheet, given the ``history`` (and ``self_prior``)
    it was ranked with; :attr:`Aggregate.increments` without the ranking."""
    with np.errstate(all="ignore"):
        x = np.where(np.isfinite(sheet.overall), sheet.overall, np.nan)
        corrected = self_correction(sheet, x, history_arrays(sheet, history), bias_arrays(sheet, history), self_prior)
        count, sq = residuals(corrected.z)
        return _increments(sheet, x, corrected, count, sq)


def _increments(sheet: ScoreSheet, x: np.ndarray, corrected: SelfCorrection, resid_count: np.ndarray,
                resid_m2: np.ndarray) -> dict[str, HistoryIncrement]:
    _, k, mean_q, ss_q = row_stats(x)
    # One row of plain floats per reviewer: count, mean, m2, resid_count, resid_m2, then the bias sums.
    rows = np.column_stack([k, mean_q, ss_q, resid_count, resid_m2, sheet.run_bias_pairs, corrected.run]).tolist()
    return {name: HistoryIncrement(n, mean, m2, resid_n, resid_sq, tuple(bias))
            for name, (n, mean, m2, resid_n, resid_sq, *bias) in zip(sheet.reviewers, rows, strict=True)}


def fold_increment(stored: ReviewerHistory | None, increment: HistoryIncrement) -> ReviewerHistory:
    """``stored`` with one run's increment folded in (plain floats: no array work inside a transaction)."""
    count, mean, m2, resid_count, resid_m2 = sane_history(stored)
    n = count + increment.count
    delta = increment.mean - mean
    new_mean = mean + delta * increment.count / n if n > 0 else mean
    new_m2 = m2 + increment.m2 + delta * delta * count * increment.count / n if n > 0 else m2
    # Scores so large that their squares overflow teach nothing: keep the old (sanitized) part.
    scores_ok = math.isfinite(new_mean) and math.isfinite(new_m2)
    resid_ok = math.isfinite(increment.resid_m2)
    old_bias = stored_bias(stored)
    bias = tuple(map(operator.add, old_bias, padded_bias(increment.bias)))  # both BIAS_SUMS floats long
    return ReviewerHistory(
        count=int(n if scores_ok else count),
        mean=float(new_mean if scores_ok else mean),
        m2=float(max(new_m2, 0.0) if scores_ok else m2),
        resid_count=int(resid_count + increment.resid_count if resid_ok else resid_count),
        resid_m2=float(resid_m2 + increment.resid_m2 if resid_ok else resid_m2),
        bias=bias if all(map(math.isfinite, bias)) else old_bias,
    )


def update_history(history: Mapping[str, ReviewerHistory], sheet: ScoreSheet, *,
                   self_prior: float = SELF_PRIOR) -> dict[str, ReviewerHistory]:
    """Fold this run's overall scores, consensus residuals and bias sums into each reviewer's statistics.

    Call it after :func:`aggregate` with the same ``history`` and ``self_prior``:
    the residuals use the z-scores that history gave. Returns a new mapping with a new
    object for every reviewer of the sheet; other reviewers are kept as they are.
    """
    updated = dict(history)
    for name, increment in history_increments(history, sheet, self_prior=self_prior).items():
        updated[name] = fold_increment(history.get(name), increment)
    return updated
