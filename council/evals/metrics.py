"""Per-sample metrics, run aggregates and the release gate: pure functions, no I/O.

Per sample (:class:`SampleMetrics`):

- ``accuracy_score`` and ``faithfulness_score``: 0, 1 or 2 from the evaluator,
  None when it gave no usable verdict or there was no answer to score;
- ``latency_e2e_ms`` (request start to final answer fully received; for a
  timed-out sample, the time until it was abandoned) and ``latency_model_ms``
  (model time as the provider client reported it, None when unknown);
- ``input_tokens``, ``output_tokens``, ``total_tokens``, and
  ``token_efficiency_ratio = output / max(input, 1)``.

What latency and tokens cover in each mode is said in :mod:`council.evals.runner`.

A sample passes when ``accuracy >= 1``, ``faithfulness >= 1``,
``latency_e2e_ms <= 8000`` and ``total_tokens <= 6000`` (every threshold is
a field of :class:`Thresholds`); a missing score never passes. Its score::

    sample_score = 0.45 * accuracy / 2 + 0.30 * faithfulness / 2
                 + 0.15 * min(1, 3000 / max(latency_e2e_ms, 1))
                 + 0.10 * min(1, 2000 / max(total_tokens, 1))

with a missing score counting as 0: a sample the evaluator could not score
gets no credit for it.

Run aggregates (:func:`aggregate_metrics`): score means and rates are over the
samples that have the score (``n_scored``), so an evaluator failure is
visible as a count rather than a made-up zero; ``pass_rate`` and
``aggregate_score`` (the mean sample score) are over every sample, so it
still costs. ``accuracy_full_credit_rate`` is the share with accuracy 2,
``faithfulness_failure_rate`` the share with faithfulness 0. Latency
percentiles interpolate linearly between order statistics (numpy's default)
and include timed-out samples at their elapsed time. Token totals cover
every sample; ``token_efficiency_ratio_mean`` the answered ones;
``tokens_per_correct_answer`` is the total over the number of samples with
full accuracy credit (None when there is none).

Cost, in US dollars (what each sample's answer cost: the council run, or the
member's one call; the evaluator's calls are kept apart by the runner):
``cost_usd_total`` sums the samples whose cost is known, and is None when no
sample's is (an unknown cost is never counted as 0); ``cost_partial`` says
some sample's cost is unknown or partial (a member without a price), and then
every cost figure is a lower bound. ``cost_per_sample_usd`` is the total over
every sample, and ``cost_per_correct_answer_usd`` the total over the samples
with full accuracy credit, as ``tokens_per_correct_answer`` is.

The gate (:func:`check_gate`) holds when ``aggregate_score >= 0.80``,
``pass_rate >= 0.85``, ``faithfulness_failure_rate <= 0.05`` and
``latency_e2e_p95_ms <= 10000``. A metric with no value fails its check.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, computed_field

WEIGHTS = {"accuracy": 0.45, "faithfulness": 0.30, "latency": 0.15, "token_efficiency": 0.10}
LATENCY_REFERENCE_MS = 3000.0
TOKEN_REFERENCE = 2000.0


class Thresholds(BaseModel):
    """Every threshold of the sample verdict and of the release gate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_accuracy: int = Field(default=1, ge=0, le=2, description="A passing sample's least accuracy score.")
    min_faithfulness: int = Field(default=1, ge=0, le=2, description="A passing sample's least faithfulness score.")
    max_latency_e2e_ms: float = Field(default=8000.0, gt=0, description="A passing sample's longest latency.")
    max_total_tokens: int = Field(default=6000, ge=1, description="A passing sample's largest token count.")
    min_aggregate_score: float = Field(default=0.80, ge=0, le=1, description="Gate: least aggregate_score.")
    min_pass_rate: float = Field(default=0.85, ge=0, le=1, description="Gate: least pass_rate.")
    max_faithfulness_failure_rate: float = Field(default=0.05, ge=0, le=1,
                                                 description="Gate: largest faithfulness_failure_rate.")
    max_latency_e2e_p95_ms: float = Field(default=10000.0, gt=0, description="Gate: longest latency_e2e_p95_ms.")


