"""Deliberation benchmark: one round, two rounds always, two rounds when unsure, and a majority vote.

Every council here is simulated (council/simulation): no model is called. The
shipped simulated council (config/simulated.yaml) and ``--councils - 1``
councils of 4-5 members whose personas (quality, verbosity, style, leniency,
spread, noise, uptake, latency) are drawn from a seeded generator answer the
same seeded questions four ways:

(a) one round: ``review.rounds: 1``, as the ``full`` preset runs;
(b) two rounds always: ``review.rounds: 2``, ``review.deliberate_below: 1``;
(c) two rounds when unsure: ``review.rounds: 2``, ``review.deliberate_below:
    0.7``, as the ``deliberate`` preset runs;
(d) majority vote: each reviewer's top pick in its first-round ballot, the
    most picked answer wins, ties broken by the calibrated rank. Read from
    the runs of (a): it makes no call of its own.

The ground truth is what the simulation wrote into each answer: its share of
sound points (``judge_quality``). A revision can raise it, so (b) and (c)
are judged on the answers they ranked, revised ones included. Each council
keeps its reviewers' history in its own temporary database, as a deployed
council does. Latencies are the members' simulated ``latency_ms`` (tens of
milliseconds here, so the bench runs in minutes), not a real model's.

    .venv/bin/python scripts/bench_deliberation.py [--questions 40] [--councils 10] [--seed 0] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import yaml

from council import Council, CouncilConfig, CouncilResult
from council.ranking.agreement import kendall_tau
from council.simulation import judge_quality

ROOT = Path(__file__).resolve().parent.parent
#: The review settings of each strategy that runs; the majority vote reads the one-round runs.
RUNS = {
    "one round": {"rounds": 1},
    "two rounds always": {"rounds": 2, "deliberate_below": 1.0},
    "two rounds below 0.7": {"rounds": 2, "deliberate_below": 0.7},
}
STRATEGIES = (
    ("one round", "(a) one round (`full`)"),
    ("two rounds always", "(b) two rounds always (`deliberate_below: 1`)"),
    ("two rounds below 0.7", "(c) two rounds below 0.7 (`deliberate`)"),
    ("majority vote", "(d) majority vote of first-round ballots"),
)
SUBJECTS = (
    "the heart pump blood", "vaccines train the immune system", "the sky look blue", "tides rise and fall",
    "compound interest grow savings", "a hash table find keys quickly", "inflation erode wages",
    "plants turn light into sugar", "earthquakes start", "a transistor switch current", "bread rise",
    "antibiotics stop working", "a bicycle stay upright", "glaciers carve valleys", "public key encryption work",
    "the moon change shape", "sleep affect memory", "a refrigerator move heat", "coral reefs bleach",
    "GPS find a position", "rainbows form", "index funds lower costs", "volcanoes erupt", "a compiler optimise loops",
    "bees find flowers", "rust form on iron", "a lens focus light", "muscles grow after exercise",
    "interest rates affect house prices", "birds navigate when migrating", "a database keep transactions safe",
    "salt melt ice", "solar panels make electricity", "languages change over time", "a jet engine make thrust",
    "the kidneys filter blood", "a garbage collector free memory", "soil hold water", "caffeine keep people awake",
    "a suspension bridge carry its load",
)
TEMPLATES = ("How does {s}?", "Why does {s}?", "Explain how {s}.", "In plain words, how does {s}?",
             "What makes {s}?", "Could you describe how {s}?")


def questions(count: int, seed: int) -> list[str]:
    """``count`` varied questions, the same for every council, drawn from a seeded generator."""
    rng = random.Random(f"questions/{seed}")
    pairs = [(s, t) for s in SUBJECTS for t in TEMPLATES]
    return [t.format(s=s) for s, t in rng.sample(pairs, k=min(count, len(pairs)))]


def shipped_council(latency_scale: float) -> dict:
    """config/simulated.yaml as a dict, its members' latencies scaled down."""
    data = yaml.safe_load((ROOT / "config" / "simulated.yaml").read_text())
    for member in data["members"]:
        member["persona"]["latency_ms"] = round(member["persona"]["latency_ms"] * latency_scale, 1)
    return data


