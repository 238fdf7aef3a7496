"""Per-sample metrics and run aggregates: pure functions, no I/O. The gate is :mod:`council.evals.gate`.

Names follow the evaluation spec. Per sample (:class:`SampleMetrics`):

- ``accuracy_score`` and ``faithfulness_score``: 0, 1 or 2 from the evaluator,
  None when it gave no usable verdict or there was no answer to score;
- ``latency_e2e_ms`` (request start to final answer fully received; for a
  timed-out sample, the time until it was abandoned) and ``latency_model_ms``
  (model time as the provider client reported it, None when unknown);
- ``input_tokens``, ``output_tokens``, ``total_tokens``, and
  ``token_efficiency_ratio = output / max(input, 1)``: the call that produced
  the answer returned (in council mode the chairman's, or the top-ranked
  member's answer when there is no chairman);
- ``spent_input_tokens``, ``spent_output_tokens``, ``spent_total_tokens``:
  every call the answer took (a council's answers, reviews, safety checks
  and chairman; in judge mode the same one call);
- ``other_failures``: why the sample failed beyond these measurements (an
  AgentV rubric verdict), each a reason such as ``rubric X: failed ...``.

A sample passes when ``accuracy >= 1``, ``faithfulness >= 1``,
``latency_e2e_ms <= 8000``, ``total_tokens <= 6000`` (every threshold is a
field of :class:`Thresholds`) and it has no other failure; a missing score
never passes. Its score::

    sample_score = 0.45 * accuracy / 2 + 0.30 * faithfulness / 2
                 + 0.15 * min(1, 3000 / max(latency_e2e_ms, 1))
                 + 0.10 * min(1, 2000 / max(total_tokens, 1))

with a missing score counting as 0: a sample the evaluator could not score
gets no credit for it.

Run aggregates (:func:`aggregate_metrics`): ``accuracy_mean`` and
``faithfulness_mean`` are over the samples that have the score
(``n_scored`` says how many); every rate is over every sample, and a sample
without a score counts against it: ``accuracy_full_credit_rate`` is the share
with accuracy 2, ``faithfulness_failure_rate`` the share with faithfulness 0
*or none* (so an evaluator that fails can never make the rate look better),
``pass_rate`` the share that passed. ``aggregate_score`` is the mean sample
score. Latency percentiles interpolate linearly between order statistics
(numpy's default) and include timed-out samples at their elapsed time.
``total_input_tokens``, ``total_output_tokens`` and ``total_tokens`` cover
every sample; ``token_efficiency_ratio_mean`` the answered ones;
``tokens_per_correct_answer = total_tokens / max(count(accuracy = 2), 1)``.
``total_spent_tokens`` and ``spent_tokens_per_sample_mean`` are the whole
spend. The names of earlier releases (``input_tokens_total``,
``output_tokens_total``, ``total_tokens_total``) are still written beside
the spec's, as aliases (:data:`ALIASES`), for one release.

Cost, in US dollars (what each sample's answer cost: the council run, or the
member's one call; the evaluator's calls are kept apart by the runner):
``cost_usd_total`` sums the samples whose cost is known, and is None when no
sample's is (an unknown cost is never counted as 0); ``cost_partial`` says
some sample's cost is unknown or partial (a member without a price), and then
every cost figure is a lower bound. ``cost_per_sample_usd`` is the total over
every sample, and ``cost_per_correct_answer_usd`` the total over
``max(count(accuracy = 2), 1)``, as ``tokens_per_correct_answer`` is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from council.result import CouncilResult, ReviewRecord, RevisionRecord
from council.types import Usage

WEIGHTS = {"accuracy": 0.45, "faithfulness": 0.30, "latency": 0.15, "token_efficiency": 0.10}
LATENCY_REFERENCE_MS = 3000.0
TOKEN_REFERENCE = 2000.0
#: Aggregate names of earlier releases -> the spec's names; both are written, for one release.
ALIASES = {"input_tokens_total": "total_input_tokens", "output_tokens_total": "total_output_tokens",
           "total_tokens_total": "total_tokens"}


class Thresholds(BaseModel):
    """Every threshold of the sample verdict and of the release gate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_accuracy: int = Field(default=1, ge=0, le=2, description="A passing sample's least accuracy score.")
    min_faithfulness: int = Field(default=1, ge=0, le=2, description="A passing sample's least faithfulness score.")
    max_latency_e2e_ms: float = Field(default=8000.0, gt=0, description="A passing sample's longest latency.")
    max_total_tokens: int = Field(default=6000, ge=1, description="A passing sample's largest total_tokens (the "
                                                                  "call that produced the answer returned).")
    min_aggregate_score: float = Field(default=0.80, ge=0, le=1, description="Gate: least aggregate_score.")
    min_pass_rate: float = Field(default=0.85, ge=0, le=1, description="Gate: least pass_rate.")
    max_faithfulness_failure_rate: float = Field(default=0.05, ge=0, le=1,
                                                 description="Gate: largest faithfulness_failure_rate.")
    max_latency_e2e_p95_ms: float = Field(default=10000.0, gt=0, description="Gate: longest latency_e2e_p95_ms.")
    max_spent_tokens_per_sample: int = Field(default=20000, ge=1, description="Gate: largest "
                                             "spent_tokens_per_sample_mean (every call of a sample counted).")
    min_schema_valid_rate: float = Field(default=1.0, ge=0, le=1, description="Gate: least schema_valid_rate (the "
                                         "samples with an output_schema whose answer validates); checked only when "
                                         "the dataset has such samples.")


