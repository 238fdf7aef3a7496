"""How sure a ranking is: rank probabilities from resampling reviewers, on hand-made score sheets."""

from __future__ import annotations

import numpy as np
import pytest

from council.ranking.aggregation import aggregate
from council.ranking.confidence import rank_confidence
from council.ranking.sheet import ReviewerHistory, ScoreSheet

NAMES = ("a", "b", "c", "d")


def sheet(rows: list[list[float]], candidates: tuple[str, ...] = NAMES) -> ScoreSheet:
    return ScoreSheet(candidates=candidates, reviewers=tuple(f"r{i}" for i in range(len(rows))),
                      overall=np.array(rows, dtype=float))


def test_unanimous_reviewers_make_the_top_answer_near_certain():
    rows = [[0.95, 0.6, 0.4, 0.2], [0.9, 0.55, 0.35, 0.15], [0.92, 0.62, 0.38, 0.1], [0.97, 0.58, 0.42, 0.2]]
    confidence = aggregate(sheet(rows)).confidence
    assert confidence is not None
    assert confidence.top_confidence >= 0.97
    assert confidence.tied_with_top == []
    assert confidence.rank_probabilities["a"][0] == confidence.top_confidence
    assert confidence.rank_probabilities["d"][3] >= 0.9


def test_two_indistinguishable_answers_are_about_even_and_tied():
    # a and b trade places between reviewers, symmetrically; c is clearly last.
    rows = [[0.8, 0.7, 0.2], [0.7, 0.8, 0.25], [0.8, 0.7, 0.3], [0.7, 0.8, 0.2]]
    outcome = aggregate(sheet(rows, ("a", "b", "c")))
    confidence = outcome.confidence
    assert confidence is not None
    top = outcome.ranking[0].member
    other = "b" if top == "a" else "a"
    assert 0.4 <= confidence.top_confidence <= 0.6
    assert confidence.tied_with_top == [other]
    assert 0.4 <= confidence.rank_probabilities[other][0] <= 0.6
    assert confidence.rank_probabilities["c"][2] >= 0.95


def test_each_answer_takes_each_rank_with_probabilities_that_add_up():
    rng = np.random.default_rng(3)
    confidence = aggregate(sheet(rng.random((5, 4)).tolist())).confidence
    assert confidence is not None
    table = np.array([confidence.rank_probabilities[name] for name in NAMES])
    assert np.allclose(table.sum(axis=0), 1.0, atol=1e-3) and np.allclose(table.sum(axis=1), 1.0, atol=1e-3)


def test_the_same_sheet_gives_the_same_figures():
    rows = [[0.6, 0.5, 0.55, 0.4], [0.5, 0.6, 0.45, 0.5], [0.55, 0.52, 0.6, 0.3]]
    assert aggregate(sheet(rows)).confidence == aggregate(sheet(rows)).confidence


def test_a_noisy_reviewer_history_lowers_the_confidence():
    rows = [[0.8, 0.6, 0.4, 0.2], [0.75, 0.65, 0.4, 0.25], [0.7, 0.6, 0.5, 0.2]]
    steady = {f"r{i}": ReviewerHistory(50, 0.5, 2.0, 50, 2.0) for i in range(3)}
    noisy = {f"r{i}": ReviewerHistory(50, 0.5, 2.0, 50, 200.0) for i in range(3)}
    sure = aggregate(sheet(rows), steady).confidence
    unsure = aggregate(sheet(rows), noisy).confidence
    assert sure is not None and unsure is not None
    assert sure.top_confidence > unsure.top_confidence + 0.1


def test_nothing_to_resample():
    single = rank_confidence(["a"], np.array([[0.5]]), np.ones(1), np.ones(1))
    assert single.top_confidence == 1.0 and single.rank_probabilities == {"a": [1.0]}
    unreviewed = rank_confidence(["a", "b"], np.empty((0, 2)), np.ones(0), np.ones(0))
    assert unreviewed.top_confidence == 0.0 and unreviewed.tied_with_top == []


