"""Turn the reviewers' scores of one council run into a ranking.

Plain floats (:mod:`council.ranking.grid`; numpy for the rank resampling and
the Bradley-Terry fit): no I/O, nothing async, and no exception on any
numeric input.
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
    Reviewer weights (``weighting``, :mod:`council.ranking.weights`; the
    default ``outlier`` cuts only a reviewer that shares almost nothing with
    the others)::

        rho2_r = (S_r + lambda * RHO2_REF) / (k_r + lambda)
        w_r    = clip(OUTLIER_RHO2 / rho2_r, OUTLIER_FLOOR, 1)     (outlier)
        w_r    = clip(RHO2_REF / rho2_r, MIN_RELIABILITY, 1)       (reliability)
        score_c = sum_r w_r * z_rc / sum_r w_r     (reviewers who scored c)

    S_r sums the squared residuals (z_rc minus the mean z of the other
    reviewers of c) over the history and this sheet; k_r counts them;
    lambda = ``RELIABILITY_PRIOR``. With few residuals the weight is 1.
    The constants were tuned on ``scripts/bench_aggregation.py`` and
    ``scripts/simulate_juries.py`` with seeds other than the reported runs'.

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

With fewer than 3 candidates no normalization is done (calibrated and
per_question_z use the raw mean and report ``normalized=False``), except
that ``calibrated`` normalizes a two-candidate sheet once any of its
reviewers has history: the history calibrates two scores as well as three.
:attr:`Aggregate.weighting` names the weights that ranked (``equal`` when
the method weights no one).

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
from bisect import bisect_left, bisect_right
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
    kendall_tau,
    pooled_flags,
)
from council.ranking.bradley_terry import bradley_terry
from council.ranking.calibration import (  # noqa: F401 - PRIOR_SCORES and z_scores are part of this module's API
    PRIOR_SCORES,
    SelfCorrection,
    bias_rows,
    history_rows,
    padded_bias,
    per_question_z,
    residuals,
    sane_history,
    self_correction,
    stored_bias,
    weighted_mean,
    z_scores,
)
from council.ranking.confidence import DEFAULT_TIE_THRESHOLD, noise_sd, rank_confidence
from council.ranking.grid import NAN, Grid, as_grid, column_means, finite, row_stats
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
from council.ranking.weights import CONFIG_WEIGHTINGS, DEFAULT_WEIGHTING, LEARNED, reviewer_weights

METHODS = ("calibrated", "raw_mean", "per_question_z", "borda", "bradley_terry")

def _borda(x: Grid) -> Grid:
    points = []
    for row in x:
        scores = sorted(finite(row))  # wins and ties by bisection: a row of k scores costs k log k, not k^2
        k = len(scores)
        points.append([NAN if v != v else 0.5 if k <= 1 else
                       (bisect_left(scores, v) + 0.5 * (bisect_right(scores, v) - bisect_left(scores, v) - 1))
                       / (k - 1) for v in row])
    return points


def _finite(value: float) -> float:
    return value if math.isfinite(value) else 0.0


def _as_array(grid: Grid, width: int) -> np.ndarray:
    return np.array(grid, dtype=float).reshape(len(grid), width)


def aggregate(
    sheet: ScoreSheet, history: Mapping[str, ReviewerHistory] | None = None, method: str = "calibrated",
    tie_threshold: float = DEFAULT_TIE_THRESHOLD, *, self_prior: float = SELF_PRIOR, with_confidence: bool = True,
    weighting: str = DEFAULT_WEIGHTING, learned: Mapping[str, float] | None = None,
) -> Aggregate:
    """Rank the candidates of one run by ``method`` (see the module docstring).

    ``history`` holds each reviewer's statistics from earlier runs, excluding
    this one; ``calibrated`` reads all of it, every method its self-preference
    sums. ``self_prior`` is the self-bonus estimate's prior strength
    (``math.inf`` turns the correction off). ``with_confidence=False`` skips
    the resampling behind :attr:`Aggregate.confidence` (a benchmark ranking
    thousands of sheets needs only the order). ``weighting`` names the
    reviewer weights of ``calibrated`` (:mod:`council.ranking.weights`);
    ``learned`` takes each reviewer's weight from ``learned``, which must
    name every reviewer of the sheet. An unknown method or weighting (or
    learned weights missing a reviewer) raises ``ValueError``; numeric input
    never raises.
    """
    if method not in METHODS:
        raise ValueError(f"unknown aggregation method {method!r}; choose one of {', '.join(METHODS)}")
    if weighting not in CONFIG_WEIGHTINGS:
        raise ValueError(f"unknown weighting {weighting!r}; choose one of {', '.join(CONFIG_WEIGHTINGS)}")
    if weighting == LEARNED and (learned is None or any(name not in learned for name in sheet.reviewers)):
        raise ValueError("learned weighting needs a learned weight for every reviewer of the sheet")
    x = sheet.scores
    n_rev, n_cand = len(sheet.reviewers), len(sheet.candidates)
    means, counts = column_means(x, n_cand)
    hist, bias = history_rows(sheet, history), bias_rows(sheet, history)
    # Two answers give a reviewer too few scores of its own, but its history calibrates them as well as three.
    normalized = n_rev > 0 and (n_cand >= 3 or (
        n_cand == 2 and method == "calibrated" and any(row[0] > 0 for row in hist))) and method in (
        "calibrated", "per_question_z")
    corrected = self_correction(sheet, x, hist, bias, self_prior)
    # Each reviewer's weight and noise, from its residuals over the history and this run: calibrated
    # ranks with the weights, and every method's confidence resamples with both.
    count, m2 = residuals(corrected.z)
    increments = _increments(sheet, x, corrected, count, m2)
    resid_count = [h[3] + c for h, c in zip(hist, count, strict=True)]
    resid_m2 = [h[4] + m for h, m in zip(hist, m2, strict=True)]
    scheme_weights = ([float(learned[name]) for name in sheet.reviewers] if weighting == LEARNED and learned
                      else reviewer_weights(weighting, resid_count, resid_m2))
    weights = [1.0] * n_rev
    if method == "borda":
        scores = column_means(_borda(corrected.scores), n_cand)[0]
    elif method == "bradley_terry":
        with np.errstate(all="ignore"):
            scores = bradley_terry(_as_array(corrected.scores, n_cand)).tolist()
    elif not normalized:
        scores = column_means(corrected.scores, n_cand)[0]
    elif method == "per_question_z":
        scores = column_means(per_question_z(corrected.scores), n_cand)[0]
    else:
        weights = scheme_weights
        scores = weighted_mean(corrected.z, weights, n_cand)
    flags = bias_flags(sheet.reviewers, sheet.slots, sheet.lengths, x)
    # Each reviewer's bias sums: its history's plus this run's.
    pooled = pooled_flags(sheet.reviewers, [[a + b for a, b in zip(stored[:PAIR_SUMS], run, strict=True)]
                                            for stored, run in zip(bias, sheet.run_bias_pairs, strict=True)])
    seen = {(f.reviewer, f.kind) for f in pooled}
    flags = pooled + self_flags(sheet.reviewers, corrected.total, self_prior) + [
        f for f in flags if (f.reviewer, f.kind) not in seen]
    dims = {name: column_means(as_grid(values), n_cand)[0] for name, values in sheet.dimensions.items()}
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
            dimensions={name: column[c] for name, column in dims.items() if math.isfinite(column[c])},
        )
        for rank, c in enumerate(order, start=1)
    ]
    # Resampled on the calibrated z scale whatever the method: the reviewers' uncertainty (their
    # self-bonus corrected z, reliability weights and noise) does not depend on how they are ranked.
    confidence = None
    if with_confidence:
        with np.errstate(all="ignore"):  # extreme or missing scores are the draws' to carry, not warnings
            confidence = rank_confidence([sheet.candidates[c] for c in order], _as_array(corrected.z, n_cand)[:, order],
                                         np.array(scheme_weights), noise_sd(np.array(resid_count), np.array(resid_m2)),
                                         tie_threshold)
    return Aggregate(
        method=method,
        ranking=ranking,
        agreement=agreement(x),
        bias_flags=flags,
        reviewer_weights=dict(zip(sheet.reviewers, weights, strict=True)),
        normalized=bool(normalized),
        weighting=weighting if method == "calibrated" and normalized else "equal",
        confidence=confidence,
        self_bonus={name: corrected.bonus[i] for i, name in enumerate(sheet.reviewers) if corrected.total[i][0] > 0},
        increments=increments,
    )


def history_increments(history: Mapping[str, ReviewerHistory], sheet: ScoreSheet, *,
                       self_prior: float = SELF_PRIOR) -> dict[str, HistoryIncrement]:
    """This run's increment for each reviewer of the sheet, given the ``history`` (and ``self_prior``)
    it was ranked with; :attr:`Aggregate.increments` without the ranking."""
    x = sheet.scores
    corrected = self_correction(sheet, x, history_rows(sheet, history), bias_rows(sheet, history), self_prior)
    count, squares = residuals(corrected.z)
    return _increments(sheet, x, corrected, count, squares)


def _increments(sheet: ScoreSheet, x: Grid, corrected: SelfCorrection, resid_count: list[float],
                resid_m2: list[float]) -> dict[str, HistoryIncrement]:
    return {name: HistoryIncrement(n, mean, m2, resid_n, resid_sq, (*pairs, *self_sums))
            for name, (n, mean, m2), resid_n, resid_sq, pairs, self_sums in zip(
                sheet.reviewers, row_stats(x), resid_count, resid_m2, sheet.run_bias_pairs, corrected.run,
                strict=True)}


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