class SampleMetrics(BaseModel):
    """The measurements of one sample (one answer to one task)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    answered: bool = Field(description="An answer was produced (and so could be scored).")
    accuracy_score: int | None = None
    faithfulness_score: int | None = None
    latency_e2e_ms: float = 0.0
    latency_model_ms: float | None = None
    timed_out: bool = False
    input_tokens: int = Field(default=0, description="Input tokens of the call that produced the answer returned.")
    output_tokens: int = Field(default=0, description="Output tokens of that call.")
    spent_input_tokens: int = Field(default=0, description="Input tokens of every call the answer took.")
    spent_output_tokens: int = Field(default=0, description="Output tokens of every call the answer took.")
    other_failures: list[str] = Field(default_factory=list, description="Why the sample failed beyond these "
                                                                        "measurements (an AgentV rubric verdict).")
    cost_usd: float | None = Field(default=None, description="What the answer cost in US dollars (the council run, "
                                                             "or the member's call); None when unknown, never 0.")
    cost_partial: bool = Field(default=False, description="Some of the answer's calls have no known cost (a member "
                                                          "without a price): cost_usd is a lower bound.")
    schema_valid: bool | None = Field(default=None, description="The answer is a JSON value valid for the sample's "
                                                                "output_schema; None when the sample has none.")

    @model_validator(mode="before")
    @classmethod
    def _spent_defaults_to_the_answer(cls, data: Any) -> Any:
        # One call (judge mode, and records written before the spend was kept apart): the spend is that call.
        if isinstance(data, dict):
            data = {**data}
            data.setdefault("spent_input_tokens", data.get("input_tokens", 0))
            data.setdefault("spent_output_tokens", data.get("output_tokens", 0))
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    @computed_field  # type: ignore[prop-decorator]
    @property
    def spent_total_tokens(self) -> int:
        """Every call's input plus output tokens."""
        return self.spent_input_tokens + self.spent_output_tokens

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
    if metrics.schema_valid is False:
        reasons.append("schema: the answer is not a JSON value valid for the sample's output_schema")
    return reasons + list(metrics.other_failures)


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
    total_input_tokens: int = 0
    total_output_tokens: int = 0
    total_tokens: int = 0
    token_efficiency_ratio_mean: float | None = None
    tokens_per_correct_answer: float | None = None
    total_spent_tokens: int = 0
    spent_tokens_per_sample_mean: float | None = None
    cost_usd_total: float | None = None
    cost_per_sample_usd: float | None = None
    cost_per_correct_answer_usd: float | None = None
    cost_partial: bool = False
    pass_rate: float | None = None
    aggregate_score: float | None = None
    schema_valid_rate: float | None = Field(default=None, description="Of the samples with an output_schema, the share "
                                                                      "whose answer validates (None: no such sample).")

    @model_validator(mode="before")
    @classmethod
    def _read_aliases(cls, data: Any) -> Any:
        # A summary written by an earlier release has the old names; one written now has both.
        if isinstance(data, dict):
            data = {**data}
            for old, new in ALIASES.items():
                if old in data:
                    value = data.pop(old)
                    data.setdefault(new, value)
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def input_tokens_total(self) -> int:
        """Deprecated alias of ``total_input_tokens`` (removed in the next release)."""
        return self.total_input_tokens

    @computed_field  # type: ignore[prop-decorator]
    @property
    def output_tokens_total(self) -> int:
        """Deprecated alias of ``total_output_tokens`` (removed in the next release)."""
        return self.total_output_tokens

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total_tokens_total(self) -> int:
        """Deprecated alias of ``total_tokens`` (removed in the next release)."""
        return self.total_tokens


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
    spent = sum(s.spent_total_tokens for s in samples)
    return RunMetrics(
        n_samples=n,
        n_scored=sum(1 for s in samples if s.accuracy_score is not None and s.faithfulness_score is not None),
        n_answered=sum(1 for s in samples if s.answered),
        n_timed_out=sum(1 for s in samples if s.timed_out),
        accuracy_mean=_mean(accuracy),
        accuracy_full_credit_rate=correct / n if n else None,
        faithfulness_mean=_mean(faithfulness),
        # A sample without a faithfulness score counts as a failure: it must never make the gate easier to pass.
        faithfulness_failure_rate=_mean([float(s.faithfulness_score in (0, None)) for s in samples]),
        latency_e2e_p50_ms=percentile([s.latency_e2e_ms for s in samples], 50),
        latency_e2e_p95_ms=percentile([s.latency_e2e_ms for s in samples], 95),
        latency_model_p50_ms=percentile(model_latency, 50),
        latency_model_p95_ms=percentile(model_latency, 95),
        total_input_tokens=sum(s.input_tokens for s in samples),
        total_output_tokens=sum(s.output_tokens for s in samples),
        total_tokens=total,
        token_efficiency_ratio_mean=_mean([s.token_efficiency_ratio for s in samples if s.answered]),
        tokens_per_correct_answer=total / max(correct, 1),
        total_spent_tokens=spent,
        spent_tokens_per_sample_mean=spent / n if n else None,
        cost_usd_total=cost,
        cost_per_sample_usd=cost / n if cost is not None and n else None,
        cost_per_correct_answer_usd=cost / max(correct, 1) if cost is not None else None,
        cost_partial=any(s.cost_usd is None or s.cost_partial for s in samples),
        pass_rate=_mean([float(sample_passes(s, thresholds)) for s in samples]),
        aggregate_score=_mean([sample_score(s) for s in samples]),
        schema_valid_rate=_mean([float(s.schema_valid) for s in samples if s.schema_valid is not None]),
    )


def model_critical_path_ms(result: CouncilResult) -> float | None:
    """The model time on a run's critical path: the slowest call of each step, summed (None: no time known)."""
    rounds = result.deliberation  # a second round adds its revisions and the first round's reviews
    steps: list[Sequence[ReviewRecord | RevisionRecord]] = [rounds.first_round.reviews, rounds.revisions] \
        if rounds is not None and rounds.first_round else []
    stages = [max((a.latency_ms for a in result.answers), default=0.0),
              *(max((call.latency_ms for call in calls), default=0.0) for calls in [*steps, result.reviews]),
              result.final_answer.latency_ms if result.final_answer else 0.0]
    total = sum(stages)
    return total if total > 0 else None


def returned_answer_usage(result: CouncilResult) -> Usage:
    """The tokens of the call that produced the answer the council returned: the chairman's, or the
    top-ranked member's answer when the final answer is that answer (no chairman, or its fallback)."""
    final = result.final_answer
    if final is None or final.source == "none":
        return Usage()
    if final.source == "chairman" and not final.fallback:
        return final.usage
    return next((a.usage for a in result.answers if a.member == final.by), final.usage)
