"""Bradley-Terry over reviewers' pairwise preferences: the fit, its edge cases, and the method end to end."""

from __future__ import annotations

import numpy as np
import pydantic
import pytest

from council import Council
from council.config import CouncilConfig, load_config, simulated_config_path
from council.ranking import bradley_terry as bt
from council.ranking.aggregation import METHODS, ScoreSheet, aggregate
from council.storage import Store

NAN = float("nan")


def sheet(scores: list[list[float]]) -> ScoreSheet:
    x = np.array(scores, dtype=float)
    return ScoreSheet(tuple("ABCDEFGH"[: x.shape[1]]), tuple(f"r{i}" for i in range(x.shape[0])), x)


def gradient(theta: np.ndarray, wins: np.ndarray, ridge: float) -> np.ndarray:
    """The penalized log-likelihood's gradient, written out independently of the module."""
    games = wins + wins.T
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    return wins.sum(axis=1) - (games * p).sum(axis=1) - ridge * theta


def test_wins_by_hand():
    # r0: A 8, B 6, C 6 -> A beats B and C, B and C tie. r1: A 5, B 7, C missing -> B beats A.
    wins = bt.pairwise_wins(np.array([[8, 6, 6], [5, 7, NAN]]))
    np.testing.assert_array_equal(wins, [[0, 1, 1], [1, 0, 0.5], [0, 0.5, 0]])


def test_two_candidates_solve_the_optimality_condition_by_hand():
    # A beat B 3 times, B beat A once. With theta_A = t = -theta_B the condition is
    # 3 - 4 * sigmoid(2t) - ridge * t = 0; at ridge 0.1 bisection gives t = 0.5219...
    theta, _ = bt.fit(np.array([[0.0, 3.0], [1.0, 0.0]]), ridge=0.1)
    t = theta[0]
    assert theta[1] == pytest.approx(-t)
    assert 3 - 4 / (1 + np.exp(-2 * t)) - 0.1 * t == pytest.approx(0.0, abs=1e-10)
    # Without a prior the answer would be log(3) / 2 = 0.549: the ridge pulls it in a little.
    assert 0.5 < t < np.log(3) / 2


def test_a_clear_order_is_recovered():
    scores = [[9, 7, 5, 3], [8, 6, 5, 2], [10, 8, 6, 4], [7, 6, 4, 1]]
    theta = bt.bradley_terry(np.array(scores, dtype=float))
    assert list(np.argsort(-theta)) == [0, 1, 2, 3]
    assert np.all(np.diff(theta) < 0)
    result = aggregate(sheet(scores), method="bradley_terry")
    assert [c.member for c in result.ranking] == ["A", "B", "C", "D"]
    assert result.method == "bradley_terry" and result.normalized is False
    assert sum(c.score for c in result.ranking) == pytest.approx(0.0, abs=1e-9), "log-strengths are centred"


def test_a_candidate_who_beats_everyone_stays_finite():
    x = np.array([[10, 1, 1, 1], [10, 2, 1, 1], [10, 5, 5, 5]], dtype=float)
    for ridge in (1.0, 0.1, 0.01):
        theta, steps = bt.fit(bt.pairwise_wins(x), ridge)
        assert np.isfinite(theta).all() and steps < bt.MAX_ITERATIONS
        assert theta[0] == max(theta) and theta[0] < 10
        np.testing.assert_allclose(gradient(theta, bt.pairwise_wins(x), ridge), 0.0, atol=1e-8)
    # A weaker prior lets the unbeaten candidate's strength grow.
    assert bt.fit(bt.pairwise_wins(x), 0.01)[0][0] > bt.fit(bt.pairwise_wins(x), 1.0)[0][0]


def test_ties_give_equal_strength():
    theta = bt.bradley_terry(np.array([[9, 6, 6, 2], [8, 5, 5, 3], [9, 7, 7, 1]], dtype=float))
    assert theta[1] == pytest.approx(theta[2], abs=1e-12)
    assert theta[0] > theta[1] > theta[3]


def test_symmetric_input_gives_equal_scores():
    cyclic = np.array([[3, 2, 1], [1, 3, 2], [2, 1, 3]], dtype=float)  # A>B>C, B>C>A, C>A>B
    np.testing.assert_allclose(bt.bradley_terry(cyclic), 0.0, atol=1e-12)
    np.testing.assert_allclose(bt.bradley_terry(np.full((3, 4), 7.0)), 0.0, atol=1e-12)
    result = aggregate(sheet(cyclic.tolist()), method="bradley_terry")
    assert {c.score for c in result.ranking} == {0.0}


