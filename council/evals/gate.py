"""The release gate of an evaluation run, and the spread of its headline metrics across repeats.

The gate (:func:`check_gate`) holds when ``aggregate_score >= 0.80``,
``pass_rate >= 0.85``, ``faithfulness_failure_rate <= 0.05`` and
``latency_e2e_p95_ms <= 10000`` (the evaluation spec's four conditions),
and, Council's own fifth, when ``spent_tokens_per_sample_mean`` (what the
whole council spent on a sample, every call counted) is at most 20,000; a
sixth, when the dataset has samples with an ``output_schema``, when
``schema_valid_rate`` is at least 1.0 (every structured answer validates).
A metric with no value fails its check, except that sixth, which is left out. Every threshold is a field of
:class:`~council.evals.metrics.Thresholds`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from council.evals.metrics import RunMetrics, Thresholds

#: The gate's conditions: (metric, comparison, the Thresholds field that holds its bound).
CONDITIONS = (
    ("aggregate_score", ">=", "min_aggregate_score"),
    ("pass_rate", ">=", "min_pass_rate"),
    ("faithfulness_failure_rate", "<=", "max_faithfulness_failure_rate"),
    ("latency_e2e_p95_ms", "<=", "max_latency_e2e_p95_ms"),
    ("spent_tokens_per_sample_mean", "<=", "max_spent_tokens_per_sample"),
    ("schema_valid_rate", ">=", "min_schema_valid_rate"),
)
#: Conditions on a measurement only some datasets have: left out of the gate when it has no value.
OPTIONAL = frozenset({"schema_valid_rate"})


class GateCheck(BaseModel):
    """One condition of the release gate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metric: str
    op: str = Field(description="'>=' or '<='.")
    threshold: float
    value: float | None
    passed: bool


class Gate(BaseModel):
    """The release gate's verdict and each of its checks."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    passed: bool
    checks: list[GateCheck]

    def failures(self) -> list[GateCheck]:
        """The checks that did not hold."""
        return [c for c in self.checks if not c.passed]


def check_gate(metrics: RunMetrics, thresholds: Thresholds) -> Gate:
    """Check every gate condition; a metric with no value fails."""
    checks = []
    for metric, op, bound in CONDITIONS:
        threshold, value = float(getattr(thresholds, bound)), getattr(metrics, metric)
        if value is None and metric in OPTIONAL:
            continue
        ok = value is not None and (value >= threshold if op == ">=" else value <= threshold)
        checks.append(GateCheck(metric=metric, op=op, threshold=threshold, value=value, passed=ok))
    return Gate(passed=all(c.passed for c in checks), checks=checks)


class RepeatStats(BaseModel):
    """Mean and sample standard deviation (None below two repeats) of the headline metrics across repeats."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n_repeats: int
    aggregate_score: list[float | None]
    latency_e2e_p95_ms: list[float | None]
    aggregate_score_mean: float | None
    aggregate_score_std: float | None
    latency_e2e_p95_ms_mean: float | None
    latency_e2e_p95_ms_std: float | None


def mean_std(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    """Mean and sample standard deviation (ddof 1) of the values present; std None below two."""
    present = [v for v in values if v is not None]
    if not present:
        return None, None
    mean = math.fsum(present) / len(present)
    if len(present) < 2:
        return mean, None
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in present) / (len(present) - 1))


def repeat_stats(per_repeat: Sequence[RunMetrics]) -> RepeatStats:
    """Mean and std of ``aggregate_score`` and ``latency_e2e_p95_ms`` across repeats."""
    scores = [m.aggregate_score for m in per_repeat]
    p95 = [m.latency_e2e_p95_ms for m in per_repeat]
    score_mean, score_std = mean_std(scores)
    p95_mean, p95_std = mean_std(p95)
    return RepeatStats(n_repeats=len(per_repeat), aggregate_score=scores, latency_e2e_p95_ms=p95,
                       aggregate_score_mean=score_mean, aggregate_score_std=score_std,
                       latency_e2e_p95_ms_mean=p95_mean, latency_e2e_p95_ms_std=p95_std)
