"""The learned-weight formula, a ballot's credit, the accuracy interval, and ``aggregate(weighting="learned")``."""

from __future__ import annotations

import itertools
import typing

import numpy as np
import pytest

from council.config.sections import ReviewConfig
from council.ranking.aggregation import aggregate
from council.ranking.reviewer_weights import (
    WEIGHT_FLOOR,
    AccuracyTally,
    ballot_credit,
    learned_weight,
    wilson_interval,
)
from council.ranking.sheet import ScoreSheet
from council.ranking.weights import CONFIG_WEIGHTINGS


def tally(n: int, accuracy: float, chance: float = 1 / 3) -> AccuracyTally:
    return AccuracyTally(n, accuracy * n, chance * n)


def test_no_evidence_and_chance_accuracy_keep_the_default_weight():
    assert learned_weight(AccuracyTally()) == 1.0
    for n in (1, 5, 200):
        assert learned_weight(tally(n, 1 / 3)) == pytest.approx(1.0)
        assert learned_weight(tally(n, 0.5, chance=0.5)) == pytest.approx(1.0)


def test_weight_rises_with_accuracy():
    weights = [learned_weight(tally(20, a / 20)) for a in range(21)]
    assert all(b > a or b == a == WEIGHT_FLOOR for a, b in itertools.pairwise(weights))
    assert weights[-1] > 1.0 > weights[0]


def test_few_samples_shrink_toward_equal():
    perfect = [learned_weight(tally(n, 1.0)) for n in (1, 2, 5, 20, 100)]
    assert all(1.0 < a < b for a, b in itertools.pairwise(perfect))
    wrong = [learned_weight(tally(n, 0.0)) for n in (1, 2, 5)]
    assert all(a > b for a, b in itertools.pairwise(wrong)) and wrong[0] < 1.0


def test_always_wrong_is_floored_not_zero():
    assert learned_weight(tally(500, 0.0)) == WEIGHT_FLOOR > 0


def test_ballot_credit():
    marks = {"A": 2, "B": 1, "C": 1}
    assert ballot_credit({"A": 9, "B": 3, "C": 3}, marks) == (1.0, pytest.approx(1 / 3))
    assert ballot_credit({"A": 3, "B": 9, "C": 3}, marks) == (0.0, pytest.approx(1 / 3))
    # A tie at the reviewer's top earns the share of the tied answers that are best.
    assert ballot_credit({"A": 9, "B": 9, "C": 3}, marks) == (0.5, pytest.approx(1 / 3))
    # Only the answers the reviewer scored count (here its own, A, it did not score).
    assert ballot_credit({"B": 9, "C": 3}, marks) is None
    assert ballot_credit({"A": 9, "B": 3}, {"A": 2, "B": None}) is None
    assert ballot_credit({"A": 9, "B": float("nan"), "C": 1}, marks) == (1.0, 0.5)


def test_wilson_interval_brackets_the_accuracy_and_narrows_with_samples():
    assert wilson_interval(AccuracyTally()) is None
    low5, high5 = wilson_interval(tally(5, 0.8))
    low50, high50 = wilson_interval(tally(50, 0.8))
    assert 0.0 <= low5 < low50 < 0.8 < high50 < high5 <= 1.0
    assert wilson_interval(tally(4, 1.0))[1] == 1.0


def test_the_config_accepts_every_weighting():
    field = ReviewConfig.model_fields["weighting"]
    assert typing.get_args(field.annotation) == CONFIG_WEIGHTINGS
    assert ReviewConfig().weighting == "outlier" and "weighting" not in ReviewConfig().model_dump(exclude_unset=False)


def _sheet() -> ScoreSheet:
    # r1 likes A, r2 and r3 like B.
    x = np.array([[9.0, 3.0, 4.0], [3.0, 9.0, 4.0], [3.0, 9.0, 4.0]])
    return ScoreSheet(("A", "B", "C"), ("r1", "r2", "r3"), x)


def test_aggregate_ranks_with_the_learned_weights():
    assert aggregate(_sheet(), weighting="equal").ranking[0].member == "B"
    outcome = aggregate(_sheet(), weighting="learned", learned={"r1": 5.0, "r2": 0.1, "r3": 0.1})
    assert outcome.ranking[0].member == "A" and outcome.weighting == "learned"
    assert outcome.reviewer_weights == {"r1": 5.0, "r2": 0.1, "r3": 0.1}


def test_aggregate_refuses_learned_weights_missing_a_reviewer():
    with pytest.raises(ValueError, match="every reviewer"):
        aggregate(_sheet(), weighting="learned", learned={"r1": 5.0, "r2": 0.1})
    with pytest.raises(ValueError, match="every reviewer"):
        aggregate(_sheet(), weighting="learned")
