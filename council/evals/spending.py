"""What an evaluation run spends: the members a budget must price, each sample's spend, the run's cost summary.

A budget (``--max-usd``) counts every sample's answer and its evaluation,
an unknown cost as 0; that is why a budget needs a price on every member the
run may call (:func:`unpriced_members`). The cost summary keeps an unknown
cost None, never 0.
"""

from __future__ import annotations

import math

from council.evals.metrics import cost_total
from council.evals.records import CostSummary, RunManifest, SampleRecord
from council.pipeline.orchestrator import Council


def budget_spend(record: SampleRecord) -> float:
    """What a sample counts against a budget: its answer and its evaluation, an unknown cost as 0, less
    what its reused calls cost when they were made (a kept reply is not paid for again)."""
    return max(0.0, (record.metrics.cost_usd or 0.0) + (record.evaluation.cost_usd or 0.0) - record.reused_usd)


def budget_members(council: Council, manifest: RunManifest, rubrics: bool) -> list[str]:
    """Every member a run may call, in config order: the members, the chairman, the evaluator, the safety
    member, and (when the dataset has rubrics, which the whole council judges) every member."""
    config = council.config
    wanted = {*manifest.members, manifest.evaluator.member}
    if manifest.mode == "council":
        wanted |= {name for name in (config.chairman, config.safety.llm_member) if name}
    if rubrics:
        wanted |= {m.name for m in config.members}
    return [m.name for m in config.members if m.name in wanted]


def unpriced_members(council: Council, manifest: RunManifest, rubrics: bool) -> list[str]:
    """The members a run may call that have no price, so a budget could not count their calls."""
    return [name for name in budget_members(council, manifest, rubrics) if council.config.member(name).price is None]


def evaluator_tokens(records: list[SampleRecord]) -> int:
    """Every token the run's evaluator spent: on the answers, and on the members' answers (--score-candidates)."""
    return sum(r.evaluation.usage.total_tokens + sum(e.usage.total_tokens for e in r.candidate_evaluations.values())
               for r in records)


def cost_summary(records: list[SampleRecord]) -> CostSummary:
    """What every answer of a run cost, and apart from it its evaluator; unknown costs are None, never 0."""
    metrics = [r.metrics for r in records]
    total = cost_total(metrics)
    unpriced = list(dict.fromkeys(name for r in records for name in r.unpriced))
    evaluator = [usd for r in records for usd in (r.evaluation.cost_usd,
                                                  *(e.cost_usd for e in r.candidate_evaluations.values()))]
    known = [usd for usd in evaluator if usd is not None]
    return CostSummary(
        total_usd=total, per_sample_usd=total / len(records) if total is not None and records else None,
        partial=any(m.cost_usd is None or m.cost_partial for m in metrics), unpriced=unpriced,
        evaluator_usd=math.fsum(known) if known else None, evaluator_partial=len(known) < len(evaluator),
        reused_usd=math.fsum(r.reused_usd for r in records),
    )