class SampleMetrics(BaseModel):
    """The measurements of one sample (one answer to one task)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    answered: bool = Field(description="An answer was produced (and so could be scored).")
    accuracy_score: int | None = None
    faithfulness_score: int | None = None
    latency_e2e_ms: float = 0.0
    latency_model_ms: float | None = None
    timed_out: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = Field(default=None, description="What the answer cost in US dollars (the council run, "
                                                             "or the member's call); None when unknown, never 0.")
    cost_partial: bool = Field(default=False, description="Some of the answer's calls have no known cost (a member "
                                                          "without a price): cost_usd is a lower bound.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    @computed_field  # type: ignore[prop-decorator]
    @property
    def token_efficiency_ratio(self) -> float:
        """Output tokens per input token."""
        return token_efficiency_ratio(self.output_tokens, self.input_tokens)


def token_efficiency_ratio(output_tokens: int, input_tokens: int) -> float:
    """``output / max(input, 1)``."""
    return output_tokens / max(input_tokens, 1)


def latency_norm(latency_ms: float) -> float:
    """``min(1, 3000 / max(latency, 1))``: 1 up to 3 s, then falling as 1/latency."""
    return min(1.0, LATENCY_REFERENCE_MS / max(latency_ms, 1.0))


def token_efficiency_norm(total_tokens: int) -> float:
    """``min(1, 2000 / max(total_tokens, 1))``: 1 up to 2,000 tokens, then falling."""
    return min(1.0, TOKEN_REFERENCE / max(total_tokens, 1))


def score_norm(score: int | None) -> float:
    """A 0-2 score on 0-1; a missing score is 0."""
    return 0.0 if score is None else score / 2


def sample_score(metrics: SampleMetrics) -> float:
    """The weighted score of one sample (module docstring)."""
    return (WEIGHTS["accuracy"] * score_norm(metrics.accuracy_score)
            + WEIGHTS["faithfulness"] * score_norm(metrics.faithfulness_score)
            + WEIGHTS["latency"] * latency_norm(metrics.latency_e2e_ms)
            + WEIGHTS["token_efficiency"] * token_efficiency_norm(metrics.total_tokens))


def failed_conditions(metrics: SampleMetrics, thresholds: Thresholds) -> list[str]:
    """Why a sample does not pass; empty when it passes."""
    reasons = []
    if metrics.accuracy_score is None or metrics.accuracy_score < thresholds.min_accuracy:
        reasons.append(f"accuracy {metrics.accuracy_score} < {thresholds.min_accuracy}")
    if metrics.faithfulness_score is None or metrics.faithfulness_score < thresholds.min_faithfulness:
        reasons.append(f"faithfulness {metrics.faithfulness_score} < {thresholds.min_faithfulness}")
    if metrics.latency_e2e_ms > thresholds.max_latency_e2e_ms:
        reasons.append(f"latency {metrics.latency_e2e_ms:.0f} ms > {thresholds.max_latency_e2e_ms:g}")
    if metrics.total_tokens > thresholds.max_total_tokens:
        reasons.append(f"tokens {metrics.total_tokens} > {thresholds.max_total_tokens}")
    return reasons


def sample_passes(metrics: SampleMetrics, thresholds: Thresholds) -> bool:
    """True when every pass condition holds."""
    return not failed_conditions(metrics, thresholds)


class RunMetrics(BaseModel):
    """The aggregates of a set of samples (module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n_samples: int = 0
    n_scored: int = 0
    n_answered: int = 0
    n_timed_out: int = 0
    accuracy_mean: float | None = None
    accuracy_full_credit_rate: float | None = None
    faithfulness_mean: float | None = None
    faithfulness_failure_rate: float | None = None
    latency_e2e_p50_ms: float | None = None
    latency_e2e_p95_ms: float | None = None
    latency_model_p50_ms: float | None = None
    latency_model_p95_ms: float | None = None
    input_tokens_total: int = 0
    output_tokens_total: int = 0
    total_tokens_total: int = 0
    token_efficiency_ratio_mean: float | None = None
    tokens_per_correct_answer: float | None = None
    cost_usd_total: float | None = None
    cost_per_sample_usd: float | None = None
    cost_per_correct_answer_usd: float | None = None
    cost_partial: bool = False
    pass_rate: float | None = None
    aggregate_score: float | None = None


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile with linear interpolation; None for no values."""
    if not values:
        return None
    return float(np.percentile(np.asarray(values, dtype=float), q))


def _mean(values: Sequence[float]) -> float | None:
    return float(math.fsum(values) / len(values)) if values else None


def usd(value: float) -> str:
    """Dollars to read: four decimals, six below a cent (an evaluation on cheap models needs them)."""
    return f"${value:,.4f}" if value >= 0.01 or value == 0 else f"${value:.6f}"


def cost_total(samples: Sequence[SampleMetrics]) -> float | None:
    """The sum of the known sample costs; None when no sample's cost is known (never a made-up 0)."""
    known = [s.cost_usd for s in samples if s.cost_usd is not None]
    return math.fsum(known) if known else None


def aggregate_metrics(samples: Sequence[SampleMetrics], thresholds: Thresholds) -> RunMetrics:
    """The run aggregates of ``samples`` under ``thresholds``."""
    accuracy = [s.accuracy_score for s in samples if s.accuracy_score is not None]
    faithfulness = [s.faithfulness_score for s in samples if s.faithfulness_score is not None]
    model_latency = [s.latency_model_ms for s in samples if s.latency_model_ms is not None]
    total = sum(s.total_tokens for s in samples)
    correct = sum(1 for s in samples if s.accuracy_score == 2)
    n = len(samples)
    cost = cost_total(samples)
    return RunMetrics(
        n_samples=n,
        n_scored=sum(1 for s in samples if s.accuracy_score is not None and s.faithfulness_score is not None),
        n_answered=sum(1 for s in samples if s.answered),
        n_timed_out=sum(1 for s in samples if s.timed_out),
        accuracy_mean=_mean(accuracy),
        accuracy_full_credit_rate=_mean([float(a == 2) for a in accuracy]),
        faithfulness_mean=_mean(faithfulness),
        faithfulness_failure_rate=_mean([float(f == 0) for f in faithfulness]),
        latency_e2e_p50_ms=percentile([s.latency_e2e_ms for s in samples], 50),
        latency_e2e_p95_ms=percentile([s.latency_e2e_ms for s in samples], 95),
        latency_model_p50_ms=percentile(model_latency, 50),
        latency_model_p95_ms=percentile(model_latency, 95),
        input_tokens_total=sum(s.input_tokens for s in samples),
        output_tokens_total=sum(s.output_tokens for s in samples),
        total_tokens_total=total,
        token_efficiency_ratio_mean=_mean([s.token_efficiency_ratio for s in samples if s.answered]),
        tokens_per_correct_answer=total / correct if correct else None,
        cost_usd_total=cost,
        cost_per_sample_usd=cost / n if cost is not None and n else None,
        cost_per_correct_answer_usd=cost / correct if cost is not None and correct else None,
        cost_partial=any(s.cost_usd is None or s.cost_partial for s in samples),
        pass_rate=_mean([float(sample_passes(s, thresholds)) for s in samples]),
        aggregate_score=_mean([sample_score(s) for s in samples]),
    )


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
    conditions = [
        ("aggregate_score", ">=", thresholds.min_aggregate_score),
        ("pass_rate", ">=", thresholds.min_pass_rate),
        ("faithfulness_failure_rate", "<=", thresholds.max_faithfulness_failure_rate),
        ("latency_e2e_p95_ms", "<=", thresholds.max_latency_e2e_p95_ms),
    ]
    checks = []
    for metric, op, threshold in conditions:
        value = getattr(metrics, metric)
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
