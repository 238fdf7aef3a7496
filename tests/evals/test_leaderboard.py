"""Two-pass batch calibration, bootstrap intervals, and the leaderboards built from them."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from council import Council
from council.config import load_config
from council.evals.evaluator import Evaluation
from council.evals.leaderboard import (
    batch_history,
    bootstrap_intervals,
    council_leaderboard,
    judge_leaderboard,
    leave_one_out,
    recalibrate,
)
from council.evals.metrics import SampleMetrics, Thresholds
from council.evals.records import SampleRecord
from council.ranking.aggregation import ScoreSheet, aggregate, update_history
from tests.evals.conftest import fast_simulated_file

NAN = np.nan
FULL = [[4, 3, 2], [7, 6, 5], [7, 6, 5]]   # h is 3 points harsher than f1 and f2, who agree


def sheet(overall) -> ScoreSheet:
    return ScoreSheet(("x", "y", "z"), ("h", "f1", "f2"), np.array(overall, dtype=float))


def test_leave_one_out_removes_exactly_one_sheets_scores():
    rng = np.random.default_rng(7)
    sheets = [sheet(rng.integers(1, 11, size=(3, 3))) for _ in range(4)]
    total, residuals = batch_history(sheets)
    without = leave_one_out(total, sheets[1], residuals[1])
    others: dict = {}
    for other in (sheets[0], sheets[2], sheets[3]):
        others = update_history(others, other)
    for name in ("h", "f1", "f2"):
        assert without[name].count == others[name].count == 9
        assert without[name].mean == pytest.approx(others[name].mean)
        assert without[name].m2 == pytest.approx(others[name].m2)
        # Residuals depend on the folding order, so they are removed as pass 1 recorded them.
        assert without[name].resid_count == total[name].resid_count - residuals[1][name][0]
        assert without[name].resid_m2 == pytest.approx(total[name].resid_m2 - residuals[1][name][1])


def test_leave_one_out_drops_a_reviewer_seen_only_in_that_sheet():
    lone = ScoreSheet(("x", "y", "z"), ("solo",), np.array([[5, 6, 7]], dtype=float))
    total, residuals = batch_history([sheet(FULL), lone])
    assert "solo" in total and "solo" not in leave_one_out(total, lone, residuals[1])


def test_pass_two_fixes_a_ranking_that_one_sheet_alone_gets_wrong():
    # Nine ordinary questions, then one where only the harsh reviewer h saw x (4 from h means "good").
    batch = [sheet(FULL) for _ in range(9)]
    target = sheet([[4, NAN, NAN], [NAN, 6, 5], [NAN, 6, 5]])
    alone = aggregate(target, {}, "calibrated")
    assert [c.member for c in alone.ranking][-1] == "x"
    outcomes, history = recalibrate([*batch, target], "calibrated")
    assert [c.member for c in outcomes[-1].ranking] == ["x", "y", "z"]
    assert history["h"].count == 28 and history["h"].mean == pytest.approx((27 * 3 + 4) / 28)


def test_bootstrap_interval_by_hand():
    # Two samples, 0 and 1: a resample's mean is 0, 0.5 or 1 with chances 1/4, 1/2, 1/4,
    # so the 2.5th and 97.5th percentiles are 0 and 1.
    (interval,) = bootstrap_intervals(np.array([[0.0], [1.0]]))
    assert (interval.mean, interval.low, interval.high) == (0.5, 0.0, 1.0)


def test_bootstrap_intervals_per_column():
    values = np.array([[1.0, 3.0, NAN], [2.0, 3.0, NAN], [3.0, 3.0, NAN], [4.0, 3.0, NAN], [NAN, 3.0, NAN]])
    wide, constant, empty = bootstrap_intervals(values)
    assert wide.mean == 2.5 and wide.low is not None and wide.high is not None
    assert 1.0 <= wide.low < 2.5 < wide.high <= 4.0
    assert (constant.mean, constant.low, constant.high) == (3.0, 3.0, 3.0)
    assert (empty.mean, empty.low, empty.high) == (None, None, None)
    assert bootstrap_intervals(values) == [wide, constant, empty]  # a fixed seed: the same intervals every time
    assert bootstrap_intervals(np.empty((0, 2)))[0].mean is None


async def test_council_leaderboard_from_simulated_runs(tmp_path):
    config = load_config(fast_simulated_file(tmp_path), {})
    results = []
    async with Council(config, store=False, environ={}) as council:
        for index in range(6):
            for _repeat in range(2):
                results.append((f"q{index}", await council.ask(f"Question {index}: why does ice float?")))
    board = council_leaderboard(results, council.rubric, "calibrated", ["sage", "scout", "sprout"])
    assert [e.member for e in board.entries] == ["sage", "scout", "sprout"]   # hidden qualities 0.9, 0.7, 0.5
    assert [e.rank for e in board.entries] == [1, 2, 3]
    for entry in board.entries:
        assert entry.n_samples == 6
        assert entry.score.low <= entry.score.mean <= entry.score.high
        assert entry.dimensions and all(ci.low <= ci.mean <= ci.high for ci in entry.dimensions.values())
    assert sum(e.win_rate for e in board.entries) == pytest.approx(1.0)
    assert board.entries[0].mean_rank < board.entries[-1].mean_rank
    assert board.calibration["passes"] == 2 and board.calibration["council_runs_ranked"] == 12
    assert set(board.calibration["reviewers"]) == {"sage", "scout", "sprout"}


def record(sample_id: str, member: str, accuracy: int | None, score: float) -> SampleRecord:
    metrics = SampleMetrics(answered=True, accuracy_score=accuracy, faithfulness_score=2, latency_e2e_ms=100)
    return SampleRecord(run_id="r", repeat=0, sample_id=sample_id, subject=member, question="q", status="ok",
                        evaluator="judge", metrics=metrics, evaluation=Evaluation(), passed=True,
                        sample_score=score, created_at=datetime.now(UTC))


def test_judge_leaderboard_ranks_by_mean_sample_score():
    records = [record("a", "m1", 2, 0.9), record("b", "m1", 2, 0.7), record("a", "m2", 0, 0.2),
               record("b", "m2", None, 0.4)]
    board = judge_leaderboard(records, ["m2", "m1"], Thresholds())
    first, second = board.entries
    assert (first.member, first.score.mean) == ("m1", pytest.approx(0.8))
    assert (second.member, second.score.mean) == ("m2", pytest.approx(0.3))
    assert first.dimensions["accuracy"].mean == 2 and second.dimensions["accuracy"].mean == 0  # None is left out
    assert first.dimensions["pass_rate"].mean == 1 and second.dimensions["pass_rate"].mean == 0
