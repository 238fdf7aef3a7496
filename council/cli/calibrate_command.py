"""``council calibrate EVAL_RUN...``: learn reviewer weights from evaluation runs with reference answers.

The work is :func:`council.evals.reviewer_accuracy.reviewer_accuracy`; this
module opens the database the runs are in, stores the weights beside the
reviewers' calibration history (``review.weighting: learned`` reads them)
and prints the table. A missing run, a run that cannot be learned from, or
a database that does not exist is a usage error (exit 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from council.cli.common import EXIT_OK, EXIT_USAGE, UsageError, db_path, text_table


def add_calibrate_command(commands: Any) -> None:
    """Add ``calibrate`` to the top-level subparsers."""
    parser = commands.add_parser(
        "calibrate", help="learn reviewer weights from council eval runs with reference answers",
        description="Measure how often each reviewer's top pick was the answer the evaluator judged closest to "
                    "the reference, over the named council eval runs (made with --score-candidates), and store "
                    "each reviewer's weight for review.weighting: learned.")
    parser.add_argument("run_ids", nargs="+", metavar="EVAL_RUN", help="evaluation run ids (council eval prints them)")
    parser.add_argument("--config", metavar="FILE", help="the council config whose storage holds the runs")
    parser.add_argument("--dry-run", action="store_true", help="print the table, store nothing")
    parser.add_argument("--json", action="store_true", help="print the table as JSON")


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def render(rows: list[Any], run_ids: list[str], stored: bool) -> str:
    """The reviewers' table: samples, accuracy with its 95% interval, chance and the learned weight."""
    header = ["reviewer", "model", "samples", "accuracy", "95% interval", "chance", "weight"]
    body = [[r.reviewer, r.key.split("|", 1)[1].replace("|", "/"), str(r.tally.samples), _figure(r.tally.accuracy),
             f"{_figure(r.interval[0])} - {_figure(r.interval[1])}" if r.interval else "-",
             _figure(r.tally.chance_rate), f"{r.weight:.2f}"] for r in rows]
    where = "stored for review.weighting: learned" if stored else "not stored (--dry-run)"
    return "\n".join([f"Reviewer weights from {', '.join(run_ids)}: {where}", *text_table(header, body)])


def run_calibrate_command(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """Run ``council calibrate``; returns the exit code."""
    from council.evals import CalibrationInputError, calibrate_reviewers

    location = db_path(args.config, environ)
    if isinstance(location, Path) and not location.exists():
        raise UsageError(f"no database at {location}: council calibrate reads the runs council eval stored there "
                         "(give the --config the runs used)")
    try:
        rows = calibrate_reviewers(location, args.run_ids, save=not args.dry_run)
    except CalibrationInputError as exc:
        print(f"council: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps([{"reviewer": r.reviewer, "reviewer_key": r.key, "samples": r.tally.samples,
                           "correct": r.tally.correct, "accuracy": r.tally.accuracy,
                           "interval": list(r.interval) if r.interval else None, "chance": r.tally.chance_rate,
                           "weight": r.weight, "eval_runs": r.runs} for r in rows], indent=2))
    else:
        print(render(rows, list(dict.fromkeys(args.run_ids)), not args.dry_run))
    return EXIT_OK
