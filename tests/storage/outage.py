"""Real database outages for tests: a private PostgreSQL server to stop and start, a SQLite file another
process holds locked."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from council.testing.postgres import PostgresServer, require_pg_bindir
from tests.waiting import PROCESS_S

# The other process: opens the file, takes SQLite's exclusive lock, says so, and holds it until stdin closes.
_HOLDER = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
connection.execute("ROLLBACK")
"""


@pytest.fixture
def private_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test's own, which the test may stop (``halt``) and start (``resume``)."""
    with PostgresServer(bindir=require_pg_bindir()) as server:
        yield server


@contextlib.contextmanager
def sqlite_locked_elsewhere(path: Path | str) -> Iterator[subprocess.Popen[str]]:
    """Another process holding ``BEGIN EXCLUSIVE`` on the SQLite file at ``path`` until the block ends."""
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield holder
    finally:
        if holder.stdin is not None:
            holder.stdin.close()
        holder.wait(timeout=PROCESS_S)
        if holder.stdout is not None:
            holder.stdout.close()

