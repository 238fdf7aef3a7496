"""The one door to the database: SQLite or PostgreSQL behind the same small interface.

Every store (runs, conversations, evaluations) speaks SQL with ``?``
placeholders through a :class:`Session`; each backend translates what
differs (placeholders, DDL types, row locks) and maps its driver's errors.
The calls themselves are blocking; :meth:`Database.call` runs them on the
database's own worker threads, so code on the event loop awaits them and
never waits on a disk or a socket. SQLite gets one worker thread (its one
writer); PostgreSQL as many as its connection pool has connections. Writes
a run makes as it goes are queued to :attr:`Database.committer`, which
commits them in batches (:mod:`.group_commit`).

Knows nothing of runs, rubrics or conversations: the tables are
:mod:`council.storage.schema`'s, their meaning the stores'.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar, Protocol, TypeVar
from urllib.parse import urlsplit, urlunsplit

from council.storage.backlog import BacklogFigures
from council.storage.group_commit import GroupCommitter, Transactional

T = TypeVar("T")
Row = tuple[Any, ...]
DEFAULT_POOL_SIZE = 10
#: ``storage.critical_wait_s``'s default: the longest a connection, a lock or a run waits for the database.
DEFAULT_CRITICAL_WAIT_S = 2.0


class Session(Protocol):
    """One connection, lent to a unit of work. SQL uses ``?`` placeholders on every backend."""

    def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement for each row of arguments."""

    def fetchall(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        """Every row a query returns."""

    def fetchone(self, sql: str, args: Sequence[Any] = ()) -> Row | None:
        """The first row a query returns, or None."""


class Database(ABC):
    """A SQLite file or a PostgreSQL database, with worker threads for callers on an event loop."""

    backend: ClassVar[str]
    #: Exceptions of the driver that mean "the database failed" (turned into StorageError by the stores).
    driver_errors: ClassVar[tuple[type[BaseException], ...]]

    #: Whether transactions lock rows (PostgreSQL's FOR UPDATE) rather than the whole database (SQLite).
    row_locks: ClassVar[bool] = False

    def __init__(self, location: str, workers: int, critical_wait_s: float = DEFAULT_CRITICAL_WAIT_S) -> None:
        self.location = location  # safe to print: no password
        self.critical_wait_s = critical_wait_s
        self._workers = workers
        self._executor: ThreadPoolExecutor | None = None
        self._executor_lock = threading.Lock()
        self.schema_checked = False
        self._committer: GroupCommitter | None = None
        # When a call last failed because the database could not be reached, and when one last succeeded
        # (time.monotonic(); 0: never). Set from any thread: a float is assigned atomically.
        self._unreachable_at = 0.0
        self._answered_at = 0.0

    @abstractmethod
    def run(self, work: Callable[[Session], T]) -> T:
        """Run ``work`` on a connection, each statement committed as it goes."""

    @abstractmethod
    def transaction(self, work: Callable[[Session], T]) -> T:
        """Run ``work`` in one transaction: all of it is committed, or none if it raises."""

    @abstractmethod
    def table_names(self) -> list[str]:
        """The tables in the database, sorted."""

    @abstractmethod
    def integrity_check(self) -> str | None:
        """The backend's own consistency check (``ok`` or its findings); None where there is none."""

    @abstractmethod
    def unavailable(self, error: BaseException) -> bool:
        """Whether ``error`` says the database cannot be reached for now (down, restarting, locked elsewhere).

        Writes failing so are kept and retried in the background
        (:mod:`.backlog`) rather than failed; other errors (a full disk, a
        bad statement) fail at once.
        """

    @property
    def writes_waiting(self) -> bool:
        """Whether writes are waiting for the database now (it is down or locked): a caller need not wait."""
        return self.write_backlog().pending > 0

    @property
    def known_unavailable(self) -> bool:
        """Whether the database is known to be away now, so that a caller need not wait for it.

        Writes are waiting for it (:attr:`writes_waiting`), or a call
        failed because it could not be reached (:meth:`note_unreachable`)
        and none has succeeded since, here or on the writer thread.
        """
        if self.writes_waiting:
            return True
        failed = self._unreachable_at
        if not failed:
            return False
        committer = self._committer
        return failed > max(self._answered_at, committer.landed_at if committer is not None else 0.0)

    @property
    def writer_blocked(self) -> bool:
        """Whether the writer is waiting now for a lock another connection holds (SQLite; never PostgreSQL).

        Not an outage (the lock is let go in time, and reads go on): a
        caller to whom speed matters more than seeing its write land (a
        cache hit) need not wait.
        """
        return False

    def note_unreachable(self) -> None:
        """A call failed because the database could not be reached (or did not answer within the bound)."""
        self._unreachable_at = time.monotonic()

    def note_answered(self) -> None:
        """A call succeeded: the database answers."""
        self._answered_at = time.monotonic()

    def write_backlog(self) -> BacklogFigures:
        """Writes waiting for the database now, and those written late or dropped so far (zeros before any)."""
        committer = self._committer
        return committer.backlog() if committer is not None else BacklogFigures()

    def close(self) -> None:
        """Close the connections and stop the worker threads (waiting for calls in progress)."""
        with self._executor_lock:
            executor, self._executor = self._executor, None
            committer, self._committer = self._committer, None
        if committer is not None:
            committer.close()
        if executor is not None:
            executor.shutdown(wait=True)

    def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        """One statement, committed; the number of rows it changed."""
        return self.run(lambda session: session.execute(sql, args))

    def fetchall(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        """Every row of one query."""
        return self.run(lambda session: session.fetchall(sql, args))

    def fetchone(self, sql: str, args: Sequence[Any] = ()) -> Row | None:
        """The first row of one query, or None."""
        return self.run(lambda session: session.fetchone(sql, args))

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on the database's worker threads, awaited: the event loop never blocks on it."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor_for_calls(), functools.partial(fn, *args, **kwargs))

    def writer_connection(self) -> Transactional:
        """What the group-commit writer commits through: the database, unless a backend gives it a connection
        of its own (SQLite's: see :mod:`.sqlite`)."""
        return self

    @property
    def committer(self) -> GroupCommitter:
        """The writer thread that commits work queued from event loops in batches (started on first use)."""
        committer = self._committer
        if committer is None:
            with self._executor_lock:
                if self._committer is None:
                    self._committer = GroupCommitter(self.writer_connection(), name=f"council-{self.backend}-writer",
                                                     unavailable=self.unavailable, where=self.location)
                committer = self._committer
        return committer

    def _executor_for_calls(self) -> ThreadPoolExecutor:
        executor = self._executor
        if executor is None:
            with self._executor_lock:
                if self._executor is None:
                    self._executor = ThreadPoolExecutor(self._workers, thread_name_prefix=f"council-{self.backend}")
                executor = self._executor
        return executor


def redact_url(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``: fit for logs and error messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit((parts.scheme, f"{user}:***@{host}{port}", parts.path, parts.query, parts.fragment))
