"""One base for every set of tables Council keeps in its SQLite file.

The run store, the conversations and the evaluation records each open their
own connection to the same database file (``storage.path``); this is the one
place that opens it, sets the pragmas they all rely on, creates the tables
and turns sqlite errors into each store's own :class:`CouncilError`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar, TypeVar

from council.errors import StorageError

T = TypeVar("T")


class SQLiteTables:
    """A connection to the council database holding one group of tables."""

    schema: ClassVar[str]
    error: ClassVar[type[StorageError]]
    what: ClassVar[str] = "the database"

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            if self.path != ":memory:":
                Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            # Several connections write the same file: wait for each other rather than fail.
            self._db.execute("PRAGMA busy_timeout=5000")
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
            self._prepare()
            self._db.executescript(self.schema)
        except (sqlite3.Error, OSError) as exc:
            raise self.error(f"cannot open {self.what} in {self.path}: {exc}") from None

    def _prepare(self) -> None:
        """Checks before the tables are created (a schema version, say); nothing by default."""

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def _guard(self, action: str, work: Callable[[], T]) -> T:
        try:
            return work()
        except sqlite3.Error as exc:
            error = self.error(f"{action} failed in {self.path}: {exc}")
            # The cause without the path, for messages that leave the machine (an HTTP client's error).
            error.cause = f"{action} failed: {exc}"
            raise error from None
