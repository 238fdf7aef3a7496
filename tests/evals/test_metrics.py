"""Every metric formula, on fixtures computed by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import pytest

from council.config import CouncilConfig
from council.evals.gate import check_gate, mean_std, repeat_stats
from council.evals.metrics import (
    RunMetrics,
    SampleMetrics,
    Thresholds,
    aggregate_metrics,
    failed_conditions,
    latency_norm,
    percentile,
    sample_passes,
    sample_score,
    token_efficiency_norm,
    token_efficiency_ratio,
)

DEFAULTS = Thresholds()
# A: acc 2, faith 1, 6000 ms, 1500 in + 500 out = 2000 tokens.
A = SampleMetrics(answered=True, accuracy_score=2, faithfulness_score=1, latency_e2e_ms=6000, latency_model_ms=5800,
                  input_tokens=1500, output_tokens=500)
# B: acc 1, faith 0, 1500 ms, 3000 in + 5000 out = 8000 tokens.
B = SampleMetrics(answered=True, accuracy_score=1, faithfulness_score=0, latency_e2e_ms=1500, latency_model_ms=1400,
                  input_tokens=3000, output_tokens=5000)
# C: answered, but the evaluator gave no verdict; 12000 ms, 100 + 300 = 400 tokens, no model latency reported.
C = SampleMetrics(answered=True, latency_e2e_ms=12000, input_tokens=100, output_tokens=300)
# D: timed out after 20000 ms, no answer, no tokens.
D = SampleMetrics(answered=False, timed_out=True, latency_e2e_ms=20000)
# E: perfect: acc 2, faith 2, 500 ms, 400 + 100 = 500 tokens.
E = SampleMetrics(answered=True, accuracy_score=2, faithfulness_score=2, latency_e2e_ms=500, latency_model_ms=450,
                  input_tokens=400, output_tokens=100)


def test_token_counts_and_efficiency_ratio():
    assert (A.total_tokens, B.total_tokens, D.total_tokens) == (2000, 8000, 0)
    assert A.token_efficiency_ratio == pytest.approx(500 / 1500)
    assert B.token_efficiency_ratio == pytest.approx(5000 / 3000)
    assert token_efficiency_ratio(7, 0) == 7.0  # output / max(input, 1)
    assert D.token_efficiency_ratio == 0.0


@pytest.mark.parametrize(("latency", "expected"), [(0, 1.0), (1, 1.0), (3000, 1.0), (6000, 0.5), (12000, 0.25),
                                                   (30000, 0.1)])
def test_latency_norm(latency, expected):
    assert latency_norm(latency) == pytest.approx(expected)


@pytest.mark.parametrize(("tokens", "expected"), [(0, 1.0), (2000, 1.0), (4000, 0.5), (8000, 0.25), (20000, 0.1)])
def test_token_efficiency_norm(tokens, expected):
    assert token_efficiency_norm(tokens) == pytest.approx(expected)


@pytest.mark.parametrize(("sample", "expected"), [
    (A, 0.45 * 1 + 0.30 * 0.5 + 0.15 * 0.5 + 0.10 * 1),    # 0.775
    (B, 0.45 * 0.5 + 0.30 * 0 + 0.15 * 1 + 0.10 * 0.25),   # 0.400
    (C, 0.45 * 0 + 0.30 * 0 + 0.15 * 0.25 + 0.10 * 1),     # 0.1375: a missing score counts as 0
    (D, 0.15 * 0.15 + 0.10 * 1),                           # 0.1225
    (E, 1.0),
])
def test_sample_score(sample, expected):
    assert sample_score(sample) == pytest.approx(expected)


def test_pass_needs_every_condition():
    assert sample_passes(A, DEFAULTS) and sample_passes(E, DEFAULTS)
    assert failed_conditions(B, DEFAULTS) == ["faithfulness 0 < 1", "tokens 8000 > 6000"]
    assert failed_conditions(C, DEFAULTS) == ["accuracy None < 1", "faithfulness None < 1", "latency 12000 ms > 8000"]
    assert not sample_passes(D, DEFAULTS)


@pytest.mark.parametrize(("change", "passes"), [
    ({}, True),
    ({"latency_e2e_ms": 8000}, True), ({"latency_e2e_ms": 8000.5}, False),
    ({"input_tokens": 5500}, True), ({"input_tokens": 5501}, False),   # 5500 + 500 = 6000, then 6001
    ({"accuracy_score": 1}, True), ({"accuracy_score": 0}, False),
    ({"faithfulness_score": 0}, False), ({"faithfulness_score": None}, False),
])
def test_pass_boundaries(change, passes):
    assert sample_passes(A.model_copy(update=change), DEFAULTS) is passes


def test_thresholds_are_configurable():
    strict = Thresholds(min_accuracy=2, max_latency_e2e_ms=5000)
    assert failed_conditions(A, strict) == ["latency 6000 ms > 5000"]
    assert failed_conditions(B, strict)[0] == "accuracy 1 < 2"


def test_percentile_interpolates_linearly():
    values = [6000, 1500, 12000, 20000, 500]    # sorted: 500 1500 6000 12000 20000
    assert percentile(values, 50) == 6000
    assert percentile(values, 95) == pytest.approx(12000 + 0.8 * 8000)  # rank 0.95 * 4 = 3.8
    assert percentile([], 95) is None
    assert percentile([7.0], 95) == 7.0


def test_run_aggregates():
    metrics = aggregate_metrics([A, B, C, D, E], DEFAULTS)
    assert (metrics.n_samples, metrics.n_scored, metrics.n_answered, metrics.n_timed_out) == (5, 3, 4, 1)
    assert metrics.accuracy_mean == pytest.approx(5 / 3)              # 2, 1, 2
    assert metrics.accuracy_full_credit_rate == pytest.approx(2 / 5)   # A and E, over every sample
    assert metrics.faithfulness_mean == pytest.approx(1.0)            # 1, 0, 2
    # B scored 0; C and D have no score, which counts as a failure too: 3 of 5.
    assert metrics.faithfulness_failure_rate == pytest.approx(3 / 5)
    assert metrics.latency_e2e_p50_ms == 6000
    assert metrics.latency_e2e_p95_ms == pytest.approx(18400)
    assert metrics.latency_model_p50_ms == 1400                       # 450, 1400, 5800
    assert metrics.latency_model_p95_ms == pytest.approx(1400 + 0.9 * 4400)  # rank 1.9
    assert (metrics.total_input_tokens, metrics.total_output_tokens, metrics.total_tokens) == (5000, 5900, 10900)
    # One call per sample here, so the spend is the same tokens.
    assert (metrics.total_spent_tokens, metrics.spent_tokens_per_sample_mean) == (10900, 10900 / 5)
    # Over the answered samples A, B, C, E: (1/3 + 5/3 + 3 + 1/4) / 4.
    assert metrics.token_efficiency_ratio_mean == pytest.approx(1.3125)
    assert metrics.tokens_per_correct_answer == pytest.approx(10900 / 2)  # A and E have full accuracy
    assert metrics.pass_rate == pytest.approx(2 / 5)
    assert metrics.aggregate_score == pytest.approx((0.775 + 0.4 + 0.1375 + 0.1225 + 1.0) / 5)


def test_aggregates_of_nothing_scored():
    metrics = aggregate_metrics([D], DEFAULTS)
    assert metrics.accuracy_mean is None and metrics.faithfulness_failure_rate == 1.0
    assert metrics.tokens_per_correct_answer == 0.0 and metrics.token_efficiency_ratio_mean is None
    assert metrics.pass_rate == 0.0 and metrics.latency_model_p95_ms is None
    assert aggregate_metrics([], DEFAULTS).aggregate_score is None


AT_THRESHOLDS = RunMetrics(aggregate_score=0.80, pass_rate=0.85, faithfulness_failure_rate=0.05,
                           latency_e2e_p95_ms=10000, spent_tokens_per_sample_mean=20000)


def test_gate_holds_at_its_thresholds():
    gate = check_gate(AT_THRESHOLDS, DEFAULTS)
    assert gate.passed and [c.metric for c in gate.checks] == [
        "aggregate_score", "pass_rate", "faithfulness_failure_rate", "latency_e2e_p95_ms",
        "spent_tokens_per_sample_mean"]


@pytest.mark.parametrize(("metric", "value"), [("aggregate_score", 0.7999), ("pass_rate", 0.8499),
                                               ("faithfulness_failure_rate", 0.0501),
                                               ("latency_e2e_p95_ms", 10000.1), ("faithfulness_failure_rate", None),
                                               ("spent_tokens_per_sample_mean", 20000.5)])
def test_gate_fails_past_any_threshold_or_without_a_value(metric, value):
    gate = check_gate(AT_THRESHOLDS.model_copy(update={metric: value}), DEFAULTS)
    assert not gate.passed
    assert [c.metric for c in gate.failures()] == [metric]


def test_gate_thresholds_are_configurable():
    metrics = AT_THRESHOLDS.model_copy(update={"aggregate_score": 0.5})
    assert not check_gate(metrics, DEFAULTS).passed
    assert check_gate(metrics, Thresholds(min_aggregate_score=0.5)).passed


def test_mean_and_std_across_repeats():
    per_repeat = [
        RunMetrics(aggregate_score=s, latency_e2e_p95_ms=p) for s, p in [(0.8, 1000), (0.9, 2000), (0.7, 3000)]
    ]
    stats = repeat_stats(per_repeat)
    assert stats.n_repeats == 3 and stats.aggregate_score == [0.8, 0.9, 0.7]
    assert stats.aggregate_score_mean == pytest.approx(0.8)
    assert stats.aggregate_score_std == pytest.approx(0.1)     # sqrt((0 + 0.01 + 0.01) / 2)
    assert stats.latency_e2e_p95_ms_mean == pytest.approx(2000)
    assert stats.latency_e2e_p95_ms_std == pytest.approx(1000)
    assert mean_std([0.5]) == (0.5, None)
    assert mean_std([None, None]) == (None, None)


def test_a_summary_written_with_the_old_names_still_reads_and_writes_both():
    old = RunMetrics.model_validate({"n_samples": 2, "input_tokens_total": 300, "output_tokens_total": 40,
                                     "total_tokens_total": 340})
    assert (old.total_input_tokens, old.total_output_tokens, old.total_tokens) == (300, 40, 340)
    dumped = old.model_dump()
    assert dumped["total_tokens"] == dumped["total_tokens_total"] == 340
    assert RunMetrics.model_validate(dumped) == old  # a summary written now reads back


def test_another_failure_fails_the_sample_and_counts_in_the_pass_rate():
    rubric = E.model_copy(update={"other_failures": ["rubric r: failed at 40% (pass at 70%)"]})
    assert failed_conditions(rubric, DEFAULTS) == ["rubric r: failed at 40% (pass at 70%)"]
    assert aggregate_metrics([E, rubric], DEFAULTS).pass_rate == 0.5


async def test_a_second_round_is_on_the_model_critical_path():
    from council import Council
    from council.evals.metrics import model_critical_path_ms
    from tests.storage.test_store import simulated_without_latency

    raw = simulated_without_latency().model_dump(mode="json", exclude_none=True)
    for member in raw["members"]:
        member["persona"]["latency_ms"] = 30
    raw["review"] = {"rounds": 2, "deliberate_below": 1.0}
    async with Council(CouncilConfig.model_validate(raw), store=False) as council:
        result = await council.ask("How does a bloom filter answer membership?")
    assert result.deliberation is not None and result.deliberation.rounds == 2
    # Five steps one after the other: answers, reviews, revisions, reviews again, the chairman; each takes 30 ms.
    assert model_critical_path_ms(result) >= 5 * 30
