"""The leaderboard of members over a dataset, and the batch calibration behind it.

**Council mode: two-pass calibration.** While a run goes, each council ranks
its answers with whatever reviewer history the database held at that moment,
which depends on what ran before and, under concurrency, on timing. Once
every sample has run, the leaderboard is rebuilt from the stored ballots:

1. *Pass 1.* Each sample's :class:`~council.ranking.aggregation.ScoreSheet` is rebuilt
   from its stored result (:func:`council.pipeline.rank_stage.build_sheet`), and all
   of them are folded, in dataset order, into one batch
   :class:`~council.ranking.aggregation.ReviewerHistory` per reviewer
   (:func:`council.ranking.aggregation.update_history`): each reviewer's mean and
   spread over the whole batch, and how far it strays from the consensus.
2. *Pass 2.* Every sample is aggregated again with those batch statistics,
   leaving out its own contribution (its scores are un-merged exactly from
   the Welford statistics, its consensus residuals subtracted), since
   :func:`council.ranking.aggregation.aggregate` expects a history that excludes the
   run being ranked. A reviewer is thus calibrated on the other N-1 samples,
   not on its 3-4 scores of one question, which is where calibration gains
   most; and the leaderboard depends only on this run's records, not on what
   the database saw before.

The final answers are not changed: they were written during the run.

Member scores per sample are then averaged over repeats, and each
leaderboard figure is a mean over samples with a percentile bootstrap
confidence interval (resampling samples, ``N_RESAMPLES`` times, fixed seed).
In judge mode the leaderboard ranks members by their mean sample score, with
their accuracy, faithfulness and pass rate beside it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from council.evals.metrics import Thresholds, sample_passes
from council.evals.records import Interval, Leaderboard, LeaderboardEntry, SampleRecord
from council.pipeline.rank_stage import build_sheet
from council.ranking.aggregation import aggregate, update_history
from council.ranking.sheet import Aggregate, ReviewerHistory, ScoreSheet
from council.result import CouncilResult
from council.rubrics.model import Rubric

N_RESAMPLES = 2000
CONFIDENCE = 0.95
BOOTSTRAP_SEED = 42
_CHUNK_ELEMENTS = 2_000_000


Residuals = dict[str, tuple[int, float]]
"""Per reviewer: the count and sum of squared consensus residuals one sheet added in pass 1."""


def batch_history(sheets: Sequence[ScoreSheet]) -> tuple[dict[str, ReviewerHistory], list[Residuals]]:
    """Pass 1: every sheet folded into one history per reviewer, and each sheet's residual contribution."""
    history: dict[str, ReviewerHistory] = {}
    residuals: list[Residuals] = []
    for sheet in sheets:
        before = history
        history = update_history(history, sheet)
        part = {}
        for name in sheet.reviewers:
            old = before.get(name, ReviewerHistory())
            part[name] = (history[name].resid_count - old.resid_count, history[name].resid_m2 - old.resid_m2)
        residuals.append(part)
    return history, residuals


def leave_one_out(total: Mapping[str, ReviewerHistory], sheet: ScoreSheet,
                  residuals: Residuals) -> dict[str, ReviewerHistory]:
    """The batch history without ``sheet``'s own scores and residuals."""
    out = dict(total)
    for row, name in enumerate(sheet.reviewers):
        if name not in total:
            continue
        scores = sheet.overall[row][np.isfinite(sheet.overall[row])]
        whole, k = total[name], len(scores)
        n = whole.count - k
        resid_count, resid_m2 = residuals.get(name, (0, 0.0))
        if n <= 0:
            out.pop(name)
            continue
        if k:
            own_mean = float(scores.mean())
            own_m2 = float(((scores - own_mean) ** 2).sum())
            mean = (whole.count * whole.mean - k * own_mean) / n
            # Chan's merge run backwards: M2 = M2_rest + M2_own + delta^2 * n * k / N.
            m2 = whole.m2 - own_m2 - (own_mean - mean) ** 2 * n * k / whole.count
        else:
            mean, m2 = whole.mean, whole.m2
        out[name] = ReviewerHistory(count=n, mean=mean, m2=max(m2, 0.0),
                                    resid_count=max(whole.resid_count - resid_count, 0),
                                    resid_m2=max(whole.resid_m2 - resid_m2, 0.0))
    return out