def drawn_council(index: int, seed: int) -> dict:
    """A council of 4-5 simulated members with personas drawn from a seeded generator; a quarter never revise."""
    rng = random.Random(f"council/{seed}/{index}")
    members = []
    for n in range(rng.choice((4, 5))):
        members.append({"name": f"m{n + 1}", "provider": "simulated", "model": f"sim-c{index}-m{n + 1}", "persona": {
            "quality": round(rng.uniform(0.3, 0.95), 3),
            "verbosity": rng.choice(("terse", "balanced", "verbose")),
            "style": rng.choice(("plain", "bulleted", "formal")),
            "leniency": round(rng.uniform(-1.5, 1.5), 3),
            "spread": round(rng.uniform(0.6, 1.4), 3),
            "noise": round(rng.uniform(0.2, 1.2), 3),
            "uptake": 0.0 if rng.random() < 0.25 else round(rng.uniform(0.2, 0.9), 3),
            "latency_ms": round(rng.uniform(10, 60), 1)}})
    return {"members": members, "chairman": "m1"}


def qualities(result: CouncilResult) -> dict[str, float]:
    """The hidden quality of each answer the run ranked: the share of sound points the simulation wrote."""
    return {a.member: judge_quality(a.content)[0] for a in result.answers if a.status == "ok" and a.content}


def judged(order: list[str], truth: dict[str, float]) -> dict[str, float]:
    """How good a ranking (best first) is: its pick best of the set, the pick's quality, tau against the truth."""
    order = [m for m in order if m in truth]
    best = max(truth.values())
    tau = kendall_tau([-i for i in range(len(order))], [truth[m] for m in order]) if len(order) > 1 else float("nan")
    return {"correct": float(truth[order[0]] >= best - 1e-9), "quality": truth[order[0]], "tau": tau}


def majority_vote(result: CouncilResult) -> list[str]:
    """The answers ordered by how many first-round ballots put them first, ties by the calibrated rank."""
    votes = Counter(r.ranking[0] for r in result.reviews if r.status == "ok" and r.ranking)
    calibrated = [e.member for e in result.ranking]
    return sorted(calibrated, key=lambda m: (-votes[m], calibrated.index(m)))


def measured(result: CouncilResult, seconds: float) -> dict[str, float]:
    """What one run cost and took: upstream calls, tokens, wall-clock seconds, and whether it had two rounds."""
    calls = len(result.cost.calls) if result.cost is not None else 0
    rounds = result.deliberation.rounds if result.deliberation is not None else 1
    second = result.deliberation if rounds == 2 and result.deliberation is not None else None
    return {"calls": calls, "tokens": result.usage.total_tokens, "seconds": seconds, "two_rounds": float(rounds == 2),
            "round2_calls": second.calls if second else 0, "round2_tokens": second.tokens if second else 0}


async def run_council(key: str, data: dict, asked: list[str], folder: str) -> list[dict]:
    """Every question through one council, once per strategy, one question at a time (so latency is one run's)."""
    rows = []
    for strategy, review in RUNS.items():
        config = CouncilConfig.model_validate({
            **data, "review": {**data.get("review", {}), **review},
            "storage": {"path": str(Path(folder) / f"{key}-{strategy.replace(' ', '-')}.db")}})
        async with Council(config, environ={}) as council:
            for number, question in enumerate(asked):
                started = time.perf_counter()
                result = await council.ask(question)
                seconds = time.perf_counter() - started
                truth = qualities(result)
                if result.status != "complete" or not result.ranking or not truth:
                    raise SystemExit(f"{key}, {strategy}, {question!r}: {result.status} {result.error}")
                cost = measured(result, seconds)
                rows.append({"council": key, "question": number, "strategy": strategy,
                             **judged([e.member for e in result.ranking], truth), **cost})
                if strategy == "one round":
                    rows.append({"council": key, "question": number, "strategy": "majority vote",
                                 **judged(majority_vote(result), truth), **cost})
    return rows


