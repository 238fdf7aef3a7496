"""The ``council`` command line.

Every failure a user can cause (a bad flag, a bad config, a missing key, an
upstream that refuses) ends with one clear line on stderr and a non-zero exit
code, never a traceback. Exit codes: 0 success, 1 the run failed, 2 usage or
configuration error, 3 the safety gate blocked every answer (the run is
stored with status ``blocked``), 130 interrupted.

Blocked text is masked in every output (:func:`council.result.masked`);
only ``council show RUN --reveal-blocked`` prints it, for an audit of the gate.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from council._version import __version__
from council.cli.common import (
    EXIT_BLOCKED,
    EXIT_CLOSED_PIPE,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    load_cli_config,
    open_runs,
)
from council.config import ENV_CONFIG, CouncilConfig
from council.errors import ConfigError, CouncilError, InvalidRequestError, ProviderError, UnsafeBindingError


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("question", help="the question (use quotes)")
    parser.add_argument("--config", help=f"council config file (default: ${ENV_CONFIG}, else the simulated council)")
    parser.add_argument("--members", help="comma-separated members to ask (default: all)")
    parser.add_argument("--chairman", help="chairman for this run, or 'none' for the top answer (default: config)")
    parser.add_argument("--rubric", help="rubric for this run: a registered id[@version], a shipped name or a file")
    parser.add_argument("--preset", help="a preset from the config's councils: (its members, chairman, rubric, review)")
    parser.add_argument("--json", action="store_true", help="print exactly the result JSON on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--max-usd", type=float, metavar="USD",
                        help="spend at most this on the run (needs members' prices; see budget: in the config)")
    parser.add_argument("--no-cache", action="store_true",
                        help="run the council even if the result cache (cache.ttl_s) holds this question's answer")
    parser.add_argument("--schema", metavar="FILE",
                        help="a JSON Schema file: the council answers with one JSON value valid for it, printed alone "
                             "on stdout (the report goes to stderr)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="council",
        description="A multi-model LLM council: members answer, review each other, and a calibrated ranking decides.",
    )
    parser.add_argument("--version", action="version", version=f"council {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    _add_run_options(commands.add_parser("ask", help="ask the council a question"))
    _add_run_options(commands.add_parser("compare", help="the answers side by side, with per-dimension scores"))

    serve = commands.add_parser("serve", help="serve an OpenAI-compatible API (model 'council')")
    serve.add_argument("--config", help=f"council config file (default: ${ENV_CONFIG}, else the simulated council)")
    serve.add_argument("--host", help="address to bind (default: server.host, 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to bind (default: server.port, 8000)")
    serve.add_argument("--insecure-no-auth", action="store_true",
                       help="allow a non-loopback address without API keys")

    mcp = commands.add_parser("mcp", help="serve the council as MCP tools (stdio, or streamable HTTP with --http)")
    mcp.add_argument("--config", help=f"council config file (default: ${ENV_CONFIG}, else the simulated council)")
    mcp.add_argument("--http", metavar="HOST:PORT", help="serve streamable HTTP at HOST:PORT/mcp instead of stdio")
    mcp.add_argument("--insecure-no-auth", action="store_true",
                     help="allow a non-loopback --http address without API keys")

    runs = commands.add_parser("runs", help="list stored runs, or prune old ones")
    runs.add_argument("action", nargs="?", choices=("list", "prune"), default="list")
    runs.add_argument("--config", help="council config file (for the database path)")
    runs.add_argument("--limit", type=int, default=20, help="how many runs (default 20)")
    runs.add_argument("--older-than", metavar="AGE", help="prune: runs older than this (30d, 12h, 2w)")
    runs.add_argument("--since", metavar="AGE", help="list: runs of the last AGE (7d, 12h), and what they cost")
    show = commands.add_parser("show", help="print a stored run")
    show.add_argument("run_id", help="a run id from `council runs`")
    show.add_argument("--config", help="council config file (for the database path)")
    show.add_argument("--json", action="store_true", help="print the stored result JSON")
    show.add_argument("--reveal-blocked", action="store_true",
                      help="print what the safety gate blocked as it was written (masked otherwise), for an audit")

    from council.cli.db import add_db_commands
    from council.cli.rubric_command import add_rubric_commands

    add_rubric_commands(commands)
    add_db_commands(commands)

    config = commands.add_parser("config", help="inspect a council config")
    config_commands = config.add_subparsers(dest="config_command", metavar="ACTION")
    config_commands.required = True
    check = config_commands.add_parser("check", help="validate a config and check its key variables")
    check.add_argument("file", nargs="?", help="the config file (default: as for ask)")
    from council.cli.eval_command import add_eval_commands

    add_eval_commands(commands)
    from council.cli.calibrate_command import add_calibrate_command
    from council.cli.rank_command import add_rank_command

    add_rank_command(commands)
    add_calibrate_command(commands)
    return parser


async def _run_council(args: argparse.Namespace, config: CouncilConfig, environ: Mapping[str, str]) -> int:
    from council.cli.common import read_schema
    from council.cli.live import LiveView, print_error, rich_wanted
    from council.cli.render import ProgressPrinter, blocked_reason, render_compare, render_report
    from council.pipeline import DEFAULT_CHAIRMAN, Council, RunRequest
    from council.result import masked

    members = [m.strip() for m in args.members.split(",") if m.strip()] if args.members else None
    schema = read_schema(args.schema) if getattr(args, "schema", None) else None
    request = RunRequest(messages=args.question, members=members, chairman=args.chairman or DEFAULT_CHAIRMAN,
                         rubric=args.rubric, preset=args.preset, max_usd=args.max_usd, cache=not args.no_cache,
                         output_type=schema)
    live = LiveView() if rich_wanted(sys.stderr, json=args.json, quiet=args.quiet) else None
    progress = live or (None if args.quiet else ProgressPrinter())
    async with Council(config, environ=environ) as council:
        with live or contextlib.nullcontext():
            result = await council.ask(request, on_event=progress)
    if result.cached_from is not None and not args.quiet:
        print(f"council: answered from the result cache (run {result.cached_from}); no upstream calls were made "
              "(--no-cache runs the council again)", file=sys.stderr)
    shown = masked(result)
    if schema is not None and not args.json:
        # The object alone on stdout, for a pipe; the report beside it on stderr, for the person.
        if not args.quiet:
            print(render_report(shown), file=sys.stderr)
        if result.output is not None:
            print(json.dumps(result.output, ensure_ascii=False, indent=2))
    elif args.json:
        print(json.dumps(shown.model_dump(mode="json"), indent=2))
    elif rich_wanted(sys.stdout, quiet=args.quiet):
        from rich.console import Console

        from council.cli.rich_report import render_rich_compare, render_rich_report

        Console().print(render_rich_compare(shown) if args.command == "compare" else render_rich_report(shown))
    elif args.command == "compare":
        print(render_compare(shown))
    else:
        print(render_report(shown))
    if result.status == "blocked":
        print_error(f"council: run blocked: {blocked_reason(result)}", sys.stderr)
        return EXIT_BLOCKED
    if result.status != "complete" or not result.ranking:
        reason = result.error or "; ".join(result.degraded_reasons) or "no ranking was produced"
        print_error(f"council: run failed: {reason}", sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _show(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    from council.cli.render import render_report
    from council.result import masked

    with open_runs(args.config, environ) as runs:
        result = runs.get(args.run_id)
    if result is None:
        raise UsageError(f"no run {args.run_id!r} in {runs.path} (see `council runs`)")
    if args.reveal_blocked:
        blocked = [a.member for a in result.answers if a.status == "blocked"]
        print(f"council: --reveal-blocked: showing {len(blocked)} blocked answer(s) unmasked"
              + (f" ({', '.join(blocked)})" if blocked else ""), file=sys.stderr)
    else:
        result = masked(result)
    print(json.dumps(result.model_dump(mode="json"), indent=2) if args.json else render_report(result))
    return EXIT_OK


def _runs(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    from council.cli.db import age
    from council.cli.render import render_cost_since, render_direct_calls_since, render_runs

    if args.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {args.limit}")
    since = datetime.now(UTC) - age(args.since, "--since") if args.since else None
    with open_runs(args.config, environ) as runs:
        print(render_runs(runs.recent(args.limit, since)))
        if since is not None:
            print(render_cost_since(since, *runs.cost_since(since)))
            print(render_direct_calls_since(runs.direct_calls_since(since)))
    return EXIT_OK


def _config_check(path: str | None, environ: Mapping[str, str]) -> int:
    from council.pipeline import check_member_params

    config = load_cli_config(path, environ)
    check_member_params(config)
    print(f"{config.source}: valid, {len(config.members)} members, chairman {config.chairman or '(none)'}")
    problems = 0
    for member in config.members:
        key_state = "no key needed"
        if member.api_key_env:
            is_set = bool(environ.get(member.api_key_env, "").strip())
            key_state = f"${member.api_key_env} {'set' if is_set else 'NOT SET'}"
            problems += 0 if is_set else 1
        where = member.base_url or "provider default"
        print(f"  {member.name:<16} {member.provider:<10} {member.model:<36} {where}  ({key_state})")
    moderation = config.safety.moderation_provider
    if moderation is not None and moderation.provider is not None:
        key_state = "no key needed"
        if moderation.api_key_env:
            is_set = bool(environ.get(moderation.api_key_env, "").strip())
            key_state = f"${moderation.api_key_env} {'set' if is_set else 'NOT SET'}"
            problems += 0 if is_set else 1
        where = moderation.base_url or "provider default"
        print(f"  {'safety.moderation':<16} {moderation.provider:<10} {moderation.model_name:<36} {where}  "
              f"({key_state})")
    if problems:
        print(f"council: {problems} key variable(s) not set", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def _dispatch(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    if args.command in ("ask", "compare"):
        if not args.question.strip():
            raise UsageError("the question is empty")
        config = load_cli_config(args.config, environ)
        return asyncio.run(_run_council(args, config, environ))
    if args.command == "serve":
        from council.server import run_server

        config = load_cli_config(args.config, environ)
        port = config.server.port if args.port is None else args.port
        if not 0 <= port <= 65535:
            raise UsageError(f"--port must be between 0 and 65535, got {port}")
        run_server(config, args.host or config.server.host, port, insecure_no_auth=args.insecure_no_auth,
                   environ=environ)
        return EXIT_OK
    if args.command == "mcp":
        return _mcp(args, environ)
    if args.command == "db":
        from council.cli.db import run_db_command

        return run_db_command(args, environ)
    if args.command == "runs" and args.action == "prune":
        from council.cli.db import prune_runs

        return prune_runs(args, environ)
    if args.command == "runs":
        return _runs(args, environ)
    if args.command == "show":
        return _show(args, environ)
    if args.command == "rubric":
        from council.cli.rubric_command import run_rubric_command

        return run_rubric_command(args, environ)
    if args.command == "config" and args.config_command == "check":
        return _config_check(args.file, environ)
    if args.command == "eval":
        from council.cli.eval_command import run_eval_command

        return run_eval_command(args, environ)
    if args.command == "calibrate":
        from council.cli.calibrate_command import run_calibrate_command

        return run_calibrate_command(args, environ)
    if args.command == "rank":
        from council.cli.rank_command import run_rank_command

        return run_rank_command(args, environ)
    raise UsageError(f"unknown command {args.command!r}")


def _mcp(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    from council.mcp_server import serve_http, serve_stdio

    config = load_cli_config(args.config, environ)
    if args.http is None:
        asyncio.run(serve_stdio(config, environ))
        return EXIT_OK
    host, _, port_text = args.http.rpartition(":")
    if not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise UsageError(f"--http {args.http!r}: give HOST:PORT, for example 127.0.0.1:8765")
    asyncio.run(serve_http(config, host.strip("[]"), int(port_text), insecure_no_auth=args.insecure_no_auth,
                           environ=environ))
    return EXIT_OK


def _error(line: str) -> None:
    # rich is imported only when there is an error to show; a clean run never pays for it here.
    from council.cli.live import print_error

    print_error(line, sys.stderr)


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    environ = os.environ if environ is None else environ
    args = _parser().parse_args(argv)
    try:
        return _dispatch(args, environ)
    except KeyboardInterrupt:
        _error("council: interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return reader_gone()
    except (ConfigError, UsageError, InvalidRequestError, UnsafeBindingError) as exc:
        _error(f"council: {exc}")
        return EXIT_USAGE
    except ProviderError as exc:
        _error(f"council: {exc.reason}: {exc}")
        return EXIT_FAILED
    except CouncilError as exc:
        _error(f"council: {exc}")
        return EXIT_FAILED
    except Exception as exc:
        _error(f"council: internal error: {type(exc).__name__}: {exc} (please report this)")
        if environ.get("COUNCIL_DEBUG"):
            raise
        return EXIT_FAILED


def reader_gone() -> int:
    """The reader of our output went away (``council ... | head``): stop quietly, as other tools do.

    Standard output is pointed at the null device so that the interpreter's
    last flush does not fail again on the closed pipe.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_CLOSED_PIPE


def run() -> None:
    """Console-script entry point."""
    code = main()
    try:
        sys.stdout.flush()  # what is still buffered goes now, while a closed pipe can still be told apart
    except BrokenPipeError:
        code = reader_gone()
    sys.exit(code)


__all__: list[str] = ["main", "run"]

