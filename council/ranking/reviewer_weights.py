"""Reviewer weights learned from evaluation runs with right answers: tallies, the weight formula, intervals.

A reviewer's ballot on one sample is *right* when the answer it scored
highest is one the evaluator judged best against the reference answer
(see :func:`ballot_credit`). Over ``n`` such samples a reviewer has
``correct`` right ballots (fractional where it tied its own top) and
``chance``, the sum of what a reviewer scoring at random would have got
(the share of best answers among those it scored).

The weight is the log-odds of a smoothed accuracy, measured against chance
and moved up so that chance lands on the default weight 1::

    p0 = chance / n                                      (mean chance rate)
    p  = (correct + PRIOR_SAMPLES * p0) / (n + PRIOR_SAMPLES)
    w  = max(WEIGHT_FLOOR, 1 + ln(p / (1 - p)) - ln(p0 / (1 - p0)))

Why this shape: for independent judges picking among options, the vote
that maximises the chance of a right majority weighs each judge by the
log-odds of its accuracy over chance, so log-odds is the natural scale. The
Beta prior (``PRIOR_SAMPLES`` pseudo-samples at chance) pulls a reviewer
with few samples toward chance, that is toward weight 1: two lucky samples
do not make a reviewer dominate. Measured against chance and shifted by 1,
a reviewer that is no better than a coin keeps the weight every reviewer
has under ``equal`` (it is not silenced on thin evidence), a better one
gains, a worse one loses, down to ``WEIGHT_FLOOR`` (never 0: a reviewer
wrong on the eval set may still be right on other questions).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass

PRIOR_SAMPLES = 4.0
"""Strength of the Beta prior: pseudo-samples at chance added to every reviewer's tally."""
WEIGHT_FLOOR = 0.1
"""The least learned weight: a reviewer that was always wrong still counts a little."""
_EDGE = 1e-9


@dataclass(frozen=True)
class AccuracyTally:
    """One reviewer's ballots over the samples of some evaluation runs."""

    samples: int = 0
    correct: float = 0.0
    chance: float = 0.0

    def __add__(self, other: AccuracyTally) -> AccuracyTally:
        return AccuracyTally(self.samples + other.samples, self.correct + other.correct, self.chance + other.chance)

    @property
    def accuracy(self) -> float | None:
        """The share of right ballots (None with no sample)."""
        return self.correct / self.samples if self.samples else None

    @property
    def chance_rate(self) -> float | None:
        """What a random ballot would have scored on the same samples (None with no sample)."""
        return self.chance / self.samples if self.samples else None


def ballot_credit(scores: Mapping[str, float], accuracy: Mapping[str, int | None]) -> tuple[float, float] | None:
    """``(credit, chance)`` of one ballot, or None when the sample cannot tell right from wrong.

    ``scores`` are the reviewer's overall scores by candidate, ``accuracy``
    the evaluator's accuracy score of each candidate against the reference.
    The best answers are those with the highest accuracy among the ones the
    reviewer scored; the credit is the share of the reviewer's top-scored
    answers that are best (1 or 0 unless it tied its top), the chance the
    share of best answers among those it scored. A sample where every scored
    answer got the same accuracy, or one lacks a verdict, says nothing.
    """
    scored = {c: s for c, s in scores.items() if math.isfinite(s) and c in accuracy}
    if len(scored) < 2 or any(accuracy[c] is None for c in scored):
        return None
    marks = {c: int(accuracy[c] or 0) for c in scored}
    best_mark = max(marks.values())
    if min(marks.values()) == best_mark:
        return None
    best = {c for c, m in marks.items() if m == best_mark}
    top_score = max(scored.values())
    top = [c for c, s in scored.items() if s == top_score]
    return sum(c in best for c in top) / len(top), len(best) / len(scored)


def learned_weight(tally: AccuracyTally, prior_samples: float = PRIOR_SAMPLES,
                   floor: float = WEIGHT_FLOOR) -> float:
    """The weight of a reviewer with ``tally`` (module docstring); 1 with no sample."""
    if tally.samples <= 0:
        return 1.0
    p0 = min(max(tally.chance / tally.samples, _EDGE), 1 - _EDGE)
    p = (tally.correct + prior_samples * p0) / (tally.samples + prior_samples)
    p = min(max(p, _EDGE), 1 - _EDGE)
    return max(floor, 1.0 + math.log(p / (1 - p)) - math.log(p0 / (1 - p0)))


def wilson_interval(tally: AccuracyTally, z: float = 1.96) -> tuple[float, float] | None:
    """The 95% Wilson score interval of the accuracy (None with no sample)."""
    n = tally.samples
    if n <= 0:
        return None
    p = min(max(tally.correct / n, 0.0), 1.0)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def missing_reviewers(reviewers: Collection[str], learned: Mapping[str, float]) -> list[str]:
    """The reviewers without a learned weight, sorted."""
    return sorted(name for name in reviewers if name not in learned)
