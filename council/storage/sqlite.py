"""The embedded backend: one SQLite file (or a private in-memory database), no setup.

One connection per :class:`SQLiteDatabase`, guarded by a lock, with one
worker thread for callers on an event loop: SQLite has a single writer
anyway, and one thread keeps a slow disk off the loop without more
connections fighting over the write lock. The group-commit writer has a
connection of its own (a file's, not a private in-memory database's):
while another process holds the write lock, the writer waits for it up to
the busy timeout again and again, and readers, who need no lock in WAL
mode, must not wait behind it. Several processes (a CLI beside a server)
share the file through WAL and a busy timeout.

The writer first asks for the lock with a short busy timeout
(:data:`LOCK_PROBE_S`) and then waits out the rest: while it waits, the
database says so (:attr:`SQLiteDatabase.writer_blocked`), and a cache hit,
whose whole point is speed, answers without waiting for its row (SQLite
tells a lock held elsewhere only by waiting for it, so a hit would
otherwise wait out the busy timeout to learn it).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from council.errors import StorageError
from council.storage.database import DEFAULT_CRITICAL_WAIT_S, Database, Row
from council.storage.group_commit import Transactional

T = TypeVar("T")
PAGE_SIZE = 16384
#: How long the writer waits for the write lock before saying another connection holds it (then it waits on).
LOCK_PROBE_S = 0.05


def _locked(error: BaseException) -> bool:
    """Whether ``error`` is SQLite's "another connection holds the lock" (it lets go in time; a full disk does not)."""
    return isinstance(error, sqlite3.OperationalError) and ("locked" in str(error) or "busy" in str(error))


class _SQLiteSession:
    """The :class:`~council.storage.database.Session` of a SQLite connection."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        return self._connection.execute(sql, args).rowcount

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self._connection.executemany(sql, rows)

    def fetchall(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        return self._connection.execute(sql, args).fetchall()

    def fetchone(self, sql: str, args: Sequence[Any] = ()) -> Row | None:
        row: Row | None = self._connection.execute(sql, args).fetchone()
        return row


class _Connection:
    """One connection to the file, lent to one thread at a time."""

    def __init__(self, path: str, critical_wait_s: float, lock_probe_s: float | None = None) -> None:
        self.lock = threading.RLock()
        self.connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        # Several connections write the same file: wait for each other rather than fail, but no longer
        # than a run may wait; a write still locked out then is retried in the background.
        self._busy_timeout_ms = round(critical_wait_s * 1000)
        self._probe_ms = min(round(lock_probe_s * 1000), self._busy_timeout_ms) if lock_probe_s else None
        #: time.monotonic() since when this connection has waited for a lock another connection holds (None: not).
        self.blocked_since: float | None = None
        self.connection.execute(f"PRAGMA busy_timeout={self._probe_ms or self._busy_timeout_ms}")
        # A new file gets 16 KB pages: stage rows of 1-3 KB pack into them with little left over
        # (4 KB pages held about one such row each). No effect on a file that already exists.
        self.connection.execute(f"PRAGMA page_size={PAGE_SIZE}")
        if path != ":memory:":
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.execute("PRAGMA synchronous=NORMAL")
        self.session = _SQLiteSession(self.connection)

    def run(self, work: Callable[[_SQLiteSession], T]) -> T:
        with self.lock:
            return work(self.session)

    def transaction(self, work: Callable[[_SQLiteSession], T]) -> T:
        with self.lock:
            self._begin()
            try:
                outcome = work(self.session)
            except BaseException:
                # Some errors (a full disk) end the transaction themselves; rolling back again would hide them.
                if self.connection.in_transaction:
                    self.connection.execute("ROLLBACK")
                raise
            self.connection.execute("COMMIT")
            return outcome

    def _begin(self) -> None:
        # IMMEDIATE takes the write lock up front: a read-then-write never races another writer.
        try:
            self.connection.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if self._probe_ms is None or not _locked(exc):
                raise
        # Held elsewhere past the probe: say so (a cache hit need not wait for its row), then wait out the rest.
        self.blocked_since = time.monotonic()
        self.connection.execute(f"PRAGMA busy_timeout={self._busy_timeout_ms - self._probe_ms}")
        try:
            self.connection.execute("BEGIN IMMEDIATE")
        finally:
            self.connection.execute(f"PRAGMA busy_timeout={self._probe_ms}")
            self.blocked_since = None

    def close(self) -> None:
        with self.lock:
            self.connection.close()


class SQLiteDatabase(Database):
    """A SQLite file; ``":memory:"`` gives a private in-memory database."""

    backend = "sqlite"
    driver_errors: ClassVar[tuple[type[BaseException], ...]] = (sqlite3.Error,)

    def __init__(self, path: str, critical_wait_s: float = DEFAULT_CRITICAL_WAIT_S) -> None:
        super().__init__(path, workers=1, critical_wait_s=critical_wait_s)
        self.path = path
        self._writer: _Connection | None = None
        try:
            if path != ":memory:":
                Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            self._main = _Connection(path, critical_wait_s)
        except (sqlite3.Error, OSError) as exc:
            raise StorageError(f"cannot open the database {path}: {exc}") from None

    def run(self, work: Callable[[_SQLiteSession], T]) -> T:
        return self._main.run(work)

    def transaction(self, work: Callable[[_SQLiteSession], T]) -> T:
        return self._main.transaction(work)

    def writer_connection(self) -> Transactional:
        if self.path == ":memory:":
            return self._main  # a private in-memory database has one connection: no other can see it
        if self._writer is None:
            try:
                self._writer = _Connection(self.path, self.critical_wait_s, lock_probe_s=LOCK_PROBE_S)
            except (sqlite3.Error, OSError) as exc:
                raise StorageError(f"cannot open the database {self.path}: {exc}") from None
        return self._writer

    def unavailable(self, error: BaseException) -> bool:
        # Another connection (often another process) holds the write lock: it will let go. A full disk or a
        # read-only file will not, and fails at once.
        return _locked(error)

    @property
    def writer_blocked(self) -> bool:
        writer = self._writer
        return writer is not None and writer.blocked_since is not None

    def table_names(self) -> list[str]:
        rows = self.fetchall("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                             "ORDER BY name")
        return [str(row[0]) for row in rows]

    def integrity_check(self) -> str:
        rows = self.fetchall("PRAGMA integrity_check")
        return "; ".join(str(row[0]) for row in rows)

    def user_version(self) -> int:
        """``PRAGMA user_version``: where releases before the schema table kept their schema version."""
        row = self.fetchone("PRAGMA user_version")
        return int(row[0]) if row else 0

    def close(self) -> None:
        super().close()  # the writer first: it commits what is queued
        if self._writer is not None:
            self._writer.close()
        self._main.close()
