"""``council eval compare RUN_A RUN_B``: what changed between two evaluation runs.

For every subject both runs share (the council, or a judged member), each
run metric with its delta (B minus A), and the gate verdicts. Then the
samples whose verdict flipped: a sample's verdict in a run is *pass* when it
passed in at least half of that run's repeats, so with one repeat it is
simply whether it passed. Samples present in only one run are listed apart,
and runs over different datasets (by hash) are compared with a warning.

Cost: the cost metrics are among the deltas, and a line gives what each
run's answers cost in all and a sample, with B's cost a sample over A's
when both are known (a cost that is not known is never taken for 0).
"""

from __future__ import annotations

from collections import defaultdict

from pydantic import BaseModel, ConfigDict

from council.evals.metrics import RunMetrics, usd
from council.evals.records import EvalSummary, SampleRecord, StoredRun
from council.evals.report import fmt, text_table

# Flags (cost_partial) are not differences; the cost line says which run's cost is partial.
DELTA_METRICS = [name for name, field in RunMetrics.model_fields.items() if field.annotation is not bool]


class MetricDelta(BaseModel):
    """One metric of one subject in both runs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    subject: str
    metric: str
    a: float | None
    b: float | None
    delta: float | None


class Flip(BaseModel):
    """A sample whose verdict differs between the runs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    subject: str
    sample_id: str
    a: str
    b: str
    direction: str


class RunCostSide(BaseModel):
    """What one run's answers cost (the evaluator's apart); None when not known."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    total_usd: float | None = None
    per_sample_usd: float | None = None
    partial: bool = False
    evaluator_usd: float | None = None


class CostComparison(BaseModel):
    """Both runs' cost, and B's cost a sample over A's when both are known."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    a: RunCostSide
    b: RunCostSide
    ratio: float | None = None


class Comparison(BaseModel):
    """The comparison of two stored evaluation runs."""

    model_config = ConfigDict(extra="forbid")

    run_a: str
    run_b: str
    gate_a: bool
    gate_b: bool
    deltas: list[MetricDelta]
    flipped: list[Flip]
    only_in_a: list[str]
    only_in_b: list[str]
    warnings: list[str]
    cost: CostComparison | None = None


def _cost_side(summary: EvalSummary) -> RunCostSide:
    cost = summary.cost
    if cost is None:
        return RunCostSide()
    return RunCostSide(total_usd=cost.total_usd, per_sample_usd=cost.per_sample_usd, partial=cost.partial,
                       evaluator_usd=cost.evaluator_usd)


def compare_costs(a: EvalSummary, b: EvalSummary) -> CostComparison:
    """Both runs' cost; the ratio (B over A, a sample) only when both are known and A's is not 0."""
    left, right = _cost_side(a), _cost_side(b)
    ratio = None
    if left.per_sample_usd and right.per_sample_usd is not None:
        ratio = right.per_sample_usd / left.per_sample_usd
    return CostComparison(a=left, b=right, ratio=ratio)


