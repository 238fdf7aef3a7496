"""Real database outages for tests: a private PostgreSQL server to stop and start, a SQLite file another
process holds locked."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from council.testing.postgres import PostgresServer, require_pg_bindir
from council.testing.sqlite_lock import sqlite_locked_elsewhere

__all__ = ["private_postgres", "sqlite_locked_elsewhere"]


@pytest.fixture
def private_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test's own, which the test may stop (``halt``) and start (``resume``)."""
    with PostgresServer(bindir=require_pg_bindir()) as server:
        yield server