def sheet_of(result: CouncilResult, rubric: Rubric) -> ScoreSheet | None:
    """The score sheet of a stored council result, or None when it had nothing to rank."""
    surviving = [a for a in result.answers if a.status == "ok"]
    if result.status != "complete" or len(surviving) < 2 or not any(r.status == "ok" for r in result.reviews):
        return None
    return build_sheet(surviving, result.reviews, rubric)


def recalibrate(sheets: Sequence[ScoreSheet], method: str) -> tuple[list[Aggregate], dict[str, ReviewerHistory]]:
    """Pass 1 then pass 2 (module docstring): each sheet's new aggregate, and the batch history."""
    total, residuals = batch_history(sheets)
    return [aggregate(sheet, leave_one_out(total, sheet, part), method, with_confidence=False)
            for sheet, part in zip(sheets, residuals, strict=True)], total


def bootstrap_intervals(values: np.ndarray, *, n_resamples: int = N_RESAMPLES, confidence: float = CONFIDENCE,
                        seed: int = BOOTSTRAP_SEED) -> list[Interval]:
    """Per column of ``values`` (samples x items, NaN where missing): the mean and a percentile bootstrap interval."""
    values = np.asarray(values, dtype=float)
    n, m = values.shape
    ok = np.isfinite(values)
    filled = np.where(ok, values, 0.0)
    counts = ok.sum(axis=0)
    means = np.divide(filled.sum(axis=0), counts, out=np.full(m, np.nan), where=counts > 0)
    if n == 0:
        return [Interval(mean=None, low=None, high=None) for _ in range(m)]
    rng = np.random.default_rng(seed)
    boot = np.empty((n_resamples, m))
    chunk = max(1, _CHUNK_ELEMENTS // max(n, 1))
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        # A multinomial draw gives how often each sample is picked in a resample: the bootstrap, without copies.
        weights = rng.multinomial(n, np.full(n, 1.0 / n), size=size).astype(float)
        sums, picked = weights @ filled, weights @ ok.astype(float)
        boot[start:start + size] = np.divide(sums, picked, out=np.full_like(sums, np.nan), where=picked > 0)
    tail = (1 - confidence) / 2 * 100
    intervals = []
    for column in range(m):
        finite = boot[:, column][np.isfinite(boot[:, column])]
        if counts[column] == 0 or finite.size == 0:
            intervals.append(Interval(mean=None, low=None, high=None))
            continue
        low, high = np.percentile(finite, [tail, 100 - tail])
        intervals.append(Interval(mean=float(means[column]), low=float(low), high=float(high)))
    return intervals


def _by_sample(units: Sequence[tuple[str, dict[str, float]]], members: list[str]) -> np.ndarray:
    """Mean over repeats of each member's value per sample: a (samples x members) array, NaN where missing."""
    grouped: dict[str, list[dict[str, float]]] = defaultdict(list)
    for sample_id, values in units:
        grouped[sample_id].append(values)
    rows = []
    for per_repeat in grouped.values():
        row = []
        for member in members:
            present = [v[member] for v in per_repeat if member in v and np.isfinite(v[member])]
            row.append(float(np.mean(present)) if present else np.nan)
        rows.append(row)
    return np.array(rows, dtype=float).reshape(len(rows), len(members))


def _entries(members: list[str], score: np.ndarray, dimensions: dict[str, np.ndarray],
             extra: dict[str, dict[str, float | None]]) -> list[LeaderboardEntry]:
    score_ci = bootstrap_intervals(score)
    dim_ci = {name: bootstrap_intervals(array) for name, array in dimensions.items()}
    order = sorted(range(len(members)), key=lambda i: (score_ci[i].mean is None, -(score_ci[i].mean or 0.0),
                                                        members[i]))
    return [
        LeaderboardEntry(member=members[i], rank=rank, n_samples=int(np.isfinite(score[:, i]).sum()),
                         score=score_ci[i], mean_rank=extra.get("mean_rank", {}).get(members[i]),
                         win_rate=extra.get("win_rate", {}).get(members[i]),
                         dimensions={name: cis[i] for name, cis in dim_ci.items() if cis[i].mean is not None})
        for rank, i in enumerate(order, start=1)
    ]


def council_leaderboard(results: Sequence[tuple[str, CouncilResult]], rubric: Rubric, method: str,
                        members: list[str]) -> Leaderboard:
    """The council-mode leaderboard from each (sample id, stored council result), recalibrated in two passes."""
    usable = [(sample_id, result, sheet) for sample_id, result in results
              if (sheet := sheet_of(result, rubric)) is not None]
    outcomes, history = recalibrate([sheet for _, _, sheet in usable], method)
    score_units, rank_units, win_units = [], [], []
    # Dimensions come from the sheets themselves, so the rubric's shape is whatever the runs were scored with.
    dimension_ids = sorted({d for outcome in outcomes for c in outcome.ranking for d in c.dimensions})
    dim_units: dict[str, list[tuple[str, dict[str, float]]]] = {d: [] for d in dimension_ids}
    changed = 0
    for (sample_id, result, _), outcome in zip(usable, outcomes, strict=True):
        score_units.append((sample_id, {c.member: c.score for c in outcome.ranking if c.n_reviews}))
        rank_units.append((sample_id, {c.member: float(c.rank) for c in outcome.ranking if c.n_reviews}))
        top = outcome.ranking[0].member if outcome.ranking else None
        win_units.append((sample_id, {c.member: float(c.member == top) for c in outcome.ranking if c.n_reviews}))
        for dimension in dim_units:
            dim_units[dimension].append((sample_id, {c.member: c.dimensions[dimension] for c in outcome.ranking
                                                     if dimension in c.dimensions}))
        changed += bool(result.ranking) and result.ranking[0].member != top
    mean_rank = _column_means(_by_sample(rank_units, members), members)
    win_rate = _column_means(_by_sample(win_units, members), members)
    entries = _entries(members, _by_sample(score_units, members),
                       {d: _by_sample(u, members) for d, u in dim_units.items()},
                       {"mean_rank": mean_rank, "win_rate": win_rate})
    calibration = {
        "method": method,
        "passes": 2 if method == "calibrated" else 1,
        "history": "batch, leave-one-out" if method == "calibrated" else "not used by this method",
        "council_runs_ranked": len(usable),
        "council_runs_skipped": len(results) - len(usable),
        "top_member_changed": int(changed),
        "reviewers": {name: {"scores": h.count, "mean": round(h.mean, 3), "std": round(h.std, 3),
                             "reliability": round(h.reliability, 3)} for name, h in sorted(history.items())},
    }
    label = {"calibrated": "calibrated z", "per_question_z": "z", "raw_mean": "raw mean", "borda": "Borda",
             "bradley_terry": "Bradley-Terry log-strength"}[method]
    return Leaderboard(kind="council_ranking", score_label=label, confidence=CONFIDENCE, n_resamples=N_RESAMPLES,
                       entries=entries, calibration=calibration)


def _column_means(array: np.ndarray, members: list[str]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for i, member in enumerate(members):
        column = array[:, i][np.isfinite(array[:, i])] if array.size else np.array([])
        out[member] = float(column.mean()) if column.size else None
    return out


def judge_leaderboard(records: Sequence[SampleRecord], members: list[str], thresholds: Thresholds) -> Leaderboard:
    """The judge-mode leaderboard: members by mean sample score, with accuracy, faithfulness and pass rate."""
    def units(value: Callable[[SampleRecord], float]) -> list[tuple[str, dict[str, float]]]:
        return [(r.sample_id, {r.subject: value(r)}) for r in records]

    nan = float("nan")
    score = _by_sample(units(lambda r: r.sample_score), members)
    dimensions = {
        "accuracy": _by_sample(units(lambda r: nan if r.metrics.accuracy_score is None
                                     else float(r.metrics.accuracy_score)), members),
        "faithfulness": _by_sample(units(lambda r: nan if r.metrics.faithfulness_score is None
                                         else float(r.metrics.faithfulness_score)), members),
        "pass_rate": _by_sample(units(lambda r: float(sample_passes(r.metrics, thresholds))), members),
    }
    return Leaderboard(kind="judge_scores", score_label="sample score", confidence=CONFIDENCE,
                       n_resamples=N_RESAMPLES, entries=_entries(members, score, dimensions, {}))