def verdicts(records: list[SampleRecord]) -> dict[tuple[str, str], tuple[int, int]]:
    """``(subject, sample_id) -> (repeats passed, repeats run)``."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for record in records:
        entry = counts[(record.subject, record.sample_id)]
        entry[0] += record.passed
        entry[1] += 1
    return {key: (passed, total) for key, (passed, total) in counts.items()}


def _passes(passed: int, total: int) -> bool:
    return 2 * passed >= total


def _describe(passed: int, total: int) -> str:
    word = "pass" if _passes(passed, total) else "fail"
    return word if total == 1 else f"{word} ({passed}/{total})"


def compare_runs(a: StoredRun, b: StoredRun, records_a: list[SampleRecord],
                 records_b: list[SampleRecord]) -> Comparison:
    """Metric deltas and flipped verdicts between two finished runs (``a.summary`` and ``b.summary`` set)."""
    assert a.summary is not None and b.summary is not None
    warnings = []
    if a.manifest.dataset_hash != b.manifest.dataset_hash:
        warnings.append(f"the runs used different datasets ({a.manifest.dataset_id} {a.manifest.dataset_hash[:12]} "
                        f"vs {b.manifest.dataset_id} {b.manifest.dataset_hash[:12]})")
    if a.manifest.mode != b.manifest.mode:
        warnings.append(f"the runs are in different modes ({a.manifest.mode} vs {b.manifest.mode})")
    if a.manifest.thresholds != b.manifest.thresholds:
        warnings.append("the runs used different thresholds, so verdicts are not judged alike")
    deltas = []
    for subject in [s for s in a.summary.subjects if s in b.summary.subjects]:
        left, right = a.summary.subjects[subject].metrics, b.summary.subjects[subject].metrics
        for metric in DELTA_METRICS:
            x, y = getattr(left, metric), getattr(right, metric)
            delta = None if x is None or y is None else y - x
            deltas.append(MetricDelta(subject=subject, metric=metric, a=x, b=y, delta=delta))
    va, vb = verdicts(records_a), verdicts(records_b)
    flipped = []
    for key in [k for k in va if k in vb]:
        before, after = _passes(*va[key]), _passes(*vb[key])
        if before != after:
            flipped.append(Flip(subject=key[0], sample_id=key[1], a=_describe(*va[key]), b=_describe(*vb[key]),
                                direction="pass -> fail" if before else "fail -> pass"))
    return Comparison(
        run_a=a.manifest.run_id, run_b=b.manifest.run_id, gate_a=a.summary.gate_passed, gate_b=b.summary.gate_passed,
        deltas=deltas, flipped=flipped,
        only_in_a=[f"{s}/{i}" for s, i in va if (s, i) not in vb],
        only_in_b=[f"{s}/{i}" for s, i in vb if (s, i) not in va],
        warnings=warnings, cost=compare_costs(a.summary, b.summary),
    )


def _signed(value: float | None, digits: int) -> str:
    if value is None:
        return "-"
    return ("+" if value > 0 else "") + fmt(value, digits)


def _money(value: float | None) -> str:
    return "-" if value is None else usd(value)


def _signed_money(value: float | None) -> str:
    if value is None:
        return "-"
    return ("+" if value > 0 else "-" if value < 0 else "") + usd(abs(value))


def _side(side: RunCostSide) -> str:
    if side.total_usd is None:
        return "unknown"
    partial = " (partial)" if side.partial else ""
    return f"{usd(side.total_usd)}{partial} ({_money(side.per_sample_usd)} a sample)"


def cost_line(cost: CostComparison | None) -> str:
    """``cost: A ... vs B ...; B/A ...`` (the ratio only when both runs' cost is known)."""
    if cost is None:
        return "cost: not recorded"
    line = f"cost: A {_side(cost.a)} vs B {_side(cost.b)}"
    if cost.ratio is not None:
        line += f"; B/A {cost.ratio:.2f}x a sample"
        if cost.a.partial or cost.b.partial:
            line += " (over partial costs)"
    return line


def render_comparison(comparison: Comparison) -> str:
    """The comparison as text: metric deltas, gate verdicts, cost and flipped samples."""
    rows = []
    for d in comparison.deltas:
        if d.metric.endswith("_usd") or d.metric.startswith("cost_"):
            rows.append([d.subject, d.metric, _money(d.a), _money(d.b), _signed_money(d.delta)])
            continue
        whole = d.metric.endswith(("_ms", "_total", "answer", "_tokens", "_per_sample_mean"))
        digits = 0 if whole or d.metric.startswith("n_") else 3
        rows.append([d.subject, d.metric, fmt(d.a, digits), fmt(d.b, digits), _signed(d.delta, digits)])
    gate = {True: "PASS", False: "FAIL"}
    parts = [f"Comparing evaluation runs A={comparison.run_a} and B={comparison.run_b}",
             f"gate: A {gate[comparison.gate_a]}, B {gate[comparison.gate_b]}", cost_line(comparison.cost), "",
             text_table((["subject", "metric", "A", "B", "B - A"], rows)), ""]
    if comparison.flipped:
        parts.append(f"Samples whose verdict flipped ({len(comparison.flipped)}):")
        parts.append(text_table((["subject", "sample", "A", "B", "change"],
                                 [[f.subject, f.sample_id, f.a, f.b, f.direction] for f in comparison.flipped])))
    else:
        parts.append("No sample's verdict flipped.")
    if comparison.only_in_a or comparison.only_in_b:
        parts.append(f"only in A: {', '.join(comparison.only_in_a) or '-'}; "
                     f"only in B: {', '.join(comparison.only_in_b) or '-'}")
    parts += [f"warning: {w}" for w in comparison.warnings]
    return "\n".join(parts)
