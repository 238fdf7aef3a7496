"""What every ``council`` sub-command shares: exit codes, the usage error, reading the config, opening the runs.

Sub-command modules import from here, never from :mod:`council.cli.app`,
so the command groups do not import each other.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from council import strict_json
from council.config import (
    ENV_CONFIG,
    ENV_DB_PATH,
    ENV_DB_URL,
    CouncilConfig,
    config_path_from,
    default_db_path,
    load_config,
    simulated_config_path,
)
from council.errors import CouncilError
from council.logs import configure_logging
from council.text import visible

if TYPE_CHECKING:
    from council.pipeline import RunArchive

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_BLOCKED = 3
"""The run went through, but the safety gate blocked every answer: no answer, and not a failure of the run."""
EXIT_CLOSED_PIPE = 141
"""128 + SIGPIPE: what a shell reports for a command whose reader closed the pipe (``git log | head``)."""


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


def db_path(config_arg: str | None, environ: Mapping[str, str]) -> str | Path:
    """The database a command reads: the config's storage (``url``, else ``path``); without a config
    ``$COUNCIL_DB_URL``, else ``$COUNCIL_DB_PATH``, else the default file."""
    chosen = config_path_from(config_arg, environ)
    if chosen is not None:
        return load_config(chosen, environ).storage.location
    if environ.get(ENV_DB_URL):
        return environ[ENV_DB_URL]
    return Path(environ[ENV_DB_PATH]) if environ.get(ENV_DB_PATH) else default_db_path()


def open_runs(config_arg: str | None, environ: Mapping[str, str], *, migrate: bool = True) -> RunArchive:
    """The run database of :func:`db_path`, opened (and brought up to date, unless ``migrate`` is False)."""
    from council.pipeline import RunArchive

    return RunArchive.open(db_path(config_arg, environ), migrate=migrate)


def read_schema(path: str) -> dict[str, Any]:
    """The JSON Schema in the file ``path``, or a :class:`UsageError` naming the file and what is wrong with it."""
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--schema {path}: cannot read it ({error})") from None
    try:
        schema = strict_json.loads(text)
    except ValueError as error:
        raise UsageError(f"--schema {path}: not valid JSON: {error}") from None
    if not isinstance(schema, dict):
        raise UsageError(f"--schema {path}: a JSON Schema is an object, not a {type(schema).__name__}")
    return schema


def text_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A plain-text table: the header, a rule, then the rows, columns padded to their widest cell.

    Every cell is escaped (:func:`council.text.visible`): names often come
    from files and configs, and none may clear the screen, forge a line or
    reverse a row.
    """
    rows = [[visible(cell) for cell in row] for row in rows]
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
             for row in [header, *rows]]
    return [lines[0], "  ".join("-" * width for width in widths), *lines[1:]]
