"""``council rank FILE``: rank anyone's ballots with the council's aggregation, and, with labels, score the judges.

The work is :func:`council.ranking.ballots.rank_ballots` (the same
aggregation a council runs); this module only reads the options and prints
the report as tables, or as JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping
from typing import Any

from council.cli.common import EXIT_OK, text_table
from council.cli.learn_report import render_learning
from council.ranking import DEFAULT_WEIGHTING, METHODS, MODES, WEIGHTINGS, BallotReport, ItemRanking, rank_ballots
from council.text import visible


def add_rank_command(commands: Any) -> None:
    """Add ``rank`` to the top-level subparsers."""
    rank = commands.add_parser(
        "rank", help="rank scores from any judges (JSONL or CSV: item, candidate, judge, score)",
        description="Rank each item's candidates from the judges' scores with the council's calibrated "
                    "aggregation; per judge its calibration, weight, bias flags and position consistency.")
    rank.add_argument("file", help="ballots: JSONL or CSV rows of item, candidate, judge, score "
                                   "(optional game, position, dimension)")
    rank.add_argument("--labels", metavar="FILE",
                      help="the right answers (item, best or order): adds accuracy of the aggregate, the majority "
                           "vote and each judge, with bootstrap intervals")
    rank.add_argument("--mode", choices=MODES, default=MODES[0],
                      help="two-pass: calibrate each judge on the whole file, then rank (default); online: carry "
                           "the history in file order, as a council does run after run")
    rank.add_argument("--method", choices=METHODS, default="calibrated", help="aggregation method")
    rank.add_argument("--weighting", choices=WEIGHTINGS, default=DEFAULT_WEIGHTING, help="reviewer weights")
    rank.add_argument("--learn", action="store_true",
                      help="with --labels: learn the judges' weights from the labelled items (shrunk toward the "
                           "default with few labels), rank with them, and report them with cross-validated accuracy")
    rank.add_argument("--json", action="store_true", help="print the whole report as JSON")


def _figure(value: float | None, digits: int = 2) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def _agreement(item: ItemRanking) -> str:
    agreement = item.agreement
    if agreement.statistic == "kendall_w" and agreement.kendall_w is not None:
        return f"W {agreement.kendall_w:.2f}"
    if agreement.mean_pairwise_tau is not None:
        return f"tau {agreement.mean_pairwise_tau:+.2f}"
    return "-"


def render(report: BallotReport) -> str:
    """The report as plain-text tables: items, judges, and accuracy when labelled."""
    weights = f", {report.weighting} weights" if report.method == "calibrated" else ""
    out = [f"{len(report.items)} items, {len(report.judges)} judges; {report.method}{weights}, {report.mode} mode"]
    if report.ignored_columns:
        out.append(f"columns not used: {visible(', '.join(report.ignored_columns))}")
    out += ["", "Items (best first)"]
    out += text_table(["item", "ranking", "top confidence", "tied with top", "agreement", "calibrated"], [
        [item.item, " > ".join(c.member for c in item.ranking), _figure(item.top_confidence),
         ", ".join(item.tied_with_top) or "-", _agreement(item), "yes" if item.calibrated else "no (raw means)"]
        for item in report.items])
    out += ["", "Judges"]
    out += text_table(["judge", "items", "mean", "SD", "weight", "position consistency", "bias flags"], [
        [j.judge, str(j.items), _figure(j.mean), _figure(j.sd), _figure(j.weight),
         f"{_figure(j.position_consistency)} ({j.position_items} items)" if j.position_items else "-",
         "; ".join(j.bias_flags) or "-"] for j in report.judges])
    if report.accuracy:
        out += ["", f"Accuracy against the labels ({report.labelled_items} labelled items; top pick right; "
                    "95% bootstrap interval)"]
        out += text_table(["who", "accuracy", "95% interval", "items"], [
            [row.name if row.kind != "judge" else f"judge {row.name}", _figure(row.accuracy, 3),
             f"{_figure(row.low, 3)} - {_figure(row.high, 3)}", str(row.items)] for row in report.accuracy])
        if report.labels_without_ballots:
            missing = report.labels_without_ballots
            out.append(f"labels for {len(missing)} item(s) with no ballots, not used: {visible(', '.join(missing[:5]))}"
                       + (" ..." if len(missing) > 5 else ""))
    return "\n".join(out)


def run_rank_command(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """Run ``council rank``; a bad file raises a :class:`~council.ranking.ballot_file.BallotError` (exit 2)."""
    report = rank_ballots(args.file, labels=args.labels, mode=args.mode, method=args.method,
                          weighting=args.weighting, learn=args.learn)
    text = render(report) + ("\n\n" + render_learning(report.learning) if report.learning else "")
    print(json.dumps(report.to_dict(), indent=2) if args.json else text)
    return EXIT_OK
