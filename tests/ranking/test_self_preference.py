"""Self-preference: a reviewer's bonus for its own answer is learnt across runs, reported and subtracted."""

from __future__ import annotations

import math

import numpy as np
import pytest

from council.pipeline.rank_stage import rank_answers, reviewer_key
from council.pipeline.review_stage import review_answers
from council.ranking import self_preference as sp
from council.ranking.aggregation import (
    BIAS_SUMS,
    PAIR_SUMS,
    SELF_SUMS,
    HistoryIncrement,
    ReviewerHistory,
    ScoreSheet,
    aggregate,
    fold_increment,
    history_increments,
    update_history,
)
from council.ranking.agreement import pooled_flags
from council.storage import Store
from council.storage.schema import pack_sums
from tests.pipeline.stages import answer, context, member

NAMES = ("m0", "m1", "m2", "m3")


def run_sheet(rng: np.random.Generator, quality: np.ndarray | None = None, bonus: float = 2.0,
              noise: float = 0.3) -> ScoreSheet:
    """Every member scores every answer, its own included; m0 adds ``bonus`` points to its own."""
    quality = rng.normal(6.0, 1.5, 4) if quality is None else np.asarray(quality, dtype=float)
    overall = quality[None, :] + rng.normal(0.0, noise, (4, 4))
    overall[0, 0] += bonus
    position = np.array([rng.permutation(4) for _ in range(4)])
    return ScoreSheet(NAMES, NAMES, overall, {}, position, np.full(4, 1000.0))


def history_after(runs: int, bonus: float = 2.0, seed: int = 3) -> dict[str, ReviewerHistory]:
    rng = np.random.default_rng(seed)
    history: dict[str, ReviewerHistory] = {}
    for _ in range(runs):
        history = update_history(history, run_sheet(rng, bonus=bonus))
    return history


def test_differences_by_hand():
    z = np.array([[1.0, 0.0, -1.0], [0.5, 0.5, -1.0], [0.0, np.nan, 0.0]])
    # r0 wrote column 0: 1.0 - mean(0.5, 0.0) = 0.75. r1 wrote column 1: 0.5 - 0.0 (r2 did not score it).
    # r2 wrote nothing (-1).
    d = sp.self_differences(z, np.array([0, 1, -1]))
    np.testing.assert_allclose(d[:2], [0.75, 0.5])
    assert math.isnan(d[2])
    assert math.isnan(sp.self_differences(z, np.array([0, 1, -1]), usable=np.array([False, True, True]))[0])
    sums = sp.run_sums(d)
    np.testing.assert_allclose(sums, [[1, 0.75, 0.5625], [1, 0.5, 0.25], [0, 0, 0]])
    # Shrinkage: bonus = sum / (n + k).
    np.testing.assert_allclose(sp.self_bonus(np.array([[4, 2.0, 1.5], [0, 0, 0]]), prior=4.0), [0.25, 0.0])
    assert sp.self_bonus(np.array([[4, 2.0, 1.5]]), prior=math.inf)[0] == 0.0


def test_stored_sums_that_make_no_sense_read_as_no_data():
    stored = np.array([[4, 1.2, 0.9], [0, 0.5, 0.3], [3, np.inf, 1.0], [2, 0.4, -0.1], [np.nan, 0, 0]])
    np.testing.assert_array_equal(sp.sane_sums(stored), [[4, 1.2, 0.9], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]])


def test_a_reviewer_adding_two_points_to_its_own_answer_gets_a_positive_bonus_and_a_flag():
    history = history_after(12)
    result = aggregate(run_sheet(np.random.default_rng(99)), history)
    bonus = result.self_bonus
    assert set(bonus) == set(NAMES)
    assert bonus["m0"] > 0.5, bonus
    assert all(abs(bonus[name]) < 0.2 for name in NAMES[1:]), bonus
    flags = [f for f in result.bias_flags if f.kind == "self_preference"]
    assert [f.reviewer for f in flags] == ["m0"]
    assert flags[0].correlation == pytest.approx(bonus["m0"])
    assert "own answer" in flags[0].detail and "13 runs" in flags[0].detail
    # The sums live after the position and length sums of the stored bias tuple.
    n, total, _ = history["m0"].bias[PAIR_SUMS:]
    assert len(history["m0"].bias) == BIAS_SUMS and n == 12 and total > 12 * 0.5


