"""The base every store shares: its database, its error type, and calls awaited off the event loop.

A store is a group of tables (runs, conversations, evaluations) with
methods that mean something. It opens its database from a location (a
SQLite path or a PostgreSQL URL) or shares one already open, and turns
driver errors into its own :class:`~council.errors.StorageError` naming
what it was doing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from council.errors import StorageError
from council.storage.backlog import StorageUnavailableError
from council.storage.connect import open_database
from council.storage.database import DEFAULT_CRITICAL_WAIT_S, DEFAULT_POOL_SIZE, Database, Session

T = TypeVar("T")


class Tables:
    """A store's tables in one database (opened here, or shared with the store that opened it)."""

    error: ClassVar[type[StorageError]] = StorageError
    what: ClassVar[str] = "the database"

    def __init__(self, location: str | Path | Database, *, pool_size: int = DEFAULT_POOL_SIZE,
                 migrate: bool = True, critical_wait_s: float = DEFAULT_CRITICAL_WAIT_S) -> None:
        if isinstance(location, Database):
            self.db, self._owns_db = location, False
            return
        try:
            self.db = open_database(location, pool_size=pool_size, migrate=migrate, critical_wait_s=critical_wait_s)
        except StorageError as exc:
            raise self.error(f"cannot open {self.what}: {exc}") from None
        self._owns_db = True

    @property
    def path(self) -> str:
        """Where the database is: a file path, or a PostgreSQL URL without its password."""
        return self.db.location

    @property
    def backend(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.db.backend

    def close(self) -> None:
        """Close the database, if this store opened it."""
        if self._owns_db:
            self.db.close()

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` (one of this store's methods) on the database's worker threads, awaited."""
        return await self.db.call(fn, *args, **kwargs)

    def _queue(self, action: str, work: Any, *, combine: Callable[[Session, list[Any]], list[T]] | None = None,
               soon: bool = True, locks_rows: bool = False, durable: bool = False,
               group: str | None = None) -> asyncio.Future[T]:
        """Queue ``work`` to the database's group-commit writer; a future that raises this store's error.

        ``work``, ``combine``, ``soon``, ``durable`` and ``group`` are
        :meth:`GroupCommitter.submit`'s; work that ``locks_rows`` is committed
        on its own where the backend locks rows.
        """
        def translate(exc: BaseException) -> BaseException:
            return self._storage_error(action, exc) if isinstance(exc, self.db.driver_errors) else exc

        return self.db.committer.submit(work, combine=combine, soon=soon, alone=locks_rows and self.db.row_locks,
                                        translate=translate, durable=durable, group=group)

    def _guard(self, action: str, work: Callable[[], T]) -> T:
        try:
            outcome = work()
        except self.db.driver_errors as exc:
            if self.db.unavailable(exc):
                self.db.note_unreachable()  # runs stop waiting for it until a call succeeds again
            raise self._storage_error(action, exc) from None
        self.db.note_answered()
        return outcome

    def _storage_error(self, action: str, exc: BaseException) -> StorageError:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        message = f"{action} failed in {self.path}: {detail}"
        # Stores with an error class of their own keep it (their callers catch it); the run store says more.
        unavailable = self.db.unavailable(exc) and issubclass(StorageUnavailableError, self.error)
        error = StorageUnavailableError(message) if unavailable else self.error(message)
        # The cause without the location, for messages that leave the machine (an HTTP client's error).
        error.cause = f"{action} failed: {detail}"
        return error
