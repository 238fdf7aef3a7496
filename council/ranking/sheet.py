"""The data aggregation works on: one run's score sheet, a reviewer's history, and the outcome.

Frozen dataclasses, checked on construction; no arithmetic beyond that (see
:mod:`council.ranking.aggregation`). A sheet is given as numpy arrays and
read, once, as plain floats (:mod:`council.ranking.grid`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from council.ranking.agreement import BIAS_SUMS, Agreement, BiasFlag, bias_pairs
from council.ranking.confidence import RankConfidence
from council.ranking.grid import Grid, as_grid

RHO2_REF = 0.3
"""Squared z residual against the consensus of a reviewer that gets full weight."""
RELIABILITY_PRIOR = 10.0
"""lambda: pseudo-residuals at ``RHO2_REF``, so a reviewer with little history keeps weight 1."""
MIN_RELIABILITY = 0.05
"""No reviewer's weight falls below this, so one bad streak never silences it."""


def reliability_weight(count: float, m2: float) -> float:
    """A reviewer's weight from ``count`` squared consensus residuals summing to ``m2`` (see
    :mod:`council.ranking.aggregation`); ``MIN_RELIABILITY`` when either is not finite."""
    count, m2 = max(float(count), 0.0), max(float(m2), 0.0)
    if not (math.isfinite(count) and math.isfinite(m2)):
        return MIN_RELIABILITY
    rho2 = (m2 + RELIABILITY_PRIOR * RHO2_REF) / (count + RELIABILITY_PRIOR)
    return float(min(1.0, max(MIN_RELIABILITY, RHO2_REF / rho2)))


@dataclass(frozen=True)
class ScoreSheet:
    """All scores of one council run.

    ``overall`` and each dimension are (reviewers, candidates) floats, NaN
    where there is no score; ``position`` is the 0-based slot in which the
    reviewer saw the candidate (-1 if not shown); ``answer_length`` has one
    entry per candidate. Arrays are coerced on construction; a shape that does
    not match the names raises ``ValueError``.
    """

    candidates: tuple[str, ...]
    reviewers: tuple[str, ...]
    overall: np.ndarray
    dimensions: Mapping[str, np.ndarray] = field(default_factory=dict)
    # Optional: left out, every slot is unknown (-1) and every length NaN.
    position: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=int))
    answer_length: np.ndarray = field(default_factory=lambda: np.empty(0))

    def __post_init__(self) -> None:
        shape = (len(self.reviewers), len(self.candidates))
        given = {name: value is not None and np.size(value) > 0
                 for name, value in (("position", self.position), ("answer_length", self.answer_length))}
        pos = self.position if given["position"] else np.full(shape, -1)
        lengths = self.answer_length if given["answer_length"] else np.full(shape[1], np.nan)
        set_ = object.__setattr__
        set_(self, "candidates", tuple(self.candidates))
        set_(self, "reviewers", tuple(self.reviewers))
        set_(self, "overall", _coerce(self.overall, shape, float, "overall"))
        set_(self, "dimensions", {k: _coerce(v, shape, float, k) for k, v in self.dimensions.items()})
        set_(self, "position", _coerce(pos, shape, int, "position"))
        set_(self, "answer_length", _coerce(lengths, shape[1:], float, "answer_length"))

    @functools.cached_property
    def scores(self) -> Grid:
        """``overall`` as plain floats, one row per reviewer; anything not finite is NaN (no score)."""
        return as_grid(self.overall)

    @functools.cached_property
    def slots(self) -> list[list[int]]:
        """``position`` as plain ints, one row per reviewer."""
        slots: list[list[int]] = self.position.tolist()
        return slots

    @functools.cached_property
    def lengths(self) -> list[float]:
        """``answer_length`` as plain floats (NaN where unknown)."""
        lengths: list[float] = self.answer_length.tolist()
        return lengths

    @functools.cached_property
    def run_bias_pairs(self) -> list[list[float]]:
        """This run's (slot, residual) and (length, residual) sums, one row per reviewer.

        Computed once per sheet: the ranking and the history update both need
        them (kept because a cached property costs no clarity).
        """
        return bias_pairs(self.slots, self.lengths, self.scores)

    @functools.cached_property
    def own_columns(self) -> list[int]:
        """For each reviewer, the column of the answer it wrote, or -1.

        A member reviews under its own name, so its answer is the candidate of
        the same name; with ``review.include_self`` off that cell stays NaN.
        """
        column = {name: index for index, name in enumerate(self.candidates)}
        return [column.get(name, -1) for name in self.reviewers]


