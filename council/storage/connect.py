"""Opening the database a location names: a SQLite path, or a PostgreSQL URL; migrated on the way in.

The one module that knows both backends, so that neither they nor the
interface they share (:mod:`.database`) import each other.
"""

from __future__ import annotations

from pathlib import Path

from council.storage.database import DEFAULT_CRITICAL_WAIT_S, DEFAULT_POOL_SIZE, Database
from council.storage.schema import upgrade
from council.storage.sqlite import SQLiteDatabase


def is_postgres_url(location: str | Path) -> bool:
    """True for ``postgresql://`` and ``postgres://`` URLs; anything else is a SQLite path."""
    return isinstance(location, str) and location.startswith(("postgresql://", "postgres://"))


def open_database(location: str | Path, *, pool_size: int = DEFAULT_POOL_SIZE, migrate: bool = True,
                  critical_wait_s: float = DEFAULT_CRITICAL_WAIT_S) -> Database:
    """Open a SQLite file (a path, or ``":memory:"``) or a PostgreSQL database (a URL).

    With ``migrate`` (the default) the schema is brought up to date first;
    a database newer than this Council is refused. Raises
    :class:`~council.errors.StorageError` naming the database on failure.
    ``critical_wait_s`` bounds each wait for a connection or a lock
    (``storage.critical_wait_s``).
    """
    database: Database
    if is_postgres_url(location):
        from council.storage.postgres import PostgresDatabase  # psycopg is imported only by those who use it

        database = PostgresDatabase(str(location), pool_size, critical_wait_s)
    else:
        database = SQLiteDatabase(str(location), critical_wait_s)
    if migrate:
        try:
            upgrade(database)
        except BaseException:
            database.close()
            raise
    return database
