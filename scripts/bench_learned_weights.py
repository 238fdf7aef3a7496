"""How many labels ``council rank --learn`` needs: accuracy on held-out items as the labelled share grows.

For each seed, ``scripts/simulate_juries.py`` writes one correlated jury
(default ``jury-5-0.6-2``: one strong judge and five weak ones sharing 60%
of their error, two answers, every judge playing each item in both orders)
of ``--held-out`` + the largest label count items. The last ``--held-out``
items are never labelled: they are what every method is scored on, against
the right answers the simulation knows. For each label count m the first m
items' labels go to ``rank_ballots(..., learn=True)``, and the table gives
the held-out accuracy (top pick right, mean over the seeds) of:

- learned: the ranking with the weights learned from the m labels;
- default and equal: the ranking with the default (``outlier``) and equal
  weights, which no label changes;
- majority: each judge votes for its top answer (a tie splits the vote);
- best judge: the single judge that did best on the held-out items (chosen
  with the answers, so a bound no unlabelled method could pick out);

and in how many of the files the learned ranking was at least as accurate
as that best judge, and more accurate than equal weights.

    .venv/bin/python scripts/bench_learned_weights.py --seeds 5
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # simulate_juries, beside this file

from simulate_juries import export, settings

from council.ranking import rank_ballots


def _tops(report: object) -> dict[str, str]:
    return {item.item: item.ranking[0].member for item in report.items}  # type: ignore[attr-defined]


def _credit(scores: dict[str, float], best: str) -> float:
    high = max(scores.values())
    winners = [name for name, value in scores.items() if value == high]
    return 1.0 / len(winners) if best in winners else 0.0


def _unlearned(ballots: Path, truth: dict[str, str], held: list[str]) -> dict[str, float]:
    """Held-out accuracy of the default and equal weights, the majority vote and the best single judge."""
    out = {}
    for weighting in ("outlier", "equal"):
        tops = _tops(rank_ballots(ballots, weighting=weighting))
        out["default" if weighting == "outlier" else "equal"] = sum(tops[i] == truth[i] for i in held) / len(held)
    games: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for line in ballots.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        games[(row["item"], row["judge"])][row["candidate"]].append(float(row["score"]))
    judges = sorted({judge for _, judge in games})
    majority, single = 0.0, dict.fromkeys(judges, 0.0)
    for item in held:
        votes: dict[str, float] = defaultdict(float)
        for judge in judges:
            means = {c: sum(v) / len(v) for c, v in games[(item, judge)].items()}
            single[judge] += _credit(means, truth[item])
            high = max(means.values())
            winners = [c for c, v in means.items() if v == high]
            for c in winners:
                votes[c] += 1.0 / len(winners)
        majority += _credit(votes, truth[item])
    out["majority"] = majority / len(held)
    out["best judge"] = max(single.values()) / len(held)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the sweep and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--setting", default="jury-5-0.6-2", help="a correlated jury of scripts/simulate_juries.py")
    parser.add_argument("--counts", default="0,10,20,50,100,200", help="label counts, comma-separated")
    parser.add_argument("--held-out", type=int, default=300, help="items never labelled, on which all are scored")
    parser.add_argument("--seeds", type=int, default=5, help="simulated files (seeds 0, 1, ...)")
    args = parser.parse_args(argv)
    try:
        counts = sorted({int(c) for c in args.counts.split(",") if c.strip()})
    except ValueError:
        parser.error(f"--counts must be comma-separated numbers, got {args.counts!r}")
    chosen = [s for s in settings((2, 4)) if s.key == args.setting and not s.scenario]
    if not chosen or not counts or counts[0] < 0 or args.held_out < 1 or args.seeds < 1:
        parser.error("--setting must name a correlated jury (jury-K-RHO-N); counts >= 0, --held-out and --seeds >= 1")
    started = time.perf_counter()
    columns = ("learned", "default", "equal", "majority", "best judge")
    sums: dict[int, dict[str, float]] = {m: dict.fromkeys(columns, 0.0) for m in counts}
    wins: dict[int, list[int]] = {m: [0, 0] for m in counts}  # files: learned >= best judge, learned > equal
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(args.seeds):
            ballots, labels = Path(folder, f"b{seed}.jsonl"), Path(folder, f"l{seed}.jsonl")
            export(chosen[0], seed, counts[-1] + args.held_out, str(ballots), str(labels))
            rows = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
            truth = {row["item"]: row["best"] for row in rows}
            held = [row["item"] for row in rows[counts[-1]:]]
            fixed = _unlearned(ballots, truth, held)
            for m in counts:
                given = Path(folder, f"l{seed}-{m}.jsonl")
                # An empty labels file is an error; with no label to give, one for an item not in the ballots.
                given.write_text("".join(json.dumps(row) + "\n" for row in rows[:m] or [
                    {"item": "not-in-the-ballots", "best": "c0"}]), encoding="utf-8")
                tops = _tops(rank_ballots(ballots, labels=given, learn=True))
                learned = sum(tops[i] == truth[i] for i in held) / len(held)
                sums[m]["learned"] += learned
                wins[m][0] += learned >= fixed["best judge"]
                wins[m][1] += learned > fixed["equal"]
                for name, value in fixed.items():
                    sums[m][name] += value
    print(f"# Learned judge weights: {args.setting}, {args.held_out} held-out items, {args.seeds} seed(s)\n")
    print("| labels | " + " | ".join(columns) + " | files: learned >= best judge | files: learned > equal |")
    print("|---:|" + "---:|" * (len(columns) + 2))
    for m in counts:
        print(f"| {m} | " + " | ".join(f"{sums[m][c] / args.seeds:.3f}" for c in columns)
              + f" | {wins[m][0]} of {args.seeds} | {wins[m][1]} of {args.seeds} |")
    print(f"\nRuntime: {time.perf_counter() - started:.1f} s, {platform.machine()} {platform.python_implementation()} "
          f"{platform.python_version()}, {os.cpu_count()} cores.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