@pytest.mark.parametrize(("threshold", "tied"), [(0.6, []), (0.9, ["b"])])
def test_the_tie_threshold_decides_what_counts_as_a_tie(threshold, tied):
    # a leads b in three reviews of four: first in about three resamples of four.
    rows = [[0.8, 0.7, 0.2], [0.75, 0.72, 0.3], [0.8, 0.74, 0.25], [0.7, 0.71, 0.2]]
    confidence = aggregate(sheet(rows, ("a", "b", "c")), tie_threshold=threshold).confidence
    assert confidence is not None
    assert 0.65 <= confidence.top_confidence <= 0.85
    assert confidence.tied_with_top == tied


def test_the_figures_are_fixed_across_releases():
    # The draws come from a constant seed, so a stored run reproduces its figures: these were
    # computed before the resampling was reorganised (pick-major draw table) and must not move. They
    # were computed with the reliability weights, the default then (the weights are part of the draw).
    nan = float("nan")
    self_excluded = [[nan, 0.62, 0.55, 0.4], [0.58, nan, 0.47, 0.5], [0.6, 0.52, nan, 0.3], [0.57, 0.61, 0.5, nan]]
    outcome = aggregate(ScoreSheet(NAMES, NAMES, np.array(self_excluded)), weighting="reliability")
    assert [c.member for c in outcome.ranking] == ["b", "a", "c", "d"]
    assert outcome.confidence is not None
    assert outcome.confidence.rank_probabilities == {
        "b": [0.572, 0.396, 0.03, 0.002], "a": [0.424, 0.52, 0.046, 0.01],
        "c": [0.004, 0.066, 0.764, 0.166], "d": [0.0, 0.018, 0.16, 0.822]}
    assert (outcome.confidence.top_confidence, outcome.confidence.tied_with_top) == (0.572, ["a"])
    complete = [[0.6, 0.5, 0.55, 0.4], [0.5, 0.6, 0.45, 0.5], [0.55, 0.52, 0.6, 0.3]]
    confidence = aggregate(sheet(complete), weighting="reliability").confidence
    assert confidence is not None
    assert confidence.rank_probabilities == {
        "a": [0.436, 0.328, 0.212, 0.024], "c": [0.272, 0.336, 0.324, 0.068],
        "b": [0.288, 0.31, 0.396, 0.006], "d": [0.004, 0.026, 0.068, 0.902]}
    assert (confidence.top_confidence, confidence.tied_with_top) == (0.436, [])


def test_a_reviewer_whose_noise_is_not_a_number_weighs_nothing():
    scores = np.array([[1.0, 0.5, -0.5, -1.0], [np.nan, 1.0, 0.0, -1.0], [0.8, np.nan, 0.2, -0.9]])
    weights, noise = np.ones(3), np.array([0.4, np.inf, 0.5])
    reversed_middle = scores.copy()
    reversed_middle[1] = [np.nan, -1.0, 0.0, 1.0]
    first = rank_confidence(list("abcd"), scores, weights, noise)
    second = rank_confidence(list("abcd"), reversed_middle, weights, noise)
    assert first == second, "the middle reviewer's scores count for nothing"
    assert all(sum(p) == pytest.approx(1.0) for p in first.rank_probabilities.values())
    assert 0.0 < first.top_confidence <= 1.0


def test_big_sheets_keep_no_draw_table_and_small_ones_keep_a_bounded_few():
    """A ``council rank`` file of big items in many shapes must not hold a table per shape (they ran to
    gigabytes); the figures stay the same run after run either way."""
    from council.ranking import confidence as module

    rng = np.random.default_rng(7)
    big = rng.random((5, module.CACHED_CELLS // 5 + 1))  # just over the cached size
    names = [f"c{i}" for i in range(big.shape[1])]
    before = module._cached_draw_table.cache_info()
    first = rank_confidence(names, big, np.ones(5), np.full(5, 0.3))
    assert module._cached_draw_table.cache_info().currsize == before.currsize
    assert rank_confidence(names, big, np.ones(5), np.full(5, 0.3)) == first
    for width in range(2, module.CACHED_SHAPES + 12):
        rank_confidence([f"c{i}" for i in range(width)], rng.random((2, width)), np.ones(2), np.full(2, 0.3))
    assert module._cached_draw_table.cache_info().currsize <= module.CACHED_SHAPES
