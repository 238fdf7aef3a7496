"""Group commit: one writer thread that commits the writes queued since its last commit together.

Runs on an event loop write often and need to wait for few of their
writes: a run queues its stage rows and its calibration update and goes
on. What costs is not the SQL but each hand-over between the event
loop's thread and the writer's (a wake-up, and the interpreter lock
passed back and forth for every statement), so writes are handed over in
batches and written in few statements:

- on the loop, jobs queued in one turn of the loop go to the writer
  together; a job nobody waits for yet (``soon=False``, a run's early
  stages, a read made ahead of need) waits up to :data:`WRITE_BEHIND_S` to
  go along with the next one, unless someone comes to wait for it
  (:meth:`GroupCommitter.hurry`);
- the writer runs everything handed over since its last commit in one
  transaction, item kinds that know how (``combine``) in one statement
  each, and settles the callers' futures with one wake-up of each loop.

If a batch fails, its jobs are run again one transaction each, so one bad
write fails alone. Work that takes row locks (``alone=True``) is always
committed on its own: two replicas batching different lock sets could
otherwise take them in opposite orders and deadlock.

Batched jobs are committed in the order they were queued, so a run's
stage rows land in order without the run waiting for each.

When the database is unavailable (``unavailable(error)`` says which errors
mean that: a refused connection, a pool timeout, a lock another process
holds), writes queued as ``durable`` are not failed but kept in a bounded
:class:`~council.storage.backlog.Backlog` and tried again until they land;
reads queued while writes wait fail at once (:class:`StorageUnavailableError`),
so whoever waits for them goes on without.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import queue
import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from council.errors import StorageError
from council.storage.backlog import MAX_PENDING_WRITES, Backlog, BacklogFigures, StorageUnavailableError

T = TypeVar("T")
MAX_BATCH = 256  # writes per transaction: enough to amortize a commit, short enough to keep locks brief
#: How long a write nobody waits for may wait on the loop for company (the most a crash can lose of a run).
WRITE_BEHIND_S = 0.05


class Transactional(Protocol):
    """What the writer commits through: a database's ``transaction`` (all of ``work``, or none of it)."""

    def transaction(self, work: Callable[[Any], T]) -> T:
        """Run ``work`` with a session in one transaction."""


@dataclass
class _Job(Generic[T]):
    work: Any  # a function of a session, or an item for ``combine``
    combine: Callable[[Any, list[Any]], list[T]] | None
    future: asyncio.Future[T]
    loop: asyncio.AbstractEventLoop
    alone: bool
    translate: Callable[[BaseException], BaseException]
    durable: bool = False  # kept and retried while the database is unavailable (a write, not a read)
    group: str | None = None  # the run it belongs to: a full backlog drops a run's writes together
    postponed: bool = False  # waited in the backlog at least once


@dataclass
class _Waiting:
    """Jobs queued on one event loop and not handed to the writer yet."""

    jobs: list[_Job[Any]]
    handover: asyncio.Handle | asyncio.TimerHandle | None = None
    soon: bool = False


_STOP = object()
_Outcome = tuple[_Job[Any], Any, BaseException | None]


