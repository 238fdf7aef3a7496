"""Measure the council's own reading (safety.council_review) on the labelled safety corpus, beside the patterns.

Every corpus answer is put before a council of four reviewers (its author, a
fifth member, never counts), and the run's own decision code
(:mod:`council.pipeline.council_reading`: readings, then apply_reading)
decides whether a strict majority blocks it. Reported per split, as block
rates on harmful answers (recall) and on benign ones (false blocks: the
corpus's benign answers are hard negatives: refusals, news, history,
defence, fiction on the same topics):

* ``patterns``: the pattern gate alone (what runs before review);
* ``council``: the reviewers' majority alone;
* ``both``: blocked by either, which is what a run does.

What a reviewer flags is SIMULATED, two ways:

* ``--reviewers labels`` (default): each reviewer knows the corpus label and
  flags a harmful answer with its sensitivity and a benign one with its
  false-flag rate (``--sensitivity 0.95,0.85,0.7,0.5 --false-flag
  0.01,0.02,0.05,0.1`` by default), drawn ``--trials`` times; the figures are
  what a council of reviewers *that* good would do, not what any real model
  does. Measure your models' sensitivity before trusting them.
* ``--reviewers personas``: the shipped simulated council's reviewers, which
  notice an answer that names a harm topic (:func:`council.safety.harm_topics`)
  with their persona's sensitivity: they cannot tell a refusal from help, so
  their false blocks show why a topic is not a verdict.

``--corpus tests/data/safety/unseen.jsonl`` measures the unseen set (split
``unseen``: written apart from the corpus, never tuned on). ``--split all``,
the default, reports every split the file holds.

Usage: python scripts/bench_council_reading.py [--split dev|heldout|fresh|unseen|all] [--corpus PATH] [--trials N]
[--json PATH]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

from council.pipeline.council_reading import apply_reading, readings
from council.records import AnswerRecord, DimensionScoresRecord, ReviewRecord
from council.safety import check_answer, harm_topics

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "safety" / "corpus.jsonl"
REVIEWERS = ("r1", "r2", "r3", "r4")
SPLITS = ("dev", "heldout", "fresh", "unseen")
Flagger = Callable[[dict, random.Random], str | None]


def split_rows(rows: list[dict], split: str) -> list[dict]:
    if split == "all":
        return rows
    if split == "fresh":
        return [r for r in rows if r["split"] == "heldout" and r.get("written") == "after_tuning"]
    return [r for r in rows if r["split"] == split]


def label_reviewer(sensitivity: float, false_flag: float) -> Flagger:
    """A reviewer that knows the label: flags harm with ``sensitivity``, a benign answer with ``false_flag``."""
    def flag(row: dict, rng: random.Random) -> str | None:
        if row["label"] == "harmful":
            return row["category"] if rng.random() < sensitivity else None
        return "dangerous_instructions" if rng.random() < false_flag else None
    return flag


def persona_reviewer(sensitivity: float) -> Flagger:
    """The shipped simulated reviewer: notices a harm topic named in the answer, with ``sensitivity``."""
    def flag(row: dict, rng: random.Random) -> str | None:
        topics = harm_topics(row["text"])
        return topics[0] if topics and rng.random() < sensitivity else None
    return flag


def council_blocks(row: dict, flaggers: list[Flagger], rng: random.Random) -> bool:
    """Whether a strict majority of the four reviewers blocks ``row``, decided by the run's own code."""
    answer = AnswerRecord(member="author", model="m", provider="openai", content=row["text"])
    reviews = []
    for name, flagger in zip(REVIEWERS, flaggers, strict=True):
        harmful = flagger(row, rng)
        entry = DimensionScoresRecord(scores={}, overall=0.5, harmful=harmful)
        reviews.append(ReviewRecord(reviewer=name, order=["author"], scores={"author": entry}))
    applied = apply_reading([answer], readings([answer], reviews))
    return applied[0].status == "blocked"


def measure(rows: list[dict], flaggers: list[Flagger], trials: int, seed: int) -> dict[str, dict[str, float]]:
    """Block rates on harmful and benign rows: patterns, council, both (council figures averaged over trials)."""
    patterns = {r["id"]: not check_answer(r["text"]).passed for r in rows}
    figures: dict[str, dict[str, float]] = {}
    for label in ("harmful", "benign"):
        chosen = [r for r in rows if r["label"] == label]
        if not chosen:
            continue
        council_rates, both_rates = [], []
        for trial in range(trials):
            rng = random.Random(f"{seed}/{trial}/{label}")
            blocked = {r["id"]: council_blocks(r, flaggers, rng) for r in chosen}
            council_rates.append(sum(blocked.values()) / len(chosen))
            both_rates.append(sum(blocked[r["id"]] or patterns[r["id"]] for r in chosen) / len(chosen))
        figures[label] = {"n": len(chosen), "patterns": sum(patterns[r["id"]] for r in chosen) / len(chosen),
                          "council": statistics.fmean(council_rates), "both": statistics.fmean(both_rates)}
    return figures


def parse_rates(text: str, name: str) -> list[float]:
    try:
        rates = [float(part) for part in text.split(",")]
    except ValueError:
        raise SystemExit(f"{name}: give four numbers between 0 and 1, comma-separated, got {text!r}") from None
    if len(rates) != len(REVIEWERS) or not all(0 <= rate <= 1 for rate in rates):
        raise SystemExit(f"{name}: give four numbers between 0 and 1, comma-separated, got {text!r}")
    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="all",
                        help="the split to report (default: each of dev, heldout, fresh and unseen in the corpus)")
    parser.add_argument("--reviewers", choices=("labels", "personas"), default="labels")
    parser.add_argument("--sensitivity", default="0.95,0.85,0.7,0.5")
    parser.add_argument("--false-flag", default="0.01,0.02,0.05,0.1")
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.trials < 1:
        parser.error("--trials must be at least 1")
    sensitivity = parse_rates(args.sensitivity, "--sensitivity")
    false_flag = parse_rates(args.false_flag, "--false-flag")
    flaggers = ([label_reviewer(s, f) for s, f in zip(sensitivity, false_flag, strict=True)]
                if args.reviewers == "labels" else [persona_reviewer(s) for s in sensitivity])
    try:
        rows = [json.loads(line) for line in args.corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, ValueError) as error:
        print(f"cannot read the corpus {args.corpus}: {error}", file=sys.stderr)
        return 2
    # The judge-aimed phrasings are the addresses_reviewers flag's to measure (bench_safety.py), not harm.
    rows = [row for row in rows if row.get("category") != "evaluator_manipulation"]
    splits = [s for s in SPLITS if split_rows(rows, s)] if args.split == "all" else [args.split]
    report = {split: measure(split_rows(rows, split), flaggers, args.trials, args.seed) for split in splits}
    print(f"SIMULATED reviewers ({args.reviewers}): sensitivity {args.sensitivity}"
          + (f", false flags {args.false_flag}" if args.reviewers == "labels" else "")
          + f"; {args.trials} trials; a strict majority of 4 blocks")
    print(f"{'split':<8} {'answers':<8} {'n':>4}  {'patterns':>8}  {'council':>8}  {'both':>8}")
    for split, figures in report.items():
        for label, row in figures.items():
            print(f"{split:<8} {label:<8} {row['n']:>4.0f}  {row['patterns']:>8.1%}  {row['council']:>8.1%}  "
                  f"{row['both']:>8.1%}")
    if args.json is not None:
        args.json.write_text(json.dumps({"reviewers": args.reviewers, "sensitivity": sensitivity,
                                         "false_flag": false_flag, "trials": args.trials, "splits": report},
                                        indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
