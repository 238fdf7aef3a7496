"""``council rubric``: check, list, register, show, delete and evaluate with rubrics."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from council import strict_json
from council.cli.common import UsageError
from council.config_errors import read_yaml
from council.errors import ConfigError
from council.rubrics import (
    detect_format,
    load_rubric,
    meta_score,
    parse_rubrics,
    print_warnings,
    read_rubrics,
    rubrics_dir,
)


def add_rubric_commands(commands: Any) -> None:
    """Add ``rubric`` and its actions to the top-level subparsers."""
    rubric = commands.add_parser("rubric", help="check, register and use rubrics")
    actions = rubric.add_subparsers(dest="rubric_command", metavar="ACTION")
    actions.required = True
    check = actions.add_parser("check", help="validate a rubric file (the meta-rubric)")
    check.add_argument("file")
    check.add_argument("--meta", action="store_true",
                       help="score the rubric's structure with the meta-rubric (0.2 per check, valid at 0.7) "
                            "instead of stopping at the first severe problem; exit 0 when structurally valid")
    listing = actions.add_parser("list", help="shipped and registered rubrics")
    listing.add_argument("--all", action="store_true", help="include deleted versions")
    register = actions.add_parser("register", help="add a rubric file to the registry")
    register.add_argument("file")
    show = actions.add_parser("show", help="print a rubric (id, id@version, shipped name or file)")
    show.add_argument("reference")
    delete = actions.add_parser("delete", help="id: remove its latest pointer; id@version: withdraw that "
                                                "version (every version is kept for audit)")
    delete.add_argument("reference")
    evaluate = actions.add_parser("evaluate", help="score an answer (by the council) or a JSON target with a rubric")
    evaluate.add_argument("reference", help="rubric: id[@version], shipped name or file")
    evaluate.add_argument("--question", help="the question the answer answers")
    evaluate.add_argument("--answer", help="the answer, or @FILE to read it from a file")
    evaluate.add_argument("--target", metavar="FILE.json", help="a structured target (a JSON object) to evaluate")
    evaluate.add_argument("--target-id", help="the target's id (default: the file name)")
    evaluate.add_argument("--json", action="store_true")
    review = actions.add_parser("review", help="evaluate a JSON artifact against several rubrics: approved or not")
    review.add_argument("target", metavar="TARGET.json")
    review.add_argument("--rubric", action="append", required=True, help="a rubric reference; repeat for more")
    review.add_argument("--target-id", help="the artifact's id (default: the file name)")
    review.add_argument("--json", action="store_true")
    for parser in (listing, register, show, delete, evaluate, review):
        parser.add_argument("--config", help="council config (for the database and members)")


def _check(path: str) -> int:
    raw = read_yaml(Path(path))
    kind = detect_format(raw)
    for where, rubric, warnings in parse_rubrics(raw, path):
        print_warnings(f"{path}: {where}" if where else path, warnings)
        kinds = {m: sum(c.scoring == m for c in rubric.criteria)
                 for m in ("llm", "llm_decode", "deterministic", "schema")}
        decoded = f"{kinds['llm_decode']} llm_decode, " if kinds["llm_decode"] else ""
        origin = f" ({kind} format{', ' + where if where else ''})" if kind != "council" else ""
        print(f"{path}: valid rubric {rubric.ref}{origin}, {len(rubric.criteria)} criteria "
              f"({kinds['llm']} llm, {decoded}{kinds['deterministic']} deterministic, {kinds['schema']} schema), "
              f"pass threshold {rubric.pass_threshold:g}, {len(warnings)} warning(s)")
        meta = meta_score(rubric)
        print(f"  meta-rubric {meta.score * 100:.0f}%: " + ", ".join(f"{c.name} {c.level}" for c in meta.checks))
    return 0


def _check_meta(path: str) -> int:
    """Each rubric in the file scored by the meta-rubric; exit 0 when every one is structurally valid."""
    valid = True
    for where, rubric, errors, warnings in read_rubrics(read_yaml(Path(path)), path):
        meta = meta_score(rubric)
        valid = valid and meta.passed
        verdict = "structurally valid" if meta.passed else "NOT structurally valid"
        print(f"{path}{': ' + where if where else ''}: {rubric.ref}: meta-rubric score {meta.score * 100:.0f}% "
              f"(pass at {meta.threshold * 100:.0f}%): {verdict}")
        for check in meta.checks:
            print(f"  {check.name}: {check.level} ({check.detail})")
        if errors:
            print(f"  as a rubric to use, {len(errors)} problem(s) stop it loading:")
            print("\n".join(f"  - {error}" for error in errors))
        for warning in warnings:
            print(f"  warning: {warning}")
    return 0 if valid else 1


def run_rubric_command(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """Run one ``council rubric`` action; errors are raised as CouncilError subclasses."""
    from council.cli.common import load_cli_config
    from council.pipeline import RunArchive

    if args.rubric_command == "check":
        return _check_meta(args.file) if args.meta else _check(args.file)
    config = load_cli_config(args.config, environ)
    if args.rubric_command == "evaluate":
        if args.target is not None:
            if args.question is not None or args.answer is not None:
                raise UsageError("--target evaluates a JSON object; --question and --answer are for answers")
            return asyncio.run(_review(args, config, environ, [args.reference], args.target))
        if args.question is None or args.answer is None:
            raise UsageError("evaluate needs --question and --answer, or --target FILE.json")
        return asyncio.run(_evaluate(args, config, environ))
    if args.rubric_command == "review":
        return asyncio.run(_review(args, config, environ, args.rubric, args.target))
    with RunArchive.open(config.storage.location, pool_size=config.storage.pool_size) as runs:
        if args.rubric_command == "list":
            print("shipped: " + ", ".join(sorted(p.stem for p in rubrics_dir().glob("*.yaml"))))
            for rubric_id, version, created, deleted in runs.registered_rubrics(include_deleted=args.all):
                print(f"registered: {rubric_id}@{version}  {created[:19]}{'  (deleted)' if deleted else ''}")
        elif args.rubric_command == "register":
            # A file may hold several rubrics (a dataknobs config, an AgentV eval file): each is registered.
            for where, rubric, warnings in parse_rubrics(read_yaml(Path(args.file)), args.file):
                print_warnings(f"{args.file}: {where}" if where else args.file, warnings)
                added = runs.register_rubric(rubric)
                print(f"{rubric.ref}: {'registered' if added else 'already registered, unchanged'}")
        elif args.rubric_command == "show":
            rubric = runs.registered_rubric(args.reference, include_deleted=True) or load_rubric(args.reference)
            print(json.dumps(rubric.model_dump(mode="json", by_alias=True, exclude_defaults=True), indent=2))
        elif args.rubric_command == "delete":
            count = runs.delete_rubric(args.reference)
            if not count:
                raise ConfigError("rubric registry", f"no registered rubric {args.reference!r} to delete")
            if "@" in args.reference:
                print(f"{args.reference}: withdrawn; kept for audit and still readable as {args.reference}")
            else:
                print(f"{args.reference}: latest pointer removed; {count} version(s) kept for audit "
                      f"(each still usable as {args.reference}@VERSION; `council rubric list --all` lists them)")
    return 0


async def _evaluate(args: argparse.Namespace, config: Any, environ: Mapping[str, str]) -> int:
    from council.pipeline import Council, judge_answer

    answer = args.answer
    if answer.startswith("@"):
        try:
            answer = Path(answer[1:]).read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(answer[1:], f"cannot read the answer file: {exc}") from None
    async with Council(config, environ=environ) as council:
        verdict = await judge_answer(council, args.question, answer, args.reference)
    if args.json:
        print(json.dumps(verdict.model_dump(mode="json"), indent=2))
    else:
        print(verdict.feedback)
        if verdict.summary:
            print(f"\n{verdict.summary_by}: {verdict.summary}")
    print(f"rubric {verdict.rubric_id}@{verdict.rubric_version}: {'PASSED' if verdict.passed else 'FAILED'}",
          file=sys.stderr)
    return 0 if verdict.passed else 1


def _read_target(path: str) -> dict[str, Any]:
    try:
        data = strict_json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(path, f"cannot read the target: {exc}") from None
    except ValueError as exc:
        raise ConfigError(path, f"the target is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(path, f"the target must be a JSON object, not {type(data).__name__}")
    return data


async def _review(args: argparse.Namespace, config: Any, environ: Mapping[str, str], references: list[str],
                  target_path: str) -> int:
    """Evaluate one JSON target against each rubric; approved only when every evaluation passed."""
    from council.pipeline import Council, judge_target

    target = _read_target(target_path)
    target_id = args.target_id or Path(target_path).stem
    async with Council(config, environ=environ) as council:
        rubrics = [council.resolve_rubric(reference) for reference in references]
        evaluations = [await judge_target(council, rubric, target, target_id=target_id) for rubric in rubrics]
        review_id = f"review_{evaluations[0].id.removeprefix('eval_')}"
        runs = council.runs
        if runs is not None:
            for evaluation in evaluations:
                runs.save_target_evaluation(evaluation, review_id)
    approved = all(evaluation.passed for evaluation in evaluations)
    status = "approved" if approved else "needs_revision"
    if args.json:
        print(json.dumps({"target_id": target_id, "review_id": review_id, "status": status,
                          "evaluations": [e.model_dump(mode="json") for e in evaluations]}, indent=2))
    else:
        for evaluation in evaluations:
            print(evaluation.feedback_summary + "\n")
        print(f"{target_id}: {status} ({sum(e.passed for e in evaluations)} of {len(evaluations)} rubrics passed)")
    return 0 if approved else 1