def test_nan_and_infinite_scores_are_ignored():
    full = np.array([[9, 7, 5, 3], [8, 8, 4, 6], [7, 6, 5, 2]], dtype=float)
    gappy = full.copy()
    gappy[1, 2] = NAN
    with_noise = np.vstack([gappy, [NAN, NAN, NAN, NAN], [np.inf, -np.inf, NAN, NAN]])
    np.testing.assert_array_equal(bt.pairwise_wins(with_noise), bt.pairwise_wins(gappy))
    np.testing.assert_allclose(bt.bradley_terry(with_noise), bt.bradley_terry(gappy), atol=1e-12)
    assert not np.allclose(bt.bradley_terry(gappy), bt.bradley_terry(full)), "the missing score did count"
    # A candidate nobody compared sits at 0 and the ranking puts it last.
    lonely = np.hstack([full, np.full((3, 1), NAN)])
    assert bt.bradley_terry(lonely)[4] == pytest.approx(0.0, abs=1e-12)
    assert aggregate(sheet(lonely.tolist()), method="bradley_terry").ranking[-1].member == "E"


@pytest.mark.parametrize("n", [4, 5, 6, 8])
def test_fit_is_the_maximum_deterministic_and_fast_to_converge(n):
    rng = np.random.default_rng(n)
    for _ in range(20):
        x = np.clip(np.round(6 + 2 * rng.normal(size=(n, n)) + rng.normal(0, 1.5, n)), 1, 10)
        x[np.eye(n, dtype=bool)] = NAN
        x[rng.random((n, n)) < 0.1] = NAN
        wins = bt.pairwise_wins(x)
        theta, steps = bt.fit(wins)
        assert steps <= 10, "Newton converges quadratically: a handful of steps"
        np.testing.assert_allclose(gradient(theta, wins, bt.RIDGE), 0.0, atol=1e-8)
        assert theta.sum() == pytest.approx(0.0, abs=1e-9)
        again, _ = bt.fit(wins)
        np.testing.assert_array_equal(again, theta)


def test_degenerate_inputs():
    assert bt.fit(np.zeros((0, 0))) == (pytest.approx(np.zeros(0)), 0)
    np.testing.assert_array_equal(bt.bradley_terry(np.zeros((0, 3))), np.zeros(3))
    with pytest.raises(ValueError, match="square"):
        bt.fit(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="ridge"):
        bt.fit(np.zeros((2, 2)), ridge=0.0)
    # Absurd wins (negative, NaN) count as none rather than breaking the fit.
    theta, _ = bt.fit(np.array([[0, -5, NAN], [1, 0, 0], [0, 0, 0]], dtype=float))
    assert np.isfinite(theta).all() and theta[1] > theta[0]


def test_the_method_is_selectable_through_the_config(tmp_path):
    assert "bradley_terry" in METHODS
    path = tmp_path / "council.yaml"
    path.write_text("members:\n  - {name: a, provider: simulated, model: sim-a}\n"
                    "  - {name: b, provider: simulated, model: sim-b}\n"
                    "review:\n  aggregation: bradley_terry\n")
    assert load_config(path, {}).review.aggregation == "bradley_terry"
    members = [{"name": n, "provider": "simulated", "model": f"sim-{n}"} for n in "ab"]
    assert CouncilConfig.model_validate({"members": members}).review.aggregation == "calibrated", "the default"
    with pytest.raises(pydantic.ValidationError):
        CouncilConfig.model_validate({"members": members, "review": {"aggregation": "elo"}})


async def test_a_simulated_council_ranks_with_bradley_terry():
    config = load_config(simulated_config_path(), {})
    config = config.model_copy(update={"review": config.review.model_copy(update={"aggregation": "bradley_terry"})})
    store = Store(":memory:")
    try:
        async with Council(config, store=store, environ={}) as council:
            result = await council.ask("Why do leaves change colour in autumn?")
    finally:
        store.close()
    assert result.status == "complete" and result.reproducibility.aggregation_method == "bradley_terry"
    assert len(result.ranking) == 4 and result.ranking[0].member == "atlas"
    scores = [e.score for e in result.ranking]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0 > scores[-1]
    assert sum(scores) == pytest.approx(0.0, abs=1e-3), "centred log-strengths, rounded to 4 places"
