"""Comparing two runs: per-metric deltas and the samples whose verdict flipped."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from council.evals.compare import compare_runs, render_comparison, verdicts
from council.evals.evaluator import Evaluation
from council.evals.gate import check_gate, repeat_stats
from council.evals.metrics import SampleMetrics, Thresholds, aggregate_metrics, sample_score
from council.evals.records import EvalSummary, SampleRecord, StoredRun, SubjectSummary
from tests.evals.conftest import manifest_for

GOOD = SampleMetrics(answered=True, accuracy_score=2, faithfulness_score=2, latency_e2e_ms=1000,
                     input_tokens=300, output_tokens=100)
BAD = SampleMetrics(answered=True, accuracy_score=0, faithfulness_score=2, latency_e2e_ms=3000,
                    input_tokens=300, output_tokens=100)
DEFAULTS = Thresholds()


def make_run(tmp_path: Path, run_id: str, outcomes: dict[str, list[bool]],
             thresholds: Thresholds = DEFAULTS) -> tuple[StoredRun, list[SampleRecord]]:
    records = []
    for sample_id, passes in outcomes.items():
        for repeat, ok in enumerate(passes):
            metrics = GOOD if ok else BAD
            records.append(
                SampleRecord(
                    run_id=run_id,
                    repeat=repeat,
                    sample_id=sample_id,
                    subject="council",
                    question="q",
                    status="ok",
                    evaluator="scout",
                    metrics=metrics,
                    evaluation=Evaluation(),
                    passed=ok,
                    sample_score=sample_score(metrics),
                    created_at=datetime.now(UTC),
                )
            )
    pooled = aggregate_metrics([r.metrics for r in records], thresholds)
    subject = SubjectSummary(subject="council", metrics=pooled, repeats=repeat_stats([pooled]),
                             gate=check_gate(pooled, thresholds))
    summary = EvalSummary(run_id=run_id, mode="council", gate_passed=subject.gate.passed,
                          subjects={"council": subject})
    return StoredRun(manifest=manifest_for(tmp_path, run_id, thresholds), status="complete", summary=summary), records


def test_deltas_and_flipped_verdicts(tmp_path):
    a, records_a = make_run(tmp_path, "A", {"s1": [True], "s2": [True], "s3": [False], "s4": [True]})
    b, records_b = make_run(tmp_path, "B", {"s1": [True], "s2": [False], "s3": [True], "s5": [False]})
    comparison = compare_runs(a, b, records_a, records_b)
    deltas = {d.metric: d for d in comparison.deltas}
    # A: 3 of 4 pass; B: 2 of 4. GOOD scores 1.0; BAD 0 + 0.30 + 0.15 + 0.10 = 0.55.
    assert deltas["pass_rate"].a == 0.75 and deltas["pass_rate"].b == 0.5
    assert deltas["pass_rate"].delta == pytest.approx(-0.25)
    assert deltas["aggregate_score"].a == pytest.approx((3 * 1.0 + 0.55) / 4)
    assert deltas["aggregate_score"].delta == pytest.approx((2 * 1.0 + 2 * 0.55) / 4 - (3 * 1.0 + 0.55) / 4)
    assert deltas["accuracy_mean"].delta == pytest.approx(1.0 - 1.5)
    assert deltas["tokens_per_correct_answer"].delta == pytest.approx(1600 / 2 - 1600 / 3)
    assert deltas["total_tokens"].delta == 0
    assert [(f.sample_id, f.a, f.b, f.direction) for f in comparison.flipped] == [
        ("s2", "pass", "fail", "pass -> fail"), ("s3", "fail", "pass", "fail -> pass")]
    assert comparison.only_in_a == ["council/s4"] and comparison.only_in_b == ["council/s5"]
    assert comparison.warnings == []
    text = render_comparison(comparison)
    assert "Samples whose verdict flipped (2):" in text and "s2" in text and "pass -> fail" in text
    assert "pass_rate" in text and "-0.250" in text


def test_a_verdict_over_repeats_is_passing_in_at_least_half_of_them(tmp_path):
    a, records_a = make_run(tmp_path, "A", {"s1": [True, True, False], "s2": [True, False]})
    b, records_b = make_run(tmp_path, "B", {"s1": [True, False, False], "s2": [False, False]})
    assert verdicts(records_a) == {("council", "s1"): (2, 3), ("council", "s2"): (1, 2)}
    comparison = compare_runs(a, b, records_a, records_b)
    assert [(f.sample_id, f.a, f.b) for f in comparison.flipped] == [("s1", "pass (2/3)", "fail (1/3)"),
                                                                     ("s2", "pass (1/2)", "fail (0/2)")]


def test_differences_in_setup_are_warned_about(tmp_path):
    a, records_a = make_run(tmp_path, "A", {"s1": [True]})
    b, records_b = make_run(tmp_path, "B", {"s1": [True]}, Thresholds(min_pass_rate=0.5))
    comparison = compare_runs(a, b, records_a, records_b)
    assert comparison.flipped == [] and "No sample's verdict flipped." in render_comparison(comparison)
    assert comparison.warnings == ["the runs used different thresholds, so verdicts are not judged alike"]
