"""``council db check``, ``council db upgrade`` and ``council runs prune``: looking after the database."""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from council.cli.common import EXIT_FAILED, EXIT_OK, UsageError, open_runs
from council.pipeline import SCHEMA_VERSION

_AGE = re.compile(r"^\s*(\d+)\s*([mhdw])\s*$")
_UNIT = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def add_db_commands(commands: Any) -> None:
    """Add ``db`` and its actions to the top-level subparsers."""
    db = commands.add_parser("db", help="inspect the run database")
    actions = db.add_subparsers(dest="db_command", metavar="ACTION")
    actions.required = True
    check = actions.add_parser("check", help="backend, schema version, row counts and an integrity check")
    check.add_argument("--config", help="council config file (for the database path or URL)")
    migrate = actions.add_parser("upgrade", help="apply the schema migrations the database lacks")
    migrate.add_argument("--config", help="council config file (for the database path or URL)")


def age(text: str, flag: str = "--older-than") -> timedelta:
    """``30d``, ``12h``, ``90m`` or ``2w`` as a duration; UsageError (naming ``flag``) otherwise."""
    match = _AGE.match(text)
    if match is None or int(match.group(1)) == 0:
        raise UsageError(f"{flag} {text!r}: give a positive age like 30d, 12h, 90m or 2w")
    return timedelta(**{_UNIT[match.group(2)]: int(match.group(1))})


def run_db_command(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """``council db check`` (exit 1 when a check finds a problem) or ``council db upgrade``."""
    # Neither migrates on opening: check reports what is pending, upgrade says what it applied.
    with open_runs(args.config, environ, migrate=False) as runs:
        if args.db_command == "upgrade":
            applied = runs.upgrade()
            for migration in applied:
                print(f"applied migration {migration.version}: {migration.description}")
            print(f"schema version: {runs.schema_version()} ({'upgraded' if applied else 'already up to date'})")
            return EXIT_OK
        pending = runs.pending_migrations()
        print(f"backend: {runs.backend} ({runs.path})")
        print(f"schema version: {runs.schema_version()} (this Council writes {SCHEMA_VERSION})")
        if pending:
            print(f"pending migrations: {', '.join(str(m.version) for m in pending)} "
                  "(applied when Council next opens the database, or now with `council db upgrade`)")
            return EXIT_OK
        for table, rows in runs.table_counts().items():
            print(f"  {table:<24} {rows:>8} rows")
        integrity = runs.integrity_check()
        print(f"integrity check: {integrity if integrity is not None else f'none for {runs.backend}'}")
    return EXIT_OK if integrity in ("ok", None) else EXIT_FAILED


def prune_runs(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """``council runs prune --older-than AGE``: delete old finished runs, keep calibration history."""
    if args.older_than is None:
        raise UsageError("runs prune needs --older-than AGE (for example 30d)")
    older_than = age(args.older_than)
    with open_runs(args.config, environ) as runs:
        deleted = runs.prune(older_than)
    print(f"pruned {deleted} run(s) older than {args.older_than.strip()}; reviewer calibration history is kept")
    return EXIT_OK
