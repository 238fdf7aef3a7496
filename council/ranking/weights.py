"""How much each reviewer counts in the calibrated mean: the weighting schemes and the shipped default.

A reviewer's only evidence about itself, without the right answers, is how
far its calibrated z-scores stray from the other reviewers' (its consensus
residuals, summed across runs in its history). Reading that as accuracy
rewards conformity: when several reviewers share a bias (one model family,
reward models trained on the same data, a common taste for long answers),
the one strong, independent reviewer disagrees with the crowd and looks
worst. From the scores alone the two stories cannot be told apart (the
residual covariances are the same), so the schemes differ in how much they
trust the residuals:

``equal``
    Every reviewer counts 1.
``reliability``
    The default until issue 34: ``clip(RHO2_REF / rho2_r, 0.05, 1)``,
    where ``rho2_r`` is the reviewer's mean squared residual shrunk toward
    ``RHO2_REF`` (:func:`council.ranking.sheet.reliability_weight`). Any
    reviewer noisier than the reference loses weight.
``outlier`` (default)
    Equal weights unless a reviewer disagrees with the others about as much
    as a reviewer with almost no signal does: ``w_r = clip(OUTLIER_RHO2 /
    rho2_r, OUTLIER_FLOOR, 1)``, the same shrunk ``rho2_r`` as
    ``reliability`` but a threshold three times higher. On the calibrated z
    scale (each reviewer's scores have variance about 1) a residual variance
    of 0.9 against the others' mean means the reviewer shares little with
    them. A careless or broken judge gets there; a strong judge outvoted by
    a crowd that shares a bias did not, in the simulations, so it keeps
    weight 1 and the crowd's shared error is not compounded.

``learned``
    Weights measured on evaluation runs with right answers (``council
    calibrate``), read from the store by the council's ranking stage and
    given to the aggregation (:mod:`council.ranking.reviewer_weights`); the
    schemes above are computed here from the residuals alone.

``docs/ranking.md`` shows the simulations behind the choice
(``scripts/simulate_juries.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from council.ranking.sheet import RELIABILITY_PRIOR, RHO2_REF, reliability_weight

WEIGHTINGS = ("outlier", "equal", "reliability")
"""The weighting schemes, the default first."""
LEARNED = "learned"
"""The scheme whose weights come from ``council calibrate`` (not from the residuals)."""
CONFIG_WEIGHTINGS = (*WEIGHTINGS, LEARNED)
"""What ``review.weighting`` accepts."""
DEFAULT_WEIGHTING = "outlier"
OUTLIER_RHO2 = 0.9
"""A reviewer keeps full weight until its (shrunk) mean squared consensus residual passes this."""
OUTLIER_FLOOR = 0.1
"""The least weight the ``outlier`` scheme gives: a wrongly suspected reviewer still counts."""


def residual_variance(count: float, m2: float) -> float:
    """A reviewer's mean squared consensus residual, shrunk toward ``RHO2_REF`` (inf when not finite)."""
    count, m2 = max(float(count), 0.0), max(float(m2), 0.0)
    if not (math.isfinite(count) and math.isfinite(m2)):
        return math.inf
    return (m2 + RELIABILITY_PRIOR * RHO2_REF) / (count + RELIABILITY_PRIOR)


def reviewer_weights(scheme: str, resid_count: Sequence[float], resid_m2: Sequence[float]) -> list[float]:
    """Each reviewer's weight under ``scheme`` from its residual count and sum of squares (history and
    this run). An unknown scheme raises ``ValueError``."""
    if scheme not in WEIGHTINGS:
        raise ValueError(f"unknown weighting {scheme!r}; choose one of {', '.join(WEIGHTINGS)}")
    if scheme == "equal":
        return [1.0] * len(resid_count)
    if scheme == "reliability":
        return [reliability_weight(c, m) for c, m in zip(resid_count, resid_m2, strict=True)]
    return [min(1.0, max(OUTLIER_FLOOR, OUTLIER_RHO2 / v)) if math.isfinite(v) else OUTLIER_FLOOR
            for v in (residual_variance(c, m) for c, m in zip(resid_count, resid_m2, strict=True))]
