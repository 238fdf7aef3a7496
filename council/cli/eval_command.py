"""``council eval``: evaluate a dataset, resume a run, or compare two runs.

::

    council eval DATASET.jsonl [--config FILE] [--repeat N] [--concurrency K] [--judge MEMBER | --evaluator MEMBER]
                               [--members a,b] [--report PATH | --no-report] [--json] [--quiet] [--max-usd X]
                               [thresholds...]
    council eval --resume RUN_ID [DATASET.jsonl] [--concurrency K] [--max-usd Y] [--report PATH] [--json] [--quiet]
    council eval compare RUN_A RUN_B [--config FILE] [--json]

``compare`` is read as a word in the dataset's place, so both forms live
under one ``eval`` command: argparse sub-commands would claim every first
argument and so could not take a dataset path there. A dataset file that is
really named ``compare`` is reached as ``./compare``.

Exit codes: 0 the release gate holds (and for ``compare``), 1 it does not
(or a run failed), 2 a usage, configuration or dataset error, 3 the run
stopped on its ``--max-usd`` budget before every sample ran (what ran is
stored and summarized; ``--resume RUN_ID [--max-usd Y]`` runs the rest), 130
interrupted (the run is kept; ``--resume RUN_ID`` finishes it).

``--max-usd X`` keeps a running total of what the samples cost (answers and
their evaluation); no sample starts once it reaches X, and the samples in
flight finish. A budget needs a price on every member the run calls (an
unpriced member's calls could not be counted), so a member without one is a
usage error. On ``--resume`` it is a new budget for the resumed part only.

``--fresh`` makes every upstream call again; by default a call asked exactly
as in an earlier run gets that run's kept reply (docs/evaluation.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from council.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, db_path
from council.cli.eval_roles import choose_members, refuse_floating

if TYPE_CHECKING:
    from rich.progress import Progress

EXIT_GATE_FAILED = EXIT_FAILED  # the release gate failed: a run that did not pass, like any failed run
EXIT_BUDGET_STOPPED = 3  # --max-usd ran out before every sample ran; clashes with no code of council/cli/common.py
COMPARE = "compare"
THRESHOLD_FLAGS = {
    "min_aggregate_score": ("--min-aggregate-score", float, "gate: least aggregate_score (0.80)"),
    "min_pass_rate": ("--min-pass-rate", float, "gate: least pass_rate (0.85)"),
    "max_faithfulness_failure_rate": ("--max-faithfulness-failure-rate", float,
                                      "gate: largest faithfulness_failure_rate (0.05)"),
    "max_latency_e2e_p95_ms": ("--max-latency-p95-ms", float, "gate: longest latency_e2e_p95_ms (10000)"),
    "max_spent_tokens_per_sample": ("--max-spent-tokens-per-sample", int,
                                    "gate: largest spent_tokens_per_sample_mean, every call of a sample (20000)"),
    "min_schema_valid_rate": ("--min-schema-valid-rate", float,
                              "gate: least schema_valid_rate, samples with an output_schema only (1.0)"),
    "min_accuracy": ("--min-accuracy", int, "a passing sample's least accuracy score (1)"),
    "min_faithfulness": ("--min-faithfulness", int, "a passing sample's least faithfulness score (1)"),
    "max_latency_e2e_ms": ("--max-sample-latency-ms", float, "a passing sample's longest latency (8000)"),
    "max_total_tokens": ("--max-sample-tokens", int,
                         "a passing sample's largest total_tokens, the answer returned (6000)"),
}
# Options that shape what a run measures: fixed when it starts, so a resume cannot change them.
RUN_SHAPING = ("repeat", "judge", "evaluator", "members", "preset", "sample_timeout", "evaluator_template",
               "score_candidates",
               *THRESHOLD_FLAGS)
DEFAULT_CONCURRENCY = 8
DEFAULT_SAMPLE_TIMEOUT_S = 300.0


def add_eval_commands(subparsers: Any) -> None:
    """Add the ``eval`` command (with ``eval compare``) to the ``council`` sub-command parsers."""
    parser = subparsers.add_parser(
        "eval", help="evaluate a dataset (or: eval compare RUN_A RUN_B)",
        usage="council eval DATASET [options] | --resume RUN_ID [DATASET] | compare RUN_A RUN_B",
        description="Run a JSONL dataset through the council (or each member, with --judge), score every answer "
                    "with an evaluator, and check the release gate. Exit 0 when the gate holds, 1 when not, "
                    f"2 on a usage error, {EXIT_BUDGET_STOPPED} when --max-usd stopped the run before every sample "
                    "ran, 130 when interrupted.",
    )
    parser.add_argument("target", nargs="?", metavar="DATASET", help="the JSONL dataset, or the word 'compare'")
    parser.add_argument("run_ids", nargs="*", metavar="RUN_ID", help="with compare: the two run ids")
    parser.add_argument("--config", metavar="FILE",
                        help="council config file (default: $COUNCIL_CONFIG, else the simulated council)")
    parser.add_argument("--repeat", type=int, metavar="N", help="run every sample N times (default 1; 3+ for variance)")
    parser.add_argument("--concurrency", type=int, metavar="K",
                        help=f"samples in flight: council runs, or member answers with --judge "
                             f"(default {DEFAULT_CONCURRENCY})")
    parser.add_argument("--judge", metavar="MEMBER", help="judge mode: every member answers, MEMBER scores them")
    parser.add_argument("--evaluator", metavar="MEMBER", help="council mode: who scores the final answers "
                                                              "(default: the chairman, else the first member)")
    parser.add_argument("--members", metavar="A,B", help="comma-separated members (default: all)")
    parser.add_argument("--preset", metavar="NAME", help="council mode: run every sample with this preset "
                                                         "(councils: in the config), e.g. deliberate against full")
    parser.add_argument("--evaluator-template", choices=("council", "spec"),
                        help="the evaluator prompt: council (Council's own, default: inputs fenced, rubric notes "
                             "sent) or spec (the evaluation spec's exact template)")
    parser.add_argument("--sample-timeout", type=float, metavar="SECONDS",
                        help=f"abandon a sample after this long (default {DEFAULT_SAMPLE_TIMEOUT_S:g})")
    parser.add_argument("--resume", metavar="RUN_ID", help="finish an interrupted (or budget-stopped) run without "
                                                           "redoing its samples")
    parser.add_argument("--max-usd", type=float, metavar="X",
                        help="budget in US dollars: no sample starts once what the samples cost (answers and their "
                             "evaluation) reaches X; samples in flight finish, the run is stored as stopped and "
                             f"exits {EXIT_BUDGET_STOPPED}. Every member the run calls needs a price (else exit 2). "
                             "With --resume: a new budget for the remaining samples, counting only what the resumed "
                             "part spends")
    parser.add_argument("--report", metavar="PATH", help="report file: .html (default) or .md with .svg images "
                                                         "(default: ./council-eval-RUN_ID.html)")
    parser.add_argument("--no-report", action="store_true", help="write no report file")
    parser.add_argument("--allow-floating-models", action="store_true",
                        help="run even when a model id is a floating alias (...-latest), which the evaluation spec "
                             "forbids in benchmark runs (default: refuse)")
    parser.add_argument("--fresh", action="store_true",
                        help="make every upstream call again (by default a call asked exactly as in an earlier run "
                             "gets that run's kept reply, at no cost)")
    parser.add_argument("--score-candidates", action="store_true", default=None,
                        help="council mode: the evaluator also scores every member's answer against the reference "
                             "(one more evaluator call per answer), for council calibrate")
    parser.add_argument("--json", action="store_true", help="print the manifest and summary as JSON on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    for dest, (flag, kind, text) in THRESHOLD_FLAGS.items():
        metavar = "MS" if dest.endswith("_ms") else "N" if kind is int else "X"
        parser.add_argument(flag, dest=dest, type=kind, metavar=metavar, help=text)


def run_eval_command(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """Run ``council eval``; returns the exit code. Config errors are left to the caller, which reports them."""
    from council.evals import DatasetError

    try:
        if args.target == COMPARE:
            return _compare(args, environ)
        if args.run_ids:
            raise UsageError(f"unexpected arguments: {' '.join(args.run_ids)} (one dataset at a time)")
        return _evaluate(args, environ)
    except (DatasetError, UsageError) as exc:
        print(f"council: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _stored(store: Any, run_id: str) -> Any:
    stored = store.get_run(run_id)
    if stored is None:
        recent = ", ".join(r[0] for r in store.recent_runs()) or "none"
        raise UsageError(f"no evaluation run {run_id!r} in {store.path} (recent: {recent}); "
                             f"give the --config the run used")
    return stored


def _compare(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    from council.evals import EvalStore, compare_runs, render_comparison

    if len(args.run_ids) != 2:
        raise UsageError(f"compare takes two run ids, got {len(args.run_ids)}")
    store = EvalStore(db_path(args.config, environ))
    try:
        runs = [_stored(store, run_id) for run_id in args.run_ids]
        for run in runs:
            if run.summary is None:
                raise UsageError(f"evaluation run {run.manifest.run_id} is {run.status}; "
                                     f"finish it with --resume {run.manifest.run_id} first")
        comparison = compare_runs(runs[0], runs[1], store.samples(args.run_ids[0]), store.samples(args.run_ids[1]))
    finally:
        store.close()
    print(json.dumps(comparison.model_dump(mode="json"), indent=2) if args.json else render_comparison(comparison))
    return EXIT_OK


def _thresholds(args: argparse.Namespace) -> Any:
    from pydantic import ValidationError

    from council.evals import Thresholds

    given = {dest: getattr(args, dest) for dest in THRESHOLD_FLAGS if getattr(args, dest) is not None}
    try:
        return Thresholds(**given)
    except ValidationError as exc:
        first = exc.errors()[0]
        flag = THRESHOLD_FLAGS[str(first["loc"][0])][0]
        raise UsageError(f"{flag}: {first['msg'].lower()}") from None


def _positive(args: argparse.Namespace) -> None:
    for name in ("repeat", "concurrency", "sample_timeout", "max_usd"):
        value, flag = getattr(args, name), "--" + name.replace("_", "-")
        if value is not None and value <= 0:
            raise UsageError(f"{flag} must be positive, got {value:g}")


def _new_run(args: argparse.Namespace, environ: Mapping[str, str]) -> tuple[Any, Any, Any]:
    from council.cli.common import load_cli_config
    from council.evals import build_manifest, load_dataset, new_run_id, pinned_config, run_region
    from council.pipeline import Council

    if args.target is None:
        raise UsageError("a dataset is required (council eval DATASET.jsonl), or --resume RUN_ID, "
                             "or compare RUN_A RUN_B")
    thresholds = _thresholds(args)
    dataset = load_dataset(args.target)
    config = load_cli_config(args.config, environ)
    mode, members, evaluator, judge = choose_members(args, config)
    if args.score_candidates and mode != "council":
        raise UsageError("--score-candidates: only in council mode (judge mode scores every member's answer already)")
    refuse_floating(args, config, mode, members, evaluator, bool(dataset.rubrics))
    # Built before the run starts so a missing API key stops it before anything is stored. Every call of the run
    # (reviews and the safety gate's included) gets the pinned generation settings.
    council = Council(pinned_config(config), environ=environ,
                      runs_at_once=args.concurrency or DEFAULT_CONCURRENCY)
    manifest = build_manifest(
        run_id=new_run_id(), mode=mode, config=config, config_path=config.source, dataset=dataset, members=members,
        evaluator=evaluator, judge=judge, rubric=council.rubric, repeat=args.repeat or 1,
        concurrency=args.concurrency or DEFAULT_CONCURRENCY,
        sample_timeout_s=args.sample_timeout or DEFAULT_SAMPLE_TIMEOUT_S, thresholds=thresholds,
        allow_floating_models=args.allow_floating_models, evaluator_template=args.evaluator_template or "council",
        region=run_region(config, environ), reuse_calls=not args.fresh, preset=args.preset,
        score_candidates=bool(args.score_candidates),
    )
    return council, dataset, manifest


def _resumed_run(args: argparse.Namespace, environ: Mapping[str, str]) -> tuple[Any, Any, Any, str]:
    from council.config import load_config
    from council.evals import EvalStore, config_hash, load_dataset, pinned_config
    from council.logs import configure_logging
    from council.pipeline import Council

    changed = [name for name in RUN_SHAPING if getattr(args, name, None) is not None]
    if changed:
        flags = ", ".join("--" + name.replace("_", "-") for name in changed)
        raise UsageError(f"{flags}: cannot be changed when resuming; a run keeps the options it started with")
    store = EvalStore(db_path(args.config, environ))
    try:
        stored = _stored(store, args.resume)
    finally:
        store.close()
    manifest = stored.manifest
    if args.config and Path(args.config).resolve() != Path(manifest.config_path):
        raise UsageError(f"run {args.resume} used the config {manifest.config_path}, not {args.config}")
    config = load_config(manifest.config_path, environ)
    configure_logging(config.logging.level, config.logging.format)
    if config_hash(config) != manifest.config_hash:
        raise UsageError(f"the config {manifest.config_path} changed since run {args.resume} started "
                             f"(hash {manifest.config_hash} -> {config_hash(config)}); start a new run")
    dataset = load_dataset(args.target or manifest.dataset_path)
    if dataset.dataset_hash != manifest.dataset_hash:
        raise UsageError(f"the dataset {dataset.path} is not the one run {args.resume} started with "
                             f"(sha256 {manifest.dataset_hash[:12]}..., now {dataset.dataset_hash[:12]}...)")
    if args.concurrency or args.fresh:
        manifest = manifest.model_copy(update={"concurrency": args.concurrency or manifest.concurrency,
                                               "reuse_calls": manifest.reuse_calls and not args.fresh})
    return Council(pinned_config(config, manifest.generation_params), environ=environ,
                   runs_at_once=manifest.concurrency), dataset, manifest, \
        stored.status


def _check_budget(args: argparse.Namespace, council: Any, dataset: Any, manifest: Any) -> None:
    """Refuse ``--max-usd`` when a member the run calls has no price: its calls could not be counted."""
    from council.evals import unpriced_members

    if args.max_usd is None:
        return
    unpriced = unpriced_members(council, manifest, bool(dataset.rubrics))
    if unpriced:
        raise UsageError(f"--max-usd: a budget needs a price on every member the run calls; no price: "
                         f"{', '.join(unpriced)} (add members[].price to the config, or run without --max-usd)")


async def _execute(council: Any, dataset: Any, manifest: Any, resumed: bool,
                   args: argparse.Namespace) -> tuple[Any, Any, list[Any]]:
    from council.evals import EvalRunner, EvalStore

    store = EvalStore(council.config.storage.location, pool_size=council.config.storage.pool_size)
    try:
        async with council:
            if not resumed:
                store.start_run(manifest)
            passed = [0, 0]
            progress = _progress_bar(args)

            def on_record(record: Any) -> None:
                passed[0] += record.passed
                passed[1] += 1
                progress.update(task, advance=1, passes=f"pass {passed[0]}/{passed[1]}")

            runner = EvalRunner(council, store, dataset, manifest, on_record=on_record, max_usd=args.max_usd)
            task = progress.add_task(f"eval {manifest.run_id}", total=len(runner.pending()), passes="")
            # The with block stops the bar on failure and Ctrl-C too, so the terminal gets its cursor back.
            with progress:
                summary = await runner.run()
            return summary, runner.manifest, store.samples(manifest.run_id)
    finally:
        store.close()


def _progress_bar(args: argparse.Namespace) -> Progress:
    """The samples done of the total and the passes so far, on stderr; disabled off a terminal, --quiet, --json."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from council.cli.live import rich_wanted

    # stdout is not redirected: the summary or the JSON goes there after the bar, exactly as in a pipe.
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("samples"),
                    TextColumn("{task.fields[passes]}", style="green"), TimeElapsedColumn(),
                    console=Console(stderr=True), redirect_stdout=False,
                    disable=not rich_wanted(sys.stderr, json=args.json, quiet=args.quiet))