def test_the_correction_moves_the_ranking_back():
    history = history_after(12)
    # m1 is truly best, m0 close behind; m0's +2 for its own answer lifts it to the top uncorrected.
    final = run_sheet(np.random.default_rng(5), quality=[7.6, 8.0, 5.0, 3.0], noise=0.0)
    for method in ("calibrated", "raw_mean", "borda", "bradley_terry"):
        uncorrected = aggregate(final, history, method, self_prior=math.inf)
        corrected = aggregate(final, history, method)
        assert [c.member for c in corrected.ranking] == ["m1", "m0", "m2", "m3"], method
        assert uncorrected.self_bonus["m0"] == 0.0 and corrected.self_bonus["m0"] > 0.5
        # The raw means shown stay the reviewers' own numbers.
        assert [c.raw_mean for c in corrected.ranking if c.member == "m0"] == \
               [c.raw_mean for c in uncorrected.ranking if c.member == "m0"]
        if method in ("calibrated", "raw_mean"):  # score averages: one reviewer's bonus flips the top two
            assert [c.member for c in uncorrected.ranking][:2] == ["m0", "m1"], method
        else:  # rank methods: m0's own vote for itself is outvoted 3 to 1 either way, but it counts less corrected
            m0 = {c.member: c.score for c in uncorrected.ranking}["m0"]
            assert {c.member: c.score for c in corrected.ranking}["m0"] <= m0, method


def test_a_reviewer_with_little_history_is_barely_corrected():
    first = run_sheet(np.random.default_rng(99))
    # Without history: one run's self-difference d, shrunk by 1 / (1 + SELF_PRIOR) = 1/4.
    d = history_increments({}, first)["m0"].bias[PAIR_SUMS + 1]
    fresh = aggregate(first, {}).self_bonus["m0"]
    assert d > 0.5 and fresh == pytest.approx(d / (1 + sp.SELF_PRIOR)) and fresh <= 0.25 * d
    assert not any(f.kind == "self_preference" for f in aggregate(first, {}).bias_flags), "one run is no evidence"
    # After 20 runs the same kind of difference is almost fully subtracted.
    history = history_after(20)
    n, total, _ = history["m0"].bias[PAIR_SUMS:]
    mean_difference = (total + history_increments(history, first)["m0"].bias[PAIR_SUMS + 1]) / (n + 1)
    seasoned = aggregate(first, history).self_bonus["m0"]
    assert seasoned == pytest.approx(mean_difference * (n + 1) / (n + 1 + sp.SELF_PRIOR))
    assert seasoned >= 0.85 * mean_difference
    # The fresh reviewer's own answer loses a quarter of d in its z, i.e. d / 16 of its 4-review mean score.
    on = {c.member: c.score for c in aggregate(first, {}).ranking}["m0"]
    off = {c.member: c.score for c in aggregate(first, {}, self_prior=math.inf).ranking}["m0"]
    assert 0 < off - on <= fresh / 4 + 1e-9


def test_honest_reviewers_and_self_excluded_runs_are_left_alone():
    history = history_after(12, bonus=0.0)
    result = aggregate(run_sheet(np.random.default_rng(7), bonus=0.0), history)
    assert not any(f.kind == "self_preference" for f in result.bias_flags)
    assert all(abs(b) < 0.2 for b in result.self_bonus.values())
    # Without self-reviews nothing is measured or corrected: the sums stay 0 and the result is unchanged.
    rng = np.random.default_rng(8)
    sheet = run_sheet(rng)
    excluded = ScoreSheet(NAMES, NAMES, np.where(np.eye(4, dtype=bool), np.nan, sheet.overall), {},
                          sheet.position, sheet.answer_length)
    assert aggregate(excluded, {}).self_bonus == {}
    assert all(inc.bias[PAIR_SUMS:] == (0.0,) * SELF_SUMS for inc in history_increments({}, excluded).values())
    on, off = aggregate(excluded, history), aggregate(excluded, history, self_prior=math.inf)
    assert [(c.member, c.score) for c in on.ranking] == [(c.member, c.score) for c in off.ranking]


def test_material_means_enough_runs_a_clear_t_and_a_big_enough_bonus():
    # (n, sum d, sum d^2)
    clear = [10, 8.0, 8.0 + 9 * 0.01]  # mean 0.8, tiny spread
    few = [3, 3.0, 3.0]
    noisy = [10, 5.0, 60.0]  # mean 0.5 but sd ~2.5: t ~ 0.6
    negative = [20, -10.0, 5.5]
    flags = sp.self_flags(["a", "b", "c", "d"], np.array([clear, few, noisy, negative]))
    assert [(f.reviewer, f.correlation) for f in flags] == [
        ("a", pytest.approx(8 / 13)), ("d", pytest.approx(-10 / 23))]
    assert "below" in flags[1].detail


