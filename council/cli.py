"""The ``council`` command line.

Every failure a user can cause (a bad flag, a bad config, a missing key, an
upstream that refuses) ends with one clear line on stderr and a non-zero exit
code, never a traceback. Exit codes: 0 success, 1 the run failed, 2 usage or
configuration error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Mapping, Sequence


from council import __version__
from council.config import (
    ENV_CONFIG,
    CouncilConfig,
    config_path_from,
    load_config,
    resolve_api_keys,
    simulated_config_path,
)
from council.errors import ConfigError, CouncilError, ProviderError
from council.logs import configure_logging

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(CouncilError):
    """A command-line argument is wrong."""


def load_cli_config(path: str | None, environ: Mapping[str, str]) -> CouncilConfig:
    """The config named by ``--config`` or ``$COUNCIL_CONFIG``, else the simulated council (said on stderr)."""
    chosen = config_path_from(path, environ)
    if chosen is None:
        print(
            f"council: no config given (--config or ${ENV_CONFIG}); using the built-in SIMULATED council "
            f"({simulated_config_path()}). Answers are simulated, not real models.",
            file=sys.stderr,
        )
        chosen = simulated_config_path()
    config = load_config(chosen, environ)
    configure_logging(config.logging.level, config.logging.format)
    return config


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="council",
        description="A multi-model LLM council: members answer, review each other, and a calibrated ranking decides.",
    )
    parser.add_argument("--version", action="version", version=f"council {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    ask = commands.add_parser("ask", help="ask the council a question")
    ask.add_argument("question", help="the question (use quotes)")
    ask.add_argument("--config", help=f"council config file (default: ${ENV_CONFIG}, else the simulated council)")
    ask.add_argument("--member", help="ask only this member")
    ask.add_argument("--json", action="store_true", help="print the result as JSON on stdout")

    config = commands.add_parser("config", help="inspect a council config")
    config_commands = config.add_subparsers(dest="config_command", metavar="ACTION")
    config_commands.required = True
    check = config_commands.add_parser("check", help="validate a config and check its key variables")
    check.add_argument("file", nargs="?", help="the config file (default: as for ask)")
    return parser


async def _ask_member(
    config: CouncilConfig, question: str, member_name: str | None, as_json: bool, environ: Mapping[str, str]
) -> int:
    from council.providers import build_providers
    from council.transport import Transport
    from council.types import as_messages

    if member_name is not None and member_name not in {m.name for m in config.members}:
        names = ", ".join(m.name for m in config.members)
        raise UsageError(f"--member {member_name!r} is not in the council; members are: {names}")
    try:
        messages = as_messages(question)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    keys = resolve_api_keys(config, environ)
    name = member_name or config.members[0].name
    async with Transport(config.transport) as transport:
        provider = build_providers(config, transport, keys)[name]
        if as_json:
            completion = await provider.complete(messages)
            print(json.dumps(completion.model_dump(mode="json"), indent=2))
            return EXIT_OK
        label = " (simulated)" if provider.simulated else ""
        print(f"{name}{label} [{provider.name}/{config.member(name).model}]:\n", flush=True)
        async with provider.stream(messages) as stream:
            async for delta in stream:
                print(delta, end="", flush=True)
        print()
        assert stream.completion is not None
        usage = stream.completion.usage
        print(
            f"\n-- {stream.completion.latency_ms:.0f} ms, {usage.prompt_tokens} prompt + "
            f"{usage.completion_tokens} completion tokens",
            file=sys.stderr,
        )
    return EXIT_OK


def _config_check(path: str | None, environ: Mapping[str, str]) -> int:
    config = load_cli_config(path, environ)
    print(f"{config.source}: valid, {len(config.members)} members, chairman {config.chairman or '(none)'}")
    problems = 0
    for member in config.members:
        key_state = "no key needed"
        if member.api_key_env:
            key_state = f"${member.api_key_env} {'set' if environ.get(member.api_key_env, '').strip() else 'NOT SET'}"
            problems += 0 if environ.get(member.api_key_env, "").strip() else 1
        where = member.base_url or "provider default"
        print(f"  {member.name:<16} {member.provider:<10} {member.model:<36} {where}  ({key_state})")
    if problems:
        print(f"council: {problems} key variable(s) not set", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def _dispatch(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    if args.command == "ask":
        config = load_cli_config(args.config, environ)
        return asyncio.run(_ask_member(config, args.question, args.member, args.json, environ))
    if args.command == "config" and args.config_command == "check":
        return _config_check(args.file, environ)
    raise UsageError(f"unknown command {args.command!r}")


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    environ = os.environ if environ is None else environ
    args = _parser().parse_args(argv)
    try:
        return _dispatch(args, environ)
    except KeyboardInterrupt:
        print("council: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (ConfigError, UsageError) as exc:
        print(f"council: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ProviderError as exc:
        print(f"council: {exc.reason}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except CouncilError as exc:
        print(f"council: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # noqa: BLE001 - the last line of defence against a traceback
        print(f"council: internal error: {type(exc).__name__}: {exc} (please report this)", file=sys.stderr)
        if environ.get("COUNCIL_DEBUG"):
            raise
        return EXIT_FAILED


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


__all__: list[str] = ["main", "run"]

