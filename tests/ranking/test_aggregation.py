"""Aggregation of review scores: hand-computed cases, degraded councils and property tests."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from council.ranking import aggregation as agg
from council.ranking.aggregation import (
    METHODS,
    ReviewerHistory,
    ScoreSheet,
    aggregate,
    kendall_tau,
    update_history,
    z_scores,
)

NAN = float("nan")


def sheet(scores, candidates=None, reviewers=None, **kwargs) -> ScoreSheet:
    """A sheet from a nested list; names default to A, B, ... and r1, r2, ..."""
    x = np.array(scores, dtype=float).reshape(len(scores), -1) if len(scores) else np.zeros((0, 0))
    candidates = candidates or tuple("ABCDEFGH"[: x.shape[1]])
    reviewers = reviewers or tuple(f"r{i + 1}" for i in range(x.shape[0]))
    return ScoreSheet(candidates, reviewers, x, **kwargs)


def by_member(result):
    return {c.member: c for c in result.ranking}


# The 3x3 case below is computed by hand with the shipped constants.
def test_shipped_constants_used_by_the_hand_computations():
    assert (agg.PRIOR_SCORES, agg.RHO2_REF, agg.RELIABILITY_PRIOR) == (4.0, 0.3, 10.0)


HAND = [[8, 6, 4], [5, 7, 3], [8, 8, 5]]  # rows r1..r3, columns A, B, C


def test_calibrated_3x3_by_hand():
    # Run prior: m0 = 54 / 9 = 6; squared deviations from each row mean: 8, 8, 6 -> v0 = 22 / 6 = 11/3.
    # No history, n = 3, kappa = 4:
    #   mu    = (3 * row_mean + 4 * 6) / 7       -> r1 6, r2 39/7, r3 45/7
    #   sigma2 = (SS + 4 * 11/3) / (2 + 4)         -> r1 34/9, r2 34/9, r3 31/9
    # z: r1 ( 6, 0, -6) / sqrt(34)              = ( 1.02899,  0,       -1.02899)
    #    r2 (-12, 30, -54) / (7 sqrt(34))       = (-0.29400,  0.73499, -1.32299)
    #    r3 ( 33, 33, -30) / (7 sqrt(31))       = ( 0.84671,  0.84671, -0.76974)
    z = z_scores(sheet(HAND))
    assert z == pytest.approx(np.array([[1.02899, 0, -1.02899], [-0.29400, 0.73499, -1.32299],
                                        [0.84671, 0.84671, -0.76974]]), abs=1e-5)
    # Residuals against the mean of the other two reviewers of the same answer:
    #   r1: 0.75263, -0.79086, 0.01738 -> S = 1.19221
    #   r2: -1.23186, 0.31164, -0.42363 -> S = 1.79403
    #   r3: 0.47922, 0.47922, 0.40626 -> S = 0.62433
    # rho2 = (S + 10 * 0.3) / (3 + 10); w = min(1, 0.3 / rho2) = min(1, 3.9 / (S + 3))
    #   -> r1 0.93030, r2 0.81351, r3 1.07608 capped to 1.
    result = aggregate(sheet(HAND), weighting="reliability")
    assert result.weighting == "reliability"
    assert result.reviewer_weights == pytest.approx({"r1": 0.93030, "r2": 0.81351, "r3": 1.0}, abs=1e-4)
    # Weighted means, total weight 2.74381:
    #   A = (0.93030 * 1.02899 - 0.81351 * 0.29400 + 0.84671) / 2.74381 =  0.57030
    #   B = (0.81351 * 0.73499 + 0.84671) / 2.74381                     =  0.52651
    #   C = (-0.93030 * 1.02899 - 0.81351 * 1.32299 - 0.76974) / 2.74381 = -1.02167
    assert [c.member for c in result.ranking] == ["A", "B", "C"]
    assert [c.rank for c in result.ranking] == [1, 2, 3]
    assert [c.score for c in result.ranking] == pytest.approx([0.57030, 0.52651, -1.02167], abs=1e-4)
    assert [c.raw_mean for c in result.ranking] == pytest.approx([7.0, 7.0, 4.0])
    assert [c.n_reviews for c in result.ranking] == [3, 3, 3]
    assert result.normalized is True
    assert result.method == "calibrated"
    # The default weighting cuts no one here (every rho2 is below 0.9): the plain mean of the z above.
    default = aggregate(sheet(HAND))
    assert default.weighting == "outlier" and set(default.reviewer_weights.values()) == {1.0}
    assert [c.score for c in default.ranking] == pytest.approx([(1.02899 - 0.29400 + 0.84671) / 3,
                                                               (0.73499 + 0.84671) / 3,
                                                               (-1.02899 - 1.32299 - 0.76974) / 3], abs=1e-4)


def test_agreement_3x3_by_hand():
    # Ranks (ties averaged): r1 (3, 2, 1), r2 (2, 3, 1), r3 (2.5, 2.5, 1); column sums 7.5, 7.5, 3.
    # S = (7.5 - 6)^2 * 2 + (3 - 6)^2 = 13.5; r3's tie group of 2 gives T = 2^3 - 2 = 6.
    # W = 12 S / (m^2 (n^3 - n) - m T) = 162 / (9 * 24 - 18) = 9/11.
    # tau-b: r1~r2 (2 concordant, 1 discordant) = 1/3; r1~r3 and r2~r3 = 2 / sqrt(3 * 2) each.
    agreement = aggregate(sheet(HAND)).agreement
    assert agreement.kendall_w == pytest.approx(9 / 11)
    assert agreement.mean_pairwise_tau == pytest.approx((1 / 3 + 4 / math.sqrt(6)) / 3)
    assert agreement.statistic == "kendall_w"
    assert agreement.n_reviewers == 3


def test_history_update_3x3_by_hand():
    history = update_history({}, sheet(HAND))
    r1 = history["r1"]
    assert (r1.count, r1.mean, r1.m2, r1.resid_count) == (3, 6.0, 8.0, 3)
    assert r1.resid_m2 == pytest.approx(1.19221, abs=1e-4)
    assert history["r3"].m2 == 6.0 and history["r3"].mean == 7.0
    assert history["r2"].resid_m2 == pytest.approx(1.79403, abs=1e-4)


def test_other_methods_3x3_by_hand():
    x = sheet(HAND)
    raw = aggregate(x, method="raw_mean")
    # A and B tie at 7.0; the name decides.
    assert [(c.member, c.score) for c in raw.ranking] == [("A", 7.0), ("B", 7.0), ("C", 4.0)]
    assert raw.normalized is False and set(raw.reviewer_weights.values()) == {1.0}
    # per-question z, population std: r1 (1.22474, 0, -1.22474), r2 (0, 1.22474, -1.22474),
    # r3 (0.70711, 0.70711, -1.41421) -> A 0.64395, B 0.64395, C -1.28790. A tie: raw means tie too, name.
    pq = aggregate(x, method="per_question_z")
    assert [c.score for c in pq.ranking] == pytest.approx([0.64395, 0.64395, -1.28790], abs=1e-5)
    assert [c.member for c in pq.ranking] == ["A", "B", "C"]
    # Borda, (wins + ties / 2) / 2: r1 (1, .5, 0), r2 (.5, 1, 0), r3 (.75, .75, 0) -> A .75, B .75, C 0.
    borda = aggregate(x, method="borda")
    assert [c.score for c in borda.ranking] == pytest.approx([0.75, 0.75, 0.0])


def test_harsh_and_generous_reviewers_with_the_same_order_contribute_the_same_z():
    generous = [9, 7, 6, 8]
    harsh = [s - 3 for s in generous]
    x = sheet([generous, harsh, [5, 6, 7, 4]])
    pq = z_scores(x, method="per_question_z")
    assert pq[0] == pytest.approx(pq[1], abs=1e-12)
    # Calibrated: with equally long, equally spread, equally shifted histories the only gap left is the
    # prior's pull, 3 * kappa / ((n + kappa) * sigma), which vanishes as the history grows.
    n = 100_000
    history = {"r1": ReviewerHistory(n, 7.0, 2.0 * (n - 1)), "r2": ReviewerHistory(n, 4.0, 2.0 * (n - 1))}
    z = z_scores(x, history)
    assert z[0] == pytest.approx(z[1], abs=1e-3)
    sigma = math.sqrt((2.0 * (n - 1) + 5.0 + 4 * 17 / 9) / (n + 3 + 4))  # m2 + this row's SS, v0 = 17/9
    assert (z[0] - z[1]) == pytest.approx(np.full(4, 3 * 4 / ((n + 4 + 4) * sigma)), rel=1e-3)


def test_zero_spread_reviewer_contributes_zero():
    x = sheet([[7, 7, 7], [9, 5, 3], [8, 6, 2]])
    for method in ("calibrated", "per_question_z"):
        assert z_scores(x, method=method)[0] == pytest.approx([0.0, 0.0, 0.0])
    # A history that never varied either keeps z at 0 ...
    assert z_scores(x, {"r1": ReviewerHistory(count=40, mean=7.0, m2=0.0)})[0] == pytest.approx([0, 0, 0])
    # ... but a constant row from a reviewer who usually spreads its scores says "all of these are good".
    z = z_scores(x, {"r1": ReviewerHistory(count=40, mean=5.0, m2=4.0 * 39)})
    assert (z[0] > 0.5).all()


def test_large_history_sets_mean_and_std():
    n = 1_000_000
    history = {"r1": ReviewerHistory(count=n, mean=5.0, m2=4.0 * (n - 1))}  # std 2
    z = z_scores(sheet([[9, 5, 3], [1, 2, 3]]), history)
    assert z[0] == pytest.approx([2.0, 0.0, -1.0], abs=1e-4)


def test_no_history_shrinks_toward_the_run_not_the_row():
    # Without history the reviewer keeps 4 / (3 + 4) of the run's mean: its offset is only partly removed.
    z = z_scores(sheet([[9, 8, 7], [3, 2, 1]]))
    assert z[0].mean() > 0 > z[1].mean()


def test_tie_break_by_raw_mean_then_name():
    # per-question z: r1 gives A +1, C -1; r2 gives B +1, C -1. A and B tie at +1.
    tied = sheet([[9, NAN, 1], [NAN, 5, 3]])
    result = aggregate(tied, method="per_question_z")
    assert [(c.member, c.score) for c in result.ranking] == [("A", 1.0), ("B", 1.0), ("C", -1.0)]
    swapped = sheet([[5, NAN, 3], [NAN, 9, 1]])
    assert [c.member for c in aggregate(swapped, method="per_question_z").ranking] == ["B", "A", "C"]
    # Same score and raw mean: alphabetical, whatever the column order.
    twins = sheet([[6, 6, 2]], candidates=("zed", "amy", "bob"))
    assert [c.member for c in aggregate(twins, method="raw_mean").ranking] == ["amy", "zed", "bob"]


def test_two_candidates_are_calibrated_with_history():
    # A judge whose scores span -20..20 against two that span -2..2: raw means follow the wide one.
    x = sheet([[-5, 5], [1, -1], [1, -1]], reviewers=("wide", "n1", "n2"))
    assert [c.member for c in aggregate(x).ranking] == ["B", "A"]  # no history: raw means, as before
    n = 400
    history = {"wide": ReviewerHistory(n, 0.0, 100.0 * (n - 1)), "n1": ReviewerHistory(n, 0.0, 1.0 * (n - 1)),
               "n2": ReviewerHistory(n, 0.0, 1.0 * (n - 1))}
    result = aggregate(x, history)
    assert result.normalized is True and result.weighting == "outlier"
    assert [c.member for c in result.ranking] == ["A", "B"]
    # Each judge's z: wide -0.5 / +0.5, narrow about +-0.92 (the run's pooled variance, 18, pulls their
    # sigma up: (399 + 2 + 4 * 18) / 404 = 1.17).
    assert by_member(result)["A"].score == pytest.approx((-0.5 + 2 / math.sqrt(473 / 404)) / 3, abs=0.01)
    # One reviewer with history is enough; the others are calibrated with the run's prior.
    partial = aggregate(x, {"wide": history["wide"]})
    assert partial.normalized is True
    assert aggregate(x, history, method="raw_mean").normalized is False


def test_two_candidates_without_history_use_raw_means():
    x = sheet([[8, NAN], [NAN, 6], [3, 9]])
    for method in ("calibrated", "per_question_z", "raw_mean"):
        result = aggregate(x, method=method)
        assert result.normalized is False
        assert [(c.member, c.score, c.n_reviews) for c in result.ranking] == [("B", 7.5, 2), ("A", 5.5, 2)]
        assert set(result.reviewer_weights.values()) == {1.0}


def test_one_candidate_and_empty_sheets():
    one = aggregate(sheet([[NAN]]))
    assert [(c.member, c.rank, c.score, c.n_reviews) for c in one.ranking] == [("A", 1, 0.0, 0)]
    assert math.isnan(one.ranking[0].raw_mean)
    assert aggregate(sheet([[7], [9]])).ranking[0].score == 8.0
    nobody = aggregate(ScoreSheet(("c", "a", "b"), (), np.zeros((0, 3))))
    assert [(c.member, c.rank, c.score, c.n_reviews) for c in nobody.ranking] == [("a", 1, 0.0, 0), ("b", 2, 0.0, 0),
                                                                                   ("c", 3, 0.0, 0)]
    assert nobody.agreement.statistic == "none" and nobody.reviewer_weights == {}
    all_nan = aggregate(sheet([[NAN] * 3] * 3, candidates=("c", "b", "a")))
    assert [c.member for c in all_nan.ranking] == ["a", "b", "c"]
    assert all(c.score == 0.0 and math.isnan(c.raw_mean) for c in all_nan.ranking)
    assert aggregate(ScoreSheet((), (), np.zeros((0, 0)))).ranking == []


def test_unreviewed_candidates_come_last():
    result = aggregate(sheet([[NAN, 2, 9, 5], [NAN, 3, 8, 4]]))
    assert [c.member for c in result.ranking] == ["C", "D", "B", "A"]
    assert result.ranking[-1].score == 0.0 and result.ranking[-1].n_reviews == 0


def test_kendall_w_perfect_and_reversed():
    same = aggregate(sheet([[9, 6, 3, 1], [7, 6, 5, 4], [10, 9, 8, 2]])).agreement
    assert same.kendall_w == pytest.approx(1.0) and same.mean_pairwise_tau == pytest.approx(1.0)
    reversed_ = aggregate(sheet([[1, 2, 3, 4], [4, 3, 2, 1]])).agreement
    assert reversed_.kendall_w == pytest.approx(0.0) and reversed_.mean_pairwise_tau == pytest.approx(-1.0)


def test_agreement_without_self_reviews_uses_pairwise_tau():
    # Each pair of reviewers shares two answers: (a,b) +1, (a,c) -1, (a,d) +1, (b,c) +1, (b,d) +1, (c,d) +1.
    names = ("a", "b", "c", "d")
    x = sheet([[NAN, 9, 5, 1], [8, NAN, 6, 2], [7, 3, NAN, 4], [6, 5, 4, NAN]], names, names)
    agreement = aggregate(x).agreement
    assert agreement.kendall_w is None
    assert agreement.mean_pairwise_tau == pytest.approx(4 / 6)
    assert agreement.statistic == "mean_pairwise_tau" and agreement.n_reviewers == 4
    three = ("a", "b", "c")  # each pair shares only one answer: nothing to compare
    sparse = aggregate(sheet([[NAN, 9, 5], [8, NAN, 6], [7, 3, NAN]], three, three)).agreement
    assert (sparse.kendall_w, sparse.mean_pairwise_tau, sparse.statistic) == (None, None, "none")


def test_kendall_tau():
    assert kendall_tau([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert kendall_tau([8, 6, 4], [8, 8, 5]) == pytest.approx(2 / math.sqrt(6))  # tau-b with a tie
    assert math.isnan(kendall_tau([1, 2, 3], [5, 5, 5]))
    assert math.isnan(kendall_tau([], []))
    with pytest.raises(ValueError):
        kendall_tau([1, 2], [1, 2, 3])


def test_borda_normalizes_by_items_ranked():
    # r1 ranks three: A beats both (1.0), B and C tie (0.5 / 2 = 0.25 each); r2 ranked only C: 0.5.
    result = aggregate(sheet([[8, 6, 6], [NAN, NAN, 4]]), method="borda")
    assert {c.member: c.score for c in result.ranking} == pytest.approx({"A": 1.0, "B": 0.25, "C": 0.375})
    assert result.normalized is False


def test_reliability():
    assert ReviewerHistory().reliability == 1.0
    # rho2 = (90 + 10 * 0.3) / (90 + 10) = 0.93 -> 0.3 / 0.93
    assert ReviewerHistory(resid_count=90, resid_m2=90.0).reliability == pytest.approx(0.3 / 0.93)
    assert ReviewerHistory(resid_count=90, resid_m2=9.0).reliability == 1.0
    assert ReviewerHistory(resid_count=10, resid_m2=1e9).reliability == agg.MIN_RELIABILITY
    assert ReviewerHistory(count=3, m2=8.0).variance == 4.0 and ReviewerHistory(count=3, m2=8.0).std == 2.0
    assert ReviewerHistory(count=1, m2=0.0).variance == 0.0


def test_unreliable_history_lowers_a_reviewers_influence():
    x = sheet([[2, 4, 6, 9], [9, 6, 4, 2], [8, 7, 3, 1], [9, 5, 4, 3]])
    careless = {"r1": ReviewerHistory(count=200, mean=5.5, m2=200 * 6.0, resid_count=200, resid_m2=400.0)}
    plain, weighted = aggregate(x, weighting="reliability"), aggregate(x, careless, weighting="reliability")
    assert weighted.reviewer_weights["r1"] < 0.2 < plain.reviewer_weights["r1"]
    assert by_member(weighted)["D"].score < by_member(plain)["D"].score
    # The default cuts only an outlier, and less: rho2 = (400 + S_run + 3) / (204 + 10) is about 1.9, past 0.9.
    default = aggregate(x, careless)
    assert default.weighting == "outlier"
    assert 0.2 < default.reviewer_weights["r1"] < 0.5
    assert {name: w for name, w in default.reviewer_weights.items() if name != "r1"} == {"r2": 1.0, "r3": 1.0,
                                                                                        "r4": 1.0}


def test_update_history_is_welford_on_the_concatenated_scores():
    rng = np.random.default_rng(7)
    names = ("a", "b", "c", "d")
    history = {"old": ReviewerHistory(count=5, mean=3.0, m2=1.0)}
    seen: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(12):
        x = np.round(rng.normal(6, 2, (4, 4)))
        np.fill_diagonal(x, np.nan)
        x[rng.random((4, 4)) < 0.2] = np.nan
        before = history
        history = update_history(history, ScoreSheet(names, names, x))
        assert all(history[n] is not before.get(n) for n in names)
        for i, n in enumerate(names):
            seen[n].extend(x[i][np.isfinite(x[i])])
    assert history["old"] == ReviewerHistory(count=5, mean=3.0, m2=1.0)
    for n in names:
        values = np.array(seen[n])
        assert history[n].count == values.size
        assert history[n].mean == pytest.approx(values.mean())
        assert history[n].m2 == pytest.approx(((values - values.mean()) ** 2).sum())
        assert 0 < history[n].resid_count <= values.size and history[n].resid_m2 > 0


def test_dimensions_report_raw_means_and_skip_unscored():
    x = sheet([[8, 6, NAN], [6, NAN, NAN]], dimensions={"accuracy": [[9, 5, NAN], [7, NAN, NAN]]})
    result = by_member(aggregate(x))
    assert result["A"].dimensions == {"accuracy": 8.0}
    assert result["B"].dimensions == {"accuracy": 5.0}
    assert result["C"].dimensions == {}


def test_bias_flags():
    slots = np.array([[0, 1, 2, 3, 4, 5]])
    follows_slot = sheet([[10, 9, 8, 6, 5, 2]], position=slots, answer_length=[500, 400, 900, 100, 300, 200])
    flags = aggregate(follows_slot).bias_flags
    assert [(f.reviewer, f.kind, f.correlation) for f in flags] == [("r1", "position", pytest.approx(-1.0))]
    assert "earlier" in flags[0].detail
    wordy = sheet([[2, 4, 5, 7, 9], [3, 3, 8, 4, 6]], position=[[4, 3, 2, 1, 0], [0, 1, 2, 3, 4]],
                  answer_length=[100, 200, 300, 400, 500])
    flags = aggregate(wordy).bias_flags
    assert {(f.reviewer, f.kind) for f in flags} == {("r1", "length"), ("r1", "position")}
    length = next(f for f in flags if f.kind == "length")
    assert length.correlation == pytest.approx(1.0) and "longer" in length.detail and "other reviewers" in length.detail
    too_few = sheet([[9, 7, 5, 3]], position=[[0, 1, 2, 3]], answer_length=[4, 3, 2, 1])
    assert aggregate(too_few).bias_flags == []
    not_shown = sheet([[10, 9, 8, 6, 5, 2]], position=[[0, 1, 2, -1, -1, -1]])
    assert aggregate(not_shown).bias_flags == []


def test_bad_method_and_bad_shapes_raise():
    with pytest.raises(ValueError, match="unknown aggregation method"):
        aggregate(sheet(HAND), method="median")
    with pytest.raises(ValueError, match="overall has shape"):
        ScoreSheet(("A", "B"), ("r1",), np.zeros((1, 3)))
    with pytest.raises(ValueError, match=r"expected \(2, 3\)"):  # transposed: caught, not reshaped
        ScoreSheet(("A", "B", "C"), ("r1", "r2"), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="answer_length"):
        ScoreSheet(("A", "B", "C"), ("r1",), np.zeros((1, 3)), answer_length=[1, 2])


# ---------------------------------------------------------------- property tests

score_values = st.one_of(
    st.integers(1, 10).map(float),
    st.just(NAN),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e308, -1e308, 5e-324, float("inf")]),
)
odd_floats = st.floats(allow_nan=True, allow_infinity=True)
histories = st.builds(
    ReviewerHistory,
    count=st.integers(-5, 10**9),
    mean=odd_floats,
    m2=odd_floats,
    resid_count=st.integers(-5, 10**9),
    resid_m2=odd_floats,
    bias=st.lists(odd_floats, max_size=agg.BIAS_SUMS + 2).map(tuple),  # older, shorter tuples included
)


@st.composite
def sheets_and_histories(draw):
    n_rev, n_cand = draw(st.integers(0, 6)), draw(st.integers(0, 6))
    shape = (n_rev, n_cand)
    overall = draw(hnp.arrays(float, shape, elements=score_values))
    if draw(st.booleans()):  # constant rows are a case of their own
        overall[: n_rev // 2] = draw(st.sampled_from([1.0, 7.0, 10.0]))
    dims = {"d": draw(hnp.arrays(float, shape, elements=score_values))}
    position = draw(hnp.arrays(int, shape, elements=st.integers(-1, max(n_cand - 1, 0))))
    lengths = draw(hnp.arrays(float, (n_cand,), elements=odd_floats))
    candidates = tuple(f"m{i}" for i in range(n_cand))
    reviewers = tuple(f"m{i}" for i in range(n_rev)) if draw(st.booleans()) else tuple(f"r{i}" for i in range(n_rev))
    history = {name: draw(histories) for name in reviewers if draw(st.booleans())}
    return ScoreSheet(candidates, reviewers, overall, dims, position, lengths), history


def check_result(x: ScoreSheet, result) -> None:
    assert sorted(c.member for c in result.ranking) == sorted(x.candidates)
    assert [c.rank for c in result.ranking] == list(range(1, len(x.candidates) + 1))
    reviewed = [c.n_reviews > 0 for c in result.ranking]
    assert reviewed == sorted(reviewed, reverse=True)  # unreviewed candidates last
    for c in result.ranking:
        assert math.isfinite(c.score)
        if c.n_reviews == 0:
            assert c.score == 0.0 and math.isnan(c.raw_mean)
    assert all(0.0 < w <= 1.0 for w in result.reviewer_weights.values())
    a = result.agreement
    assert a.kendall_w is None or -1e-9 <= a.kendall_w <= 1 + 1e-9
    assert a.mean_pairwise_tau is None or -1 - 1e-9 <= a.mean_pairwise_tau <= 1 + 1e-9
    assert a.statistic in ("kendall_w", "mean_pairwise_tau", "none")
    for flag in result.bias_flags:
        if flag.kind == "self_preference":  # its correlation carries the estimated bonus
            assert math.isfinite(flag.correlation) and flag.reviewer in x.reviewers
            continue
        assert flag.kind in ("position", "length") and abs(flag.correlation) <= 1 + 1e-9
        if "across runs" not in flag.detail:  # pooled flags need a clear t, not |tau| >= BIAS_THRESHOLD
            assert abs(flag.correlation) >= agg.BIAS_THRESHOLD
    assert all(math.isfinite(b) for b in result.self_bonus.values())


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sheets_and_histories(), st.sampled_from(METHODS))
def test_never_raises_and_scores_stay_finite(case, method):
    x, history = case
    result = aggregate(x, history, method)
    check_result(x, result)
    calibrated_pair = method == "calibrated" and any(
        name in history and history[name].count >= 1 and math.isfinite(history[name].mean)
        and math.isfinite(history[name].m2) and history[name].m2 >= 0 for name in x.reviewers)
    if len(x.candidates) < 2 or method in ("raw_mean", "borda", "bradley_terry") or (
            len(x.candidates) == 2 and not calibrated_pair):
        assert result.normalized is False
    elif x.reviewers:
        assert result.normalized is True, "two answers with history, or three or more, are calibrated"
    updated = update_history(history, x)
    assert set(updated) == set(history) | set(x.reviewers)
    assert all(h.count >= 0 and h.resid_count >= 0 for h in updated.values())
    assert all(len(updated[name].bias) == agg.BIAS_SUMS for name in x.reviewers)


integer_sheets = hnp.arrays(
    float, st.tuples(st.integers(2, 6), st.integers(3, 6)), elements=st.sampled_from([*range(1, 11), NAN])
)


@settings(max_examples=150, deadline=None)
@given(integer_sheets, st.floats(0.1, 10), st.floats(-50, 50))
def test_calibrated_z_ignores_the_units_of_the_scale(scores, factor, shift):
    # Without history, any affine change of all scores (a 1-5 scale, a 0-100 scale) leaves z unchanged.
    names_r = tuple(f"r{i}" for i in range(scores.shape[0]))
    names_c = tuple(f"c{i}" for i in range(scores.shape[1]))
    z = z_scores(ScoreSheet(names_c, names_r, scores))
    moved = z_scores(ScoreSheet(names_c, names_r, scores * factor + shift))
    np.testing.assert_allclose(moved, z, atol=1e-6)


@settings(max_examples=100, deadline=None)
@given(integer_sheets, st.randoms(use_true_random=False))
def test_reviewer_order_does_not_matter(scores, random):
    order = list(range(scores.shape[0]))
    random.shuffle(order)
    names_c = tuple(f"c{i}" for i in range(scores.shape[1]))
    names_r = tuple(f"r{i}" for i in range(scores.shape[0]))
    first = aggregate(ScoreSheet(names_c, names_r, scores))
    second = aggregate(ScoreSheet(names_c, tuple(names_r[i] for i in order), scores[order]))
    expected = {c.member: c.score for c in first.ranking}
    assert {c.member: c.score for c in second.ranking} == pytest.approx(expected, abs=1e-9)