def test_old_short_bias_tuples_still_load_and_fold():
    rng = np.random.default_rng(4)
    sheet = run_sheet(rng)
    for old in ((), (0.5,) * PAIR_SUMS, (1.0, 2.0, 3.0)):
        stored = ReviewerHistory(count=30, mean=6.0, m2=60.0, resid_count=20, resid_m2=6.0, bias=old)
        history = {name: stored for name in NAMES}
        result = aggregate(sheet, history)
        assert result.self_bonus["m0"] > 0, "the missing self sums read as 0, this run's difference counts"
        increment = history_increments(history, sheet)["m0"]
        folded = fold_increment(stored, increment)
        assert len(folded.bias) == BIAS_SUMS
        padded = old + (0.0,) * (BIAS_SUMS - len(old))
        assert folded.bias == pytest.approx(tuple(a + b for a, b in zip(padded, increment.bias, strict=True)))
        assert folded.bias[PAIR_SUMS] == 1.0
    # An increment from before the self sums existed (12 long) folds too.
    short = HistoryIncrement(3, 6.0, 2.0, 3, 0.5, (1.0,) * PAIR_SUMS)
    assert fold_increment(None, short).bias == (1.0,) * PAIR_SUMS + (0.0,) * SELF_SUMS
    # Position evidence stored by an older release still raises its pooled flag.
    old_position = (40.0, 60.0, 0.0, 140.0, 40.0, -40.0) + (0.0,) * 6  # r = -1 over 40 pairs
    assert [f.kind for f in pooled_flags(["r"], [np.array(old_position)])] == ["position"]
    flags = aggregate(sheet, {"m1": ReviewerHistory(30, 6.0, 60.0, 20, 6.0, old_position)}).bias_flags
    assert ("m1", "position") in {(f.reviewer, f.kind) for f in flags}


async def test_a_stored_12_sum_row_folds_to_the_longer_tuple():
    store = Store(":memory:")
    try:
        store.db.execute("INSERT INTO reviewer_stats VALUES ('m0', 3, 6.0, 2.0, 3, 1.0, '2026-01-01', ?)",
                         [pack_sums([1.0] * PAIR_SUMS)])
        old = store.reviewer_history(["m0"])["m0"]
        assert old.bias == (1.0,) * PAIR_SUMS
        increment = history_increments({"m0": old}, run_sheet(np.random.default_rng(1)))["m0"]
        await store.add_to_reviewer_history({"m0": increment})
        new = store.reviewer_history(["m0"])["m0"]
        assert len(new.bias) == BIAS_SUMS and new.bias[PAIR_SUMS] == 1.0
        assert new.bias[:PAIR_SUMS] == pytest.approx(tuple(1.0 + b for b in increment.bias[:PAIR_SUMS]))
    finally:
        store.close()


async def test_a_council_run_with_self_reviews_stores_the_self_sums():
    answers = [answer("a", "a: quality=9"), answer("b", "b: quality=6"), answer("c", "c: quality=2")]
    store = Store(":memory:")
    try:
        for _ in range(2):
            ctx, _ = context({"a": member("-"), "b": member("-"), "c": member("-")}, review={"include_self": True})
            reviews = await review_answers(ctx, answers, {})
            assert all(set(r.scores) == {"a", "b", "c"} for r in reviews), "each reviewer scored its own answer"
            ranked = await rank_answers(ctx, answers, reviews, store)
            await ranked.history_write
            assert [e.member for e in ranked.ranking] == ["a", "b", "c"]
        keys = {name: reviewer_key(ctx.providers[name]) for name in "abc"}
        stored = store.reviewer_history(list(keys.values()))
        for name in "abc":
            n, total, _ = stored[keys[name]].bias[PAIR_SUMS:]
            assert n == 2, "one self-difference per run"
            assert abs(total) < 0.5, "honest reviewers: their own answer scored like the others score it"
        # The history the second run was ranked with is recorded, self sums included.
        assert all(len(record.bias) == BIAS_SUMS for record in ranked.calibration)
    finally:
        store.close()


@pytest.mark.parametrize("method", ["calibrated", "borda", "raw_mean"])
def test_the_aggregate_carries_the_increments_the_run_adds_to_history(method):
    history = history_after(8)
    first = run_sheet(np.random.default_rng(5))
    outcome = aggregate(first, history, method, self_prior=sp.SELF_PRIOR)
    assert outcome.increments == history_increments(history, first)
    assert set(outcome.increments) == set(NAMES) and outcome.increments["m0"].count == 4
