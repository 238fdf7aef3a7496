"""Simulated juries: how each reviewer weighting ranks when judges are independent and when some share a bias.

Two families of simulations, every one ranked by ``calibrated`` with each
weighting of :mod:`council.ranking.weights`, reviewer history carried from
item to item within a batch (as a council carries it from run to run):

*Independent* — the councils of ``scripts/bench_aggregation.py``
(scenarios A ideal, F realistic, H with one careless reviewer): 5 members
who answer and review each other, each reviewer's errors its own.

*Correlated juries* — one strong, independent judge and K weaker judges
(K = 3 or 5) sharing a bias, scoring items of 2 or 4 answers. Answer c has
true quality q_c ~ N(0, 1) and a style feature L_c ~ N(0, 1) unrelated to
quality (its length: ``exp(7 + 0.5 L_c)`` characters). Judge j scores::

    clip(round(5.5 + o_j + 1.2 * s_j * (q_c + e_jc)), 1, 10)

with offset o_j ~ N(0, 1), scale s_j ~ logN(0, 0.4), and error e_jc of
standard deviation 0.5 for the strong judge (independent noise), 1.0 for a
weak one: ``sqrt(rho) * L_c + sqrt(1 - rho) * noise``. ``rho`` is the share of
a weak judge's error that all weak judges share (0: independent, 0.9:
almost one voice).

Metrics per item: top pick correct (accuracy), Kendall tau-b with the true
order. Differences against equal weights are paired (the same items) with
95% confidence intervals (1.96 standard errors). Deterministic: each batch
draws from its own seeded stream.

    .venv/bin/python scripts/simulate_juries.py --items 4000 --seed 0
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # bench_aggregation, beside this file

from bench_aggregation import SCENARIOS, simulate_batch

from council.ranking.aggregation import ReviewerHistory, ScoreSheet, aggregate, kendall_tau, update_history
from council.ranking.weights import DEFAULT_WEIGHTING, WEIGHTINGS

STRONG_ERROR = 0.5
WEAK_ERROR = 1.0
RHOS = (0.0, 0.3, 0.6, 0.9)


@dataclass(frozen=True)
class Setting:
    """One simulated setting: an independent council scenario, or a correlated jury."""

    key: str
    title: str
    scenario: str = ""  # a bench_aggregation scenario, for the independent family
    weak: int = 0
    rho: float = 0.0
    answers: int = 2


def settings(answers: tuple[int, ...]) -> list[Setting]:
    """Every setting, independent councils first."""
    out = [Setting(f"ind-{key}", f"independent council {key}: {SCENARIOS[key].title}", scenario=key)
           for key in ("A", "F", "H")]
    out += [Setting(f"jury-{weak}-{rho}-{n}", f"1 strong + {weak} weak judges, rho {rho}, {n} answers",
                    weak=weak, rho=rho, answers=n)
            for n in answers for weak in (3, 5) for rho in RHOS]
    return out


def jury_batch(setting: Setting, rng: np.random.Generator, items: int) -> tuple[np.ndarray, list[ScoreSheet]]:
    """True qualities (items, answers) and one sheet per item, for a correlated jury."""
    n, judges = setting.answers, 1 + setting.weak
    names = tuple(f"c{i}" for i in range(n))
    reviewers = ("strong", *(f"weak{j}" for j in range(setting.weak)))
    offset, scale = rng.normal(0.0, 1.0, judges), rng.lognormal(0.0, 0.4, judges)
    truth = rng.normal(0.0, 1.0, (items, n))
    sheets = []
    for q in range(items):
        style = rng.normal(0.0, 1.0, n)
        error = np.empty((judges, n))
        error[0] = STRONG_ERROR * rng.normal(size=n)
        error[1:] = WEAK_ERROR * (math.sqrt(setting.rho) * style[None, :]
                                  + math.sqrt(1.0 - setting.rho) * rng.normal(size=(setting.weak, n)))
        raw = 5.5 + offset[:, None] + 1.2 * scale[:, None] * (truth[q][None, :] + error)
        position = np.array([rng.permutation(n) for _ in range(judges)])
        sheets.append(ScoreSheet(names, reviewers, np.clip(np.round(raw), 1, 10), {}, position,
                                 np.exp(7.0 + 0.5 * style)))
    return truth, sheets


def export(setting: Setting, seed: int, items: int, ballots: str, labels: str) -> None:
    """Write one correlated jury's items as a ballot file (JSONL) and its right answers as a labels file.

    Every judge plays each item twice, the answers in one order then reversed (``game`` 1 and 2,
    ``position`` the slot), with a position bias of its own (up to 1 point for the first slot) and
    0.3 points of noise between games: what ``council rank`` averages and reports as position consistency.
    """
    rng = np.random.default_rng([seed, sum(map(ord, setting.key)), 99])
    truth, sheets = jury_batch(setting, rng, items)
    slot_bonus = rng.uniform(0.0, 1.0, 1 + setting.weak)
    with open(ballots, "w", encoding="utf-8") as out, open(labels, "w", encoding="utf-8") as right:
        for q, sheet in enumerate(sheets):
            item = f"item{q:04d}"
            right.write(json.dumps({"item": item, "best": sheet.candidates[int(np.argmax(truth[q]))]}) + "\n")
            n = len(sheet.candidates)
            for j, judge in enumerate(sheet.reviewers):
                for game, order in ((1, list(range(n))), (2, list(range(n))[::-1])):
                    for slot, c in enumerate(order):
                        score = sheet.overall[j, c] + slot_bonus[j] * (slot == 0) + 0.3 * rng.normal()
                        out.write(json.dumps({"item": item, "candidate": sheet.candidates[c], "judge": judge,
                                              "score": float(np.clip(np.round(score), 1, 10)), "game": game,
                                              "position": slot}) + "\n")


def batches(setting: Setting, seed: int, batch: int, items: int) -> Iterator[tuple[np.ndarray, list[ScoreSheet]]]:
    """The setting's batches, each from its own seeded stream."""
    for b in range(max(1, items // batch)):
        rng = np.random.default_rng([seed, sum(map(ord, setting.key)), b])
        if setting.scenario:
            yield simulate_batch(SCENARIOS[setting.scenario], rng, 5, batch)
        else:
            yield jury_batch(setting, rng, batch)


def run_setting(job: tuple[Setting, int, int, int]) -> dict[str, np.ndarray]:
    """Per weighting: each item's top-pick correctness and Kendall tau."""
    setting, seed, batch, items = job
    out: dict[str, list[float]] = {f"{w}/{m}": [] for w in WEIGHTINGS for m in ("top1", "tau")}
    for truth, sheets in batches(setting, seed, batch, items):
        for weighting in WEIGHTINGS:
            history: dict[str, ReviewerHistory] = {}
            for q, sheet in enumerate(sheets):
                result = aggregate(sheet, history, with_confidence=False, weighting=weighting)
                history = update_history(history, sheet)
                column = {name: i for i, name in enumerate(sheet.candidates)}
                order = [column[c.member] for c in result.ranking]
                rank_score = np.empty(len(order))
                rank_score[order] = -np.arange(len(order))
                out[f"{weighting}/top1"].append(float(order[0] == int(np.argmax(truth[q]))))
                out[f"{weighting}/tau"].append(kendall_tau(rank_score, truth[q]))
    return {k: np.array(v) for k, v in out.items()}


def interval(diff: np.ndarray) -> str:
    """Mean of a paired difference with its 95% interval."""
    half = 1.96 * diff.std(ddof=1) / math.sqrt(diff.size) if diff.size > 1 else 0.0
    return f"{diff.mean():+.3f} [{diff.mean() - half:+.3f}, {diff.mean() + half:+.3f}]"


def table(rows: list[tuple[Setting, dict[str, np.ndarray]]]) -> list[str]:
    """The comparison table: per setting and weighting, accuracy and tau with paired differences to equal."""
    lines = ["| setting | weighting | accuracy | vs equal (95% CI) | Kendall tau | vs equal (95% CI) |",
             "|---|---|---:|---:|---:|---:|"]
    for setting, merged in rows:
        for w in WEIGHTINGS:
            top, tau = merged[f"{w}/top1"], merged[f"{w}/tau"]
            label = f"**{w}** (default)" if w == DEFAULT_WEIGHTING else w
            versus = ("", "") if w == "equal" else (interval(top - merged["equal/top1"]),
                                                    interval(tau - merged["equal/tau"]))
            lines.append(f"| {setting.key if w == WEIGHTINGS[0] else ''} | {label} | {top.mean():.3f} | "
                         f"{versus[0]} | {tau.mean():.3f} | {versus[1]} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run every setting and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=4000, help="items (councils) per setting")
    parser.add_argument("--batch", type=int, default=200, help="consecutive items sharing the judges")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--answers", default="2,4", help="answers per item in the correlated juries")
    parser.add_argument("--only", default="", help="comma-separated setting keys (default: all)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--export", nargs=2, metavar=("BALLOTS", "LABELS"),
                        help="write the first setting chosen (with --only) as ballot and label files, then stop")
    args = parser.parse_args(argv)
    try:
        answers = tuple(int(a) for a in args.answers.split(",") if a.strip())
    except ValueError:
        parser.error(f"--answers must be comma-separated numbers, got {args.answers!r}")
    if not answers or min(answers) < 2:
        parser.error("--answers needs numbers of 2 or more")
    chosen = [s for s in settings(answers) if not args.only or s.key in args.only.split(",")]
    if not chosen:
        parser.error(f"--only matched no setting; the keys are {', '.join(s.key for s in settings(answers))}")
    if args.export:
        export(chosen[0], args.seed, args.items, *args.export)
        print(f"wrote {args.items} items of {chosen[0].key} to {args.export[0]}, their right answers to "
              f"{args.export[1]}")
        return 0
    started = time.perf_counter()
    jobs = [(s, args.seed, args.batch, args.items) for s in chosen]
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        results = list(pool.map(run_setting, jobs))
    print(f"# Reviewer weightings: {max(1, args.items // args.batch) * args.batch} items per setting, batches of "
          f"{args.batch}, seed {args.seed}\n")
    for setting in chosen:
        print(f"- {setting.key}: {setting.title}")
    print()
    print("\n".join(table(list(zip(chosen, results, strict=True)))))
    print(f"\nRuntime: {time.perf_counter() - started:.1f} s on {max(1, args.workers)} worker(s), "
          f"{platform.machine()} {platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} cores.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
