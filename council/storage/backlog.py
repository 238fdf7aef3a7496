"""Writes waiting for a database that is down or locked: kept in order, bounded, counted, logged once.

When the database cannot be reached (PostgreSQL stopped or restarting, a
SQLite file another process holds locked), the group-commit writer
(:mod:`.group_commit`) keeps the writes it could not commit here and tries
them again every :data:`RETRY_EVERY_S`, so a run is answered without waiting
for the database and is stored once it is back. Writes stay in the order
they were queued (a run's stages land in order), and new writes queue
behind the waiting ones. Memory is bounded: past :data:`MAX_PENDING_WRITES`
the oldest writes are dropped, a whole run's at a time (a run half stored
would be unreadable), and counted. An outage is logged when it starts, when
it first drops writes, and when it ends, never once per write.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from council.errors import StorageError
from council.logs import get_logger

#: Writes kept for a database that is down (a run is about five: its four stages and its calibration update).
MAX_PENDING_WRITES = 10_000
#: How often waiting writes are tried again (each try also waits up to ``storage.critical_wait_s`` for a connection).
RETRY_EVERY_S = 0.5

_log = get_logger("storage")


class StorageUnavailableError(StorageError):
    """The database cannot be reached for now (down, restarting, locked by another process): try later."""


class Postponable(Protocol):
    """A queued write: the run it belongs to (None: alone), and whether it has been postponed before."""

    group: str | None
    postponed: bool


@dataclass(frozen=True)
class BacklogFigures:
    """What ``/metrics`` shows of the writer: writes waiting now; written late, dropped so far (this process)."""

    pending: int = 0
    retried: int = 0
    dropped: int = 0


class Backlog:
    """The writes waiting for the database, oldest first (touched by the writer thread only)."""

    def __init__(self, where: str, capacity: int = MAX_PENDING_WRITES) -> None:
        self.where = where
        self.capacity = capacity
        self.jobs: collections.deque[Any] = collections.deque()
        self.retried = 0
        self.dropped = 0
        self.next_try = 0.0
        self._outage_started = 0.0
        self._outage_retried = 0
        self._outage_dropped = 0

    def __len__(self) -> int:
        return len(self.jobs)

    def figures(self) -> BacklogFigures:
        """The counts as they stand (read from any thread: a deque's length is read atomically)."""
        return BacklogFigures(len(self.jobs), self.retried, self.dropped)

    def keep(self, jobs: Iterable[Postponable], cause: str) -> list[Any]:
        """Add ``jobs`` at the end, in order; the jobs dropped to make room (oldest runs first)."""
        starting = not self.jobs
        for job in jobs:
            job.postponed = True
            self.jobs.append(job)
        if starting and self.jobs:
            self._outage_started, self._outage_retried, self._outage_dropped = time.monotonic(), 0, 0
            self.next_try = self._outage_started + RETRY_EVERY_S  # later writes join the wait, not delay the try
            _log.warning("storage_unavailable", database=self.where, cause=cause,
                         note=f"writes are kept and retried every {RETRY_EVERY_S:g} s "
                              f"(at most {self.capacity}, oldest dropped first)")
        return self._make_room()

    def _make_room(self) -> list[Any]:
        dropped: list[Any] = []
        while len(self.jobs) > self.capacity:
            oldest = self.jobs.popleft()
            dropped.append(oldest)
            if oldest.group is not None:  # the rest of that run goes too
                same = [job for job in self.jobs if job.group == oldest.group]
                dropped.extend(same)
                self.jobs = collections.deque(job for job in self.jobs if job.group != oldest.group)
        if dropped:
            if not self._outage_dropped:
                _log.error("storage_writes_dropped", database=self.where, dropped=len(dropped),
                           note=f"more than {self.capacity} writes waiting: the oldest runs are not stored")
            self.dropped += len(dropped)
            self._outage_dropped += len(dropped)
        return dropped

    def due(self) -> bool:
        """Whether it is time to try the waiting writes again."""
        return bool(self.jobs) and time.monotonic() >= self.next_try

    def wait_s(self) -> float | None:
        """How long the writer may sleep before the next try (None: nothing is waiting)."""
        return max(0.0, self.next_try - time.monotonic()) if self.jobs else None

    def head(self, count: int) -> list[Any]:
        """The oldest ``count`` waiting writes (left in place until settled)."""
        return [job for _, job in zip(range(count), self.jobs, strict=False)]

    def settled(self, jobs: Iterable[Any], *, stored: int, failed_again: bool) -> None:
        """Take out ``jobs`` (written, or failed for good); ``stored`` of them were written late."""
        gone = {id(job) for job in jobs}
        if gone:
            self.jobs = collections.deque(job for job in self.jobs if id(job) not in gone)
        self.retried += stored
        self._outage_retried += stored
        self.next_try = time.monotonic() + (RETRY_EVERY_S if failed_again else 0.0)
        if not self.jobs and (stored or gone):
            _log.warning("storage_recovered", database=self.where,
                         outage_s=round(time.monotonic() - self._outage_started, 1),
                         stored_late=self._outage_retried, dropped=self._outage_dropped)

    def abandon(self) -> list[Any]:
        """Give up every waiting write (the writer is closing and the database is still away); what was given up."""
        lost = list(self.jobs)
        self.jobs.clear()
        if lost:
            _log.error("storage_writes_lost", database=self.where, lost=len(lost),
                       note="the database was unavailable when the writer closed")
            self.dropped += len(lost)
        return lost