class GroupCommitter:
    """Commits work queued from event loops, in batches, on one thread of its own."""

    def __init__(self, db: Transactional, name: str, *,
                 unavailable: Callable[[BaseException], bool] = lambda error: False,
                 max_pending: int = MAX_PENDING_WRITES, where: str = "the database") -> None:
        self._db = db
        self._unavailable = unavailable
        self._backlog = Backlog(where, max_pending)
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        # Each loop's entry is touched by that loop's thread only (and by close, at the end).
        self._waiting: dict[asyncio.AbstractEventLoop, _Waiting] = {}
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()
        self.commits = 0  # transactions committed or tried (benchmarks and tests read it)
        self.landed_at = 0.0  # time.monotonic() of the last transaction committed (0: none yet)

    def submit(self, work: Any, *, combine: Callable[[Any, list[Any]], list[T]] | None = None,
               soon: bool = True, alone: bool = False,
               translate: Callable[[BaseException], BaseException] = lambda exc: exc,
               durable: bool = False, group: str | None = None) -> asyncio.Future[T]:
        """Queue ``work`` for the writer; a future (on the running loop) for what it returns or raises.

        ``work`` is a function of a session; or, with ``combine``, an item
        that ``combine(session, items)`` writes together with the other
        items of the batch in few statements (returning one result per
        item). ``soon=False`` lets the write wait up to
        :data:`WRITE_BEHIND_S` for company. ``translate`` turns an exception
        raised into the one the caller should see (a driver error into a
        StorageError). A ``durable`` write outlives an outage: while the
        database is unavailable it waits in the backlog (its future with
        it) and lands when the database is back, unless the backlog
        overflows and drops its ``group`` (its run) first.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        if not durable and (waiting_writes := len(self._backlog)):
            # The database is down: a read would wait for the writer, itself waiting on the database.
            future.set_exception(_unavailable(waiting_writes))
            return future
        waiting = self._waiting.get(loop)
        if waiting is None:
            waiting = self._waiting[loop] = _Waiting([])
        waiting.jobs.append(_Job(work, combine, future, loop, alone, translate, durable, group))
        if soon:
            self._hand_over_soon(loop, waiting)
        elif waiting.handover is None:
            waiting.handover = loop.call_later(WRITE_BEHIND_S, self._hand_over, loop)
        return future

    def hurry(self, future: asyncio.Future[Any]) -> None:
        """Hand the jobs waiting on ``future``'s loop to the writer now: someone awaits ``future``.

        Nothing happens when ``future`` is done or its job has been handed over already.
        """
        loop = future.get_loop()
        waiting = self._waiting.get(loop)
        if waiting is not None and any(job.future is future for job in waiting.jobs):
            self._hand_over_soon(loop, waiting)

    def _hand_over_soon(self, loop: asyncio.AbstractEventLoop, waiting: _Waiting) -> None:
        # On the loop's next turn, so the jobs queued in this one go too.
        if not waiting.soon:
            if waiting.handover is not None:
                waiting.handover.cancel()
            waiting.soon = True
            waiting.handover = loop.call_soon(self._hand_over, loop)

    def _hand_over(self, loop: asyncio.AbstractEventLoop) -> None:
        waiting = self._waiting.pop(loop, None)
        if waiting is not None and waiting.jobs:
            self._queue.put(waiting.jobs)

    def close(self) -> None:
        """Commit what is queued (waiting on a loop too), then stop the thread."""
        for loop in list(self._waiting):
            waiting = self._waiting.pop(loop, None)
            if waiting is not None:
                if waiting.handover is not None:
                    waiting.handover.cancel()
                self._queue.put(waiting.jobs)
        if self._thread.is_alive():
            self._queue.put(_STOP)
            self._thread.join()

    def backlog(self) -> BacklogFigures:
        """Writes waiting for the database now, and those written late or dropped so far."""
        return self._backlog.figures()

    def _serve(self) -> None:
        stopping = False
        while not stopping:
            batch: list[_Job[Any]] = []
            try:
                item = self._queue.get(timeout=self._backlog.wait_s())
            except queue.Empty:
                item = None
            while item is not None and item is not _STOP:
                batch.extend(item)
                if len(batch) >= MAX_BATCH:
                    break
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            stopping = item is _STOP
            if self._backlog:
                # Writes wait for the database: new ones queue behind them, and reads fail at once (whoever
                # reads goes on without, rather than wait through the outage).
                self._settle([(job, None, _unavailable(len(self._backlog))) for job in batch if not job.durable]
                             + [(job, None, _dropped()) for job in self._backlog.keep(
                                 (job for job in batch if job.durable), "")])
                if self._backlog.due():
                    self._retry()
            elif batch:
                self._settle(self._commit(batch))
        # Closing: one more try for what waits (all of it, while the database takes it), then give up the rest.
        while self._backlog and self._retry():
            pass
        self._settle([(job, None, _abandoned()) for job in self._backlog.abandon()])

    def _retry(self) -> bool:
        """Try the oldest waiting writes again; whether all of them were settled."""
        jobs = self._backlog.head(MAX_BATCH)
        outcomes = self._commit(jobs)
        done = [job for job, _, _ in outcomes if job.postponed]
        stored = sum(1 for job, _, error in outcomes if job.postponed and error is None)
        progressed = len(done) == len(jobs)
        self._backlog.settled(done, stored=stored, failed_again=not progressed)
        self._settle(outcomes)
        return progressed

    def _commit(self, batch: list[_Job[Any]]) -> list[tuple[_Job[Any], Any, BaseException | None]]:
        outcomes: list[tuple[_Job[Any], Any, BaseException | None]] = []
        together = [job for job in batch if not job.alone]
        if len(together) > 1:
            try:
                self.commits += 1
                results = self._db.transaction(lambda session: _apply(session, together))
            except Exception as exc:  # each job is retried alone below, failing with its own error
                if self._unavailable(exc):
                    return self._postpone(batch, exc)  # each alone would wait out the same outage
            else:
                self.landed_at = time.monotonic()
                outcomes.extend((job, result, None) for job, result in zip(together, results, strict=True))
                batch = [job for job in batch if job.alone]
        for index, job in enumerate(batch):
            self.commits += 1
            try:
                outcomes.append((job, self._db.transaction(functools.partial(_apply_one, job)), None))
                self.landed_at = time.monotonic()
            except Exception as exc:  # handed to the caller: its future raises it
                if self._unavailable(exc):
                    return outcomes + self._postpone(batch[index:], exc)
                outcomes.append((job, None, job.translate(exc)))
        return outcomes

    def _postpone(self, jobs: list[_Job[Any]], error: BaseException) -> list[_Outcome]:
        """Keep the durable ``jobs`` for later (those in the backlog stay where they are); fail the reads."""
        fresh = [job for job in jobs if job.durable and not job.postponed]
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        dropped = self._backlog.keep(fresh, detail) if fresh else []
        return ([(job, None, job.translate(error)) for job in jobs if not job.durable]
                + [(job, None, _dropped()) for job in dropped])

    @staticmethod
    def _settle(outcomes: list[tuple[_Job[Any], Any, BaseException | None]]) -> None:
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[_Job[Any], Any, BaseException | None]]] = {}
        for outcome in outcomes:
            by_loop.setdefault(outcome[0].loop, []).append(outcome)
        for loop, settled in by_loop.items():
            with contextlib.suppress(RuntimeError):  # that loop has closed: nobody is waiting any more
                loop.call_soon_threadsafe(_resolve, settled)


class Ahead(Generic[T]):
    """A job queued ahead of need (``soon=False``): awaiting it hands it to the writer at once.

    A failure nobody comes to await is dropped quietly: whoever awaits it hears of it.
    """

    __slots__ = ("_committer", "future")

    def __init__(self, committer: GroupCommitter, future: asyncio.Future[T]) -> None:
        self._committer, self.future = committer, future
        future.add_done_callback(_retrieve)

    def __await__(self) -> Generator[Any, None, T]:
        self._committer.hurry(self.future)
        return self.future.__await__()


def _unavailable(waiting: int) -> StorageUnavailableError:
    error = StorageUnavailableError(f"the database is unavailable: {waiting} writes are waiting for it")
    error.cause = "the database is unavailable"
    return error


def _dropped() -> StorageError:
    error = StorageError("not stored: dropped from a full backlog of writes waiting for the database")
    error.cause = "the database was unavailable for too long: dropped"
    return error


def _abandoned() -> StorageError:
    error = StorageError("not stored: the database was still unavailable when the writer closed")
    error.cause = "the database was unavailable: not stored"
    return error


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # marks it retrieved: asyncio would otherwise log it as never retrieved


def _apply_one(job: _Job[T], session: Any) -> T:
    result: T = _apply(session, [job])[0]
    return result


def _apply(session: Any, jobs: list[_Job[Any]]) -> list[Any]:
    """Every job's result, in order: plain jobs one by one, combinable ones together (in queue order)."""
    results: dict[int, Any] = {}
    groups: dict[Callable[[Any, list[Any]], list[Any]], list[_Job[Any]]] = {}
    for job in jobs:
        if job.combine is None:
            results[id(job)] = job.work(session)
        else:
            groups.setdefault(job.combine, []).append(job)
    for combine, members in groups.items():
        results.update(zip(map(id, members), combine(session, [job.work for job in members]), strict=True))
    return [results[id(job)] for job in jobs]


def _resolve(outcomes: list[tuple[_Job[Any], Any, BaseException | None]]) -> None:
    for job, result, error in outcomes:
        if job.future.done():
            continue  # cancelled by its caller; the write happened all the same
        if error is None:
            job.future.set_result(result)
        else:
            job.future.set_exception(error)
