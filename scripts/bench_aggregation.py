"""Simulation benchmark of the aggregation methods in :mod:`council.ranking.aggregation`.

Follows the generative model of the aggregation research note (section 3.1).
Councils come in batches of consecutive questions that share the reviewers'
personalities; every method carries each reviewer's
:class:`ReviewerHistory` across the questions of a batch with
:func:`update_history`, as the real system does through its database
(``calibrated`` reads all of it, the other methods only the self-preference
sums). Every member answers and reviews; self-reviews are excluded (the
pipeline default) except in scenarios P and S (``review.include_self: true``),
and each reviewer sees the answers in its own random order.

Score of reviewer r for candidate i on one question::

    clip(round(7 + a_r + 1.2 * s_r * q_i + delta_r [r = i]
               + beta_r * (1 - slot / (shown - 1)) + sigma_r * noise), 1, 10)

(delta_r ~ U(0, self_bonus_max); in scenario S member m0's is 4 points.)

with true quality q_i = mu_i + eps (member skill mu_i ~ N(0, 0.5) fixed per
batch, eps ~ N(0, 1); 0.5 read as a standard deviation). While self-reviews
are excluded the self-bonus delta_r never reaches a sheet. With them, each
method is also run without the self-bonus correction (``self_prior`` infinite),
the "uncorrected" rows. The metrics are Kendall tau-b between each
question's ranking and the true qualities, top-1 accuracy, and the
leaderboard tau of the members' mean scores over a batch.

    .venv/bin/python scripts/bench_aggregation.py --councils 5000 --seed 1
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from council.ranking.aggregation import (
    METHODS,
    SELF_PRIOR,
    ReviewerHistory,
    ScoreSheet,
    aggregate,
    kendall_tau,
    update_history,
)
from council.ranking.weights import DEFAULT_WEIGHTING, WEIGHTINGS


@dataclass(frozen=True)
class Scenario:
    """The reviewer population and data defects of one simulated setting."""

    key: str
    title: str
    heterogeneous: bool = True
    self_bonus_max: float = 2.0
    position_bias_max: float = 1.0
    p_missing: float = 0.1
    p_failure: float = 0.1
    careless: bool = False
    include_self: bool = False
    strong_self: float | None = None  # member m0's self-bonus, in score points, instead of a draw


SCENARIOS = {
    "A": Scenario("A", "ideal: identical reviewers, noise 0.8", False, 0.0, 0.0, 0.0, 0.0),
    "F": Scenario("F", "realistic: heterogeneous + self-bonus + position bias + 10% missing + 10% failed"),
    "H": Scenario("H", "F + one careless reviewer (signal x0.2, noise 2.5)", careless=True),
    "P": Scenario("P", "F with self-reviews included (self-bonus U(0, 2))", include_self=True),
    "S": Scenario("S", "P + member m0 adds 4 points to its own answer", include_self=True, strong_self=4.0),
}
# Each row: label, method, self_prior (inf: no self-bonus correction), reviewer weighting. The uncorrected
# rows only differ from the corrected ones when reviewers score their own answers. calibrated runs with
# the default weighting, and with the two others for comparison (scripts/simulate_juries.py for more).
VARIANTS = [(m, m, SELF_PRIOR, DEFAULT_WEIGHTING) for m in METHODS] + [
    (f"calibrated ({w} weights)", "calibrated", SELF_PRIOR, w) for w in WEIGHTINGS if w != DEFAULT_WEIGHTING]
UNCORRECTED = [(f"{m} (uncorrected)", m, math.inf, DEFAULT_WEIGHTING) for m in METHODS]


def variants(scenario: Scenario) -> list[tuple[str, str, float, str]]:
    """The rows benchmarked in ``scenario``."""
    return VARIANTS + (UNCORRECTED if scenario.include_self else [])


def simulate_batch(scenario: Scenario, rng: np.random.Generator, members: int, questions: int):
    """One batch: true qualities (Q, N), sheets for each question."""
    n = members
    names = tuple(f"m{i}" for i in range(n))
    if scenario.heterogeneous:
        offset = rng.normal(0.0, 1.0, n)
        scale = rng.lognormal(0.0, 0.5, n)
        noise = rng.uniform(0.3, 1.5, n)
    else:
        offset, scale, noise = np.zeros(n), np.ones(n), np.full(n, 0.8)
    if scenario.careless:
        scale[0] *= 0.2
        noise[0] = 2.5
    self_bonus = rng.uniform(0.0, scenario.self_bonus_max, n)
    if scenario.strong_self is not None:
        self_bonus[0] = scenario.strong_self
    pos_bias = rng.uniform(0.0, scenario.position_bias_max, n)
    skill = rng.normal(0.0, 0.5, n)
    truth = skill[None, :] + rng.normal(0.0, 1.0, (questions, n))
    sheets = []
    for q in range(questions):
        position = np.full((n, n), -1)
        shown = n if scenario.include_self else n - 1
        for r in range(n):
            others = np.array([i for i in range(n) if scenario.include_self or i != r])
            position[r, rng.permutation(others)] = np.arange(shown)
        slot_bonus = pos_bias[:, None] * (1.0 - np.maximum(position, 0) / max(shown - 1, 1))
        raw = (
            7.0
            + offset[:, None]
            + 1.2 * scale[:, None] * truth[q][None, :]
            + np.diag(self_bonus)
            + slot_bonus
            + noise[:, None] * rng.normal(size=(n, n))
        )
        scores = np.clip(np.round(raw), 1, 10)
        scores[position < 0] = np.nan  # self-review excluded (unless include_self): not shown, not scored
        scores[rng.random((n, n)) < scenario.p_missing] = np.nan
        scores[rng.random(n) < scenario.p_failure, :] = np.nan
        lengths = rng.lognormal(7.0, 0.5, n)
        sheets.append(ScoreSheet(names, names, scores, {}, position, lengths))
    return truth, sheets


def run_chunk(job: tuple[str, int, range, int, int]) -> dict[str, np.ndarray]:
    """Simulate some batches of one scenario; returns per-question and per-batch metrics.

    Each batch has its own random stream, so results do not depend on how batches are split over workers.
    """
    key, seed, batches, members, questions = job
    scenario = SCENARIOS[key]
    rows = variants(scenario)
    out: dict[str, list[float]] = {f"{label}/{metric}": [] for label, _, _, _ in rows
                                   for metric in ("tau", "top1", "board", "tau0", "us")}
    for b in batches:
        rng = np.random.default_rng([seed, ord(key), b])
        truth, sheets = simulate_batch(scenario, rng, members, questions)
        for label, method, prior, weighting in rows:
            history: dict[str, ReviewerHistory] = {}
            totals, counts = np.zeros(members), np.zeros(members)
            for q, sheet in enumerate(sheets):
                started = time.perf_counter()
                result = aggregate(sheet, history, method, self_prior=prior, with_confidence=False,
                                   weighting=weighting)
                history = update_history(history, sheet, self_prior=prior)
                out[f"{label}/us"].append(1e6 * (time.perf_counter() - started))
                order = [int(c.member[1:]) for c in result.ranking]
                rank_score = np.empty(members)
                rank_score[order] = -np.arange(members)
                out[f"{label}/tau"].append(kendall_tau(rank_score, truth[q]))
                if q == 0:
                    out[f"{label}/tau0"].append(out[f"{label}/tau"][-1])
                out[f"{label}/top1"].append(float(order[0] == int(np.argmax(truth[q]))))
                for c in result.ranking:
                    if c.n_reviews:
                        totals[int(c.member[1:])] += c.score
                        counts[int(c.member[1:])] += 1
            board = np.divide(totals, counts, out=np.zeros(members), where=counts > 0)
            out[f"{label}/board"].append(kendall_tau(board, truth.mean(axis=0)))
    return {k: np.array(v) for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    """Run every scenario and print one Markdown table per scenario."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--councils", type=int, default=5000, help="councils (questions) per scenario")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=20, help="consecutive questions sharing reviewers")
    parser.add_argument("--members", type=int, default=5)
    parser.add_argument("--scenarios", default="A,F,H,P,S", help=f"comma-separated, of {','.join(SCENARIOS)}")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    keys = [k.strip().upper() for k in args.scenarios.split(",") if k.strip()]
    unknown = [k for k in keys if k not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario(s) {', '.join(unknown)}; choose from {', '.join(SCENARIOS)}")
    batches = max(1, args.councils // args.batch)
    workers = max(1, args.workers)
    jobs = [
        (key, args.seed, range(w, batches, workers), args.members, args.batch)
        for key in keys
        for w in range(min(workers, batches))
    ]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(run_chunk, jobs))
    wall = time.perf_counter() - started
    print(f"# Aggregation benchmark: {batches * args.batch} councils x {args.members} members per scenario, "
          f"batches of {args.batch}, seed {args.seed}\n")
    calls = spent = 0.0
    for key in keys:
        scenario = SCENARIOS[key]
        parts = [r for job, r in zip(jobs, results, strict=True) if job[0] == key]
        merged = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        base = merged["raw_mean/tau"]
        print(f"## {key}: {scenario.title}\n")
        print(f"Self-reviews {'included' if scenario.include_self else 'excluded'}.\n")
        print("| method | Kendall tau | delta tau vs raw_mean (SE) | top-1 | leaderboard tau | us per call |")
        print("|---|---:|---:|---:|---:|---:|")
        for label, _, _, _ in variants(scenario):
            tau, diff = merged[f"{label}/tau"], merged[f"{label}/tau"] - base
            se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else 0.0
            us = merged[f"{label}/us"]
            calls, spent = calls + us.size, spent + us.sum()
            print(f"| {label} | {tau.mean():.3f} | {diff.mean():+.3f} ({se:.3f}) | "
                  f"{merged[f'{label}/top1'].mean():.3f} | {np.nanmean(merged[f'{label}/board']):.3f} | "
                  f"{np.median(us):.0f} |")
        first = {m: merged[f"{m}/tau0"].mean() for m in ("calibrated", "raw_mean")}
        print(f"\nFirst question of each batch (calibrated has no history yet): calibrated tau "
              f"{first['calibrated']:.3f}, raw_mean tau {first['raw_mean']:.3f}.")
        if scenario.include_self:
            gains = []
            for method in METHODS:
                diff = merged[f"{method}/tau"] - merged[f"{method} (uncorrected)/tau"]
                se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else 0.0
                gains.append(f"{method} {diff.mean():+.3f} ({se:.3f})")
            print(f"Self-bonus correction, paired delta tau (SE): {', '.join(gains)}.")
        print()
    print(f"Runtime: {wall:.1f} s wall on {workers} worker(s); "
          f"{spent / max(calls, 1):.0f} us mean per aggregate + update_history call, {int(calls)} calls; "
          "'us per call' is the median.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