def run_job(job: tuple[str, dict, list[str]]) -> list[dict]:
    """One council in a worker process, with its own temporary databases."""
    key, data, asked = job
    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(run_council(key, data, asked, folder))


def paired_gain(rows: list[dict], strategy: str, metric: str) -> tuple[float, float]:
    """Mean difference of ``metric`` against one round on the same questions, and its 95% half-interval."""
    base = {(r["council"], r["question"]): r[metric] for r in rows if r["strategy"] == "one round"}
    diffs = np.array([r[metric] - base[(r["council"], r["question"])] for r in rows if r["strategy"] == strategy])
    half = 1.96 * diffs.std(ddof=1) / np.sqrt(diffs.size) if diffs.size > 1 else float("nan")
    return float(diffs.mean()), float(half)


def report(rows: list[dict], args: argparse.Namespace, wall: float, members: int) -> None:
    """The Markdown table, the paired gains, and the date, machine and settings."""
    print(f"# Deliberation benchmark, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC\n")
    print(f"Machine: {platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}. Settings: {args.questions} questions x {args.councils} simulated councils "
          f"(the shipped one, latencies x{args.latency_scale:g}, and {args.councils - 1} drawn with seed {args.seed}; "
          f"{members} members in all), {args.workers} worker process(es), one question at a time in each.\n")
    print("| Strategy | top pick is the best answer | picked answer's quality | Kendall tau | two rounds | "
          "calls / question | tokens / question | latency p50 (simulated) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for strategy, label in STRATEGIES:
        mine = [r for r in rows if r["strategy"] == strategy]
        tau = np.nanmean([r["tau"] for r in mine])
        mean = {k: statistics.fmean(r[k] for r in mine)
                for k in ("correct", "quality", "two_rounds", "calls", "tokens")}
        print(f"| {label} | {mean['correct']:.1%} | {mean['quality']:.3f} | {tau:.3f} | {mean['two_rounds']:.0%} | "
              f"{mean['calls']:.1f} | {mean['tokens']:,.0f} | "
              f"{1000 * statistics.median(r['seconds'] for r in mine):.0f} ms |")
    print("\nAgainst one round, the same questions (mean difference, 95% interval):")
    for strategy, label in STRATEGIES[1:]:
        gains = [f"{name} {mean:+.3f} (+/- {half:.3f})" for name, metric in
                 (("top pick best", "correct"), ("picked quality", "quality"))
                 for mean, half in [paired_gain(rows, strategy, metric)]]
        second = [r for r in rows if r["strategy"] == strategy and r["two_rounds"]]
        extra = (f"; a second round adds {statistics.fmean(r['round2_calls'] for r in second):.1f} calls and "
                 f"{statistics.fmean(r['round2_tokens'] for r in second):,.0f} tokens" if second else "")
        print(f"- {label}: {', '.join(gains)}{extra}")
    print(f"\n{len(rows) - len([r for r in rows if r['strategy'] == 'majority vote'])} council runs in {wall:.0f} s. "
          f"Command: {' '.join(['scripts/bench_deliberation.py', *sys.argv[1:]])}")


def main(argv: list[str] | None = None) -> int:
    """Run every council through every strategy and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=40, help="questions, the same for every council")
    parser.add_argument("--councils", type=int, default=10, help="councils: the shipped one and N-1 drawn")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2, help="councils run at once, one process each")
    parser.add_argument("--latency-scale", type=float, default=0.1, help="scales the shipped council's latency_ms")
    args = parser.parse_args(argv)
    if args.questions < 2 or args.councils < 1 or args.workers < 1 or args.latency_scale < 0:
        parser.error("--questions at least 2, --councils and --workers at least 1, --latency-scale not negative")
    asked = questions(args.questions, args.seed)
    councils = [("shipped", shipped_council(args.latency_scale))]
    councils += [(f"drawn-{i}", drawn_council(i, args.seed)) for i in range(1, args.councils)]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        rows = [row for part in pool.map(run_job, [(key, data, asked) for key, data in councils]) for row in part]
    report(rows, args, time.perf_counter() - started, sum(len(data["members"]) for _key, data in councils))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