def _evaluate(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    from council.evals import render_summary, run_metadata, write_report

    _positive(args)
    status: str | None = None
    if args.resume:
        council, dataset, manifest, status = _resumed_run(args, environ)
        if status == "complete":
            print(f"council: run {args.resume} is already complete; summarizing it again", file=sys.stderr)
    else:
        council, dataset, manifest = _new_run(args, environ)
    _check_budget(args, council, dataset, manifest)
    for warning in manifest.warnings:
        print(f"council: warning: {warning}", file=sys.stderr)
    try:
        summary, manifest, records = asyncio.run(_execute(council, dataset, manifest, status is not None, args))
    except KeyboardInterrupt:
        print(f"council: evaluation {manifest.run_id} interrupted; finished samples are stored. "
              f"Continue with: council eval --resume {manifest.run_id}", file=sys.stderr)
        raise
    written: list[Path] = []
    if not args.no_report:
        path = Path(args.report) if args.report else Path.cwd() / f"council-eval-{manifest.run_id}.html"
        try:
            written = write_report(path, summary, manifest, records)
        except OSError as exc:
            # The run is stored and the gate verdict stands; --resume RUN_ID rewrites the report later.
            print(f"council: cannot write the report {path}: {exc.strerror or exc}", file=sys.stderr)
    if args.json:
        print(json.dumps({"metadata": run_metadata(manifest), "manifest": manifest.model_dump(mode="json"),
                          "summary": summary.model_dump(mode="json"), "report": [str(p) for p in written]}, indent=2))
    else:
        print(render_summary(summary, manifest))
        if manifest.reused_calls:
            kinds = ", ".join(f"{kind} {n}" for kind, n in manifest.reused_calls.items())
            print(f"reused: {sum(manifest.reused_calls.values())} calls from earlier runs ({kinds}); --fresh makes "
                  f"them again")
        if written:
            print(f"report: {written[0]}")
    if summary.budget is not None and summary.budget.stopped:
        print(f"council: evaluation {manifest.run_id} stopped: {summary.budget.reason}; the samples run are stored. "
              f"Continue with: council eval --resume {manifest.run_id} [--max-usd Y]", file=sys.stderr)
        return EXIT_BUDGET_STOPPED
    return EXIT_OK if summary.gate_passed else EXIT_GATE_FAILED