def _coerce(value: object, shape: tuple[int, ...], dtype: type, what: str) -> np.ndarray:
    # An exact shape check: a transposed (candidates x reviewers) array must not slip through a reshape.
    array: np.ndarray = np.asarray(value, dtype=dtype)
    if array.shape != shape and not (array.size == 0 and 0 in shape):
        raise ValueError(f"{what} has shape {array.shape}, expected {shape}")
    return array.reshape(shape)


@dataclass(frozen=True)
class ReviewerHistory:
    """Running statistics of one reviewer's overall scores, persisted across runs.

    ``count``, ``mean`` and ``m2`` (Welford's sum of squared deviations) describe
    the scores; ``resid_count`` and ``resid_m2`` count and sum the squared
    residuals of the reviewer's z-scores against the leave-one-out consensus;
    ``bias`` holds the running sums behind pooled bias flags (see
    :mod:`council.ranking.agreement`) and, after them, the self-preference
    sums (:mod:`council.ranking.self_preference`); a shorter stored tuple
    reads its missing sums as 0.
    """

    count: int = 0
    mean: float = 0.0
    m2: float = 0.0
    resid_count: int = 0
    resid_m2: float = 0.0
    bias: tuple[float, ...] = (0.0,) * BIAS_SUMS

    @property
    def variance(self) -> float:
        """Sample variance of the scores seen; 0.0 with fewer than two."""
        return self.m2 / (self.count - 1) if self.count > 1 else 0.0

    @property
    def std(self) -> float:
        """Sample standard deviation of the scores seen."""
        return float(np.sqrt(max(self.variance, 0.0)))

    @property
    def reliability(self) -> float:
        """Weight in [MIN_RELIABILITY, 1]: 1 with little history, lower the more the reviewer
        strays from the consensus (see the module docstring)."""
        return reliability_weight(self.resid_count, self.resid_m2)


@dataclass(frozen=True)
class CandidateScore:
    """One candidate's place in the ranking; ``dimensions`` holds per-dimension raw means."""

    member: str
    rank: int
    score: float
    raw_mean: float
    n_reviews: int
    dimensions: dict[str, float]


@dataclass(frozen=True)
class HistoryIncrement:
    """What one run adds to one reviewer's statistics, folded into whatever is stored when it is written.

    Scores fold in exactly whatever came before (Chan's merge of two
    groups); the residuals are those of the z-scores the run was ranked
    with (after the self-bonus correction); bias sums add, ``BIAS_SUMS``
    of them: position and length pairs, then the self-differences (a
    shorter tuple is padded with 0). So increments from runs on several
    replicas fold in any order to the same statistics, and the store folds them in with
    plain arithmetic (:func:`fold_increment`) inside its transaction.
    """

    count: float
    mean: float
    m2: float
    resid_count: float
    resid_m2: float
    bias: tuple[float, ...]


@dataclass(frozen=True)
class Aggregate:
    """The outcome of :func:`aggregate`; ``ranking`` is best first."""

    method: str
    ranking: list[CandidateScore]
    agreement: Agreement
    bias_flags: list[BiasFlag]
    reviewer_weights: dict[str, float]
    normalized: bool
    confidence: RankConfidence | None = None
    #: Each reviewer's estimated self-bonus (z units, subtracted from its own answer's score), for
    #: the reviewers of the sheet that have scored their own answer in this run or before.
    self_bonus: dict[str, float] = field(default_factory=dict)
    #: What this run adds to each reviewer's stored statistics (see :class:`HistoryIncrement`).
    increments: dict[str, HistoryIncrement] = field(default_factory=dict)
    #: The scheme behind ``reviewer_weights`` (:mod:`council.ranking.weights`): "equal" whenever the
    #: method does not weight reviewers (every method but a normalized ``calibrated``).
    weighting: str = "equal"
