"""The shared backend: a PostgreSQL database, for several ``council serve`` replicas at once.

psycopg 3 with its connection pool. The pool's connections are used from
the database's worker threads (as many threads as connections), which is
what lets one store serve the event loop (awaited through
:meth:`~council.storage.database.Database.call`), the command line and the
tests alike, whichever event loop, if any, they run on.

Statements arrive with SQLite's ``?`` placeholders and are translated once
per distinct text. Row locks (``FOR UPDATE``) make read-then-write
updates safe across replicas.

Outages: a caller waits for a pooled connection at most
``storage.critical_wait_s``; each connection is checked as it is lent, and
one found dead (PostgreSQL restarted) has every idle one checked at once,
so the first call after a restart gets a live connection instead of an
error; the pool's attempts to reconnect give up and start afresh within
that bound too, so a database that is back is used at once rather than
after a backoff grown through the outage.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, TypeVar

import psycopg
import psycopg_pool

from council.errors import StorageError
from council.storage.database import DEFAULT_CRITICAL_WAIT_S, Database, Row, redact_url

T = TypeVar("T")
CONNECT_TIMEOUT_S = 10.0
# SQLSTATE classes that mean "not now" rather than "never": connection exceptions, the server shutting
# down or starting, too many connections, serialization failures and deadlocks.
_TRANSIENT_STATES = ("08", "57P", "53300", "40001", "40P01")

# The pool logs a warning for every failed reconnection attempt and every broken connection it drops:
# during an outage that is a line every second. The store logs an outage once (council.storage.backlog).
if logging.getLogger("psycopg.pool").level == logging.NOTSET:
    logging.getLogger("psycopg.pool").setLevel(logging.ERROR)


@functools.lru_cache(maxsize=512)
def to_pyformat(sql: str) -> str:
    """SQLite's ``?`` placeholders as psycopg's ``%s`` (a literal ``%`` doubled)."""
    return sql.replace("%", "%%").replace("?", "%s")


class _PostgresSession:
    """The :class:`~council.storage.database.Session` of a pooled psycopg connection."""

    def __init__(self, connection: psycopg.Connection[Row]) -> None:
        self._connection = connection

    def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        return self._connection.execute(to_pyformat(sql), args).rowcount

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self._connection.cursor() as cursor:
            cursor.executemany(to_pyformat(sql), rows)

    def fetchall(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        return self._connection.execute(to_pyformat(sql), args).fetchall()

    def fetchone(self, sql: str, args: Sequence[Any] = ()) -> Row | None:
        return self._connection.execute(to_pyformat(sql), args).fetchone()


class PostgresDatabase(Database):
    """A PostgreSQL database reached through a pool of ``pool_size`` connections."""

    backend = "postgresql"
    row_locks = True
    driver_errors: ClassVar[tuple[type[BaseException], ...]] = (psycopg.Error, psycopg_pool.PoolTimeout)

    def __init__(self, url: str, pool_size: int, critical_wait_s: float = DEFAULT_CRITICAL_WAIT_S) -> None:
        super().__init__(redact_url(url), workers=pool_size, critical_wait_s=critical_wait_s)
        self.pool_size = pool_size
        # The pool logs connection attempts itself; our own error below says what failed, once.
        self._pool: psycopg_pool.ConnectionPool[psycopg.Connection[Row]] = psycopg_pool.ConnectionPool(
            url, min_size=1, max_size=pool_size, kwargs={"autocommit": True}, open=False,
            timeout=critical_wait_s, check=self._check, reconnect_timeout=max(critical_wait_s, 1.0),
            name="council")
        try:
            self._pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            self._pool.close()
            raise StorageError(f"cannot connect to PostgreSQL at {self.location}: {_first_line(exc)}") from None

    def _check(self, connection: psycopg.Connection[Row]) -> None:
        try:
            psycopg_pool.ConnectionPool.check_connection(connection)
        except Exception:
            # One dead connection means PostgreSQL went away: its idle siblings are dead too. Drop them all
            # now, or the pool would hand them out one by one, sleeping a growing backoff between them.
            self._pool.check()
            raise

    def unavailable(self, error: BaseException) -> bool:
        if isinstance(error, psycopg_pool.PoolTimeout):
            return True
        if not isinstance(error, psycopg.OperationalError):
            return False
        state = error.sqlstate
        return state is None or state.startswith(_TRANSIENT_STATES)

    def run(self, work: Callable[[_PostgresSession], T]) -> T:
        with self._pool.connection() as connection:
            return work(_PostgresSession(connection))

    def transaction(self, work: Callable[[_PostgresSession], T]) -> T:
        with self._pool.connection() as connection, connection.transaction():
            return work(_PostgresSession(connection))

    def table_names(self) -> list[str]:
        rows = self.fetchall("SELECT table_name FROM information_schema.tables "
                             "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name")
        return [str(row[0]) for row in rows]

    def integrity_check(self) -> None:
        return None  # PostgreSQL checks its pages itself (and amcheck needs an extension): nothing to run here

    def server_version(self) -> str:
        """The server's version, as ``SHOW server_version`` prints it."""
        row = self.fetchone("SHOW server_version")
        return str(row[0]) if row else "unknown"

    def close(self) -> None:
        super().close()
        self._pool.close()


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]
