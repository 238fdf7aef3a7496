"""A run's writes: queued as it goes, and waited for at its end no longer than ``storage.critical_wait_s``.

A run never waits for its database long: the stages it passes are queued
to the store's writer and written behind it, and its end waits for them
and for its last row within what is left of ``storage.critical_wait_s``
(shared with the wait for reviewers' history, :func:`waited_for_storage`),
and not at all while the store knows its database is away (writes are
waiting for it, or a call could not reach it), nor any longer once it
learns so (:func:`wait_unless_away`).
A write that fails for good (a full disk) costs the record, and the result
says so; a write that has not landed in time (the database is down or
locked) is left to the store, which keeps it and writes it when the
database is back (:mod:`council.storage.backlog`): the run is answered with
``stored`` false and a reason saying it is written in the background.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

from council.errors import StorageError, storage_cause
from council.logs import get_logger
from council.pipeline.context import RunContext
from council.result import CouncilResult
from council.storage.backlog import StorageUnavailableError
from council.storage.run_records import Stage
from council.storage.store import Store, prepare_stage

T = TypeVar("T")
#: How often a wait for the database looks whether the store has learnt that it is away.
AWAY_CHECK_S = 0.05
NOT_STORED = "the run could not be stored"
HISTORY_NOT_STORED = "reviewer calibration history could not be updated"
_log = get_logger("council")


def queue_save(ctx: RunContext, store: Store | None, stage: Stage) -> None:
    """Queue what ``stage`` added to the run; the run goes on, and its end checks how the write went."""
    if store is not None:
        ctx.queued_writes.append((store.queue_stage(prepare_stage(ctx.result, stage), soon=False), NOT_STORED))


async def waited_for_storage(ctx: RunContext, awaitable: Awaitable[T]) -> T:
    """``awaitable`` (a read the run needs), waited for within what is left of the run's storage wait.

    Raises :class:`TimeoutError` when that runs out first, and
    :class:`StorageUnavailableError` when the store learns (or knew) that
    its database is away; the read is given up either way.
    """
    started = time.monotonic()
    read = asyncio.ensure_future(_awaited(awaitable))
    try:
        await wait_unless_away(ctx.store, [read], _left_s(ctx))
        if read.done():
            return read.result()
        if ctx.store is not None and ctx.store.db.known_unavailable:
            raise StorageUnavailableError("the database is unavailable")
        raise TimeoutError
    finally:
        if not read.done():
            read.cancel()
        ctx.storage_waited_s += time.monotonic() - started


async def wait_unless_away(store: Store | None, futures: list[asyncio.Future[Any]], timeout_s: float, *,
                           nor_when_blocked: bool = False) -> None:
    """Wait until ``futures`` are done, at most ``timeout_s``, and no longer once ``store``'s database is known away.

    Neither raises nor cancels. The store learns of an outage on its own
    threads (a write put off, a read refused), so a wait begun before it
    knew looks again every :data:`AWAY_CHECK_S`: a run or a cache hit that
    started just before the writer found the database gone stops waiting
    then, rather than at the end of its ``storage.critical_wait_s``.
    ``nor_when_blocked``: stop too while the writer waits for a lock
    another process holds (SQLite), which is not yet an outage.
    """
    deadline = time.monotonic() + timeout_s
    pending = {future for future in futures if not future.done()}
    while pending and not (store is not None and (store.db.known_unavailable
                                                   or (nor_when_blocked and store.db.writer_blocked))):
        left = deadline - time.monotonic()
        if left <= 0:
            return
        _, pending = await asyncio.wait(pending, timeout=min(left, AWAY_CHECK_S))


async def save_finished(ctx: RunContext, store: Store | None) -> None:
    """Queue the run's last row and wait for its writes, within what is left of the run's storage wait."""
    result = ctx.result
    if store is None:
        return
    started = time.monotonic()
    writes = list(ctx.queued_writes)
    if store.db.known_unavailable:
        # The database is known to be down: waiting would only hold the answer (and the run's slot) longer.
        ctx.storage_waited_s = ctx.config.storage.critical_wait_s
    try:
        # The wait neither raises nor cancels: a cancelled run still learns how the writes it began went,
        # and a write still waiting for the database when time is up goes on waiting in the store.
        await wait_unless_away(store, [future for future, _ in writes], _left_s(ctx))
        checked = _check_done(result, writes)  # before the last row, which then records what failed
        writes.append((store.queue_stage(prepare_stage(result, "finished")), NOT_STORED))
        await wait_unless_away(store, [writes[-1][0]], max(0.0, _left_s(ctx) - (time.monotonic() - started)))
        _check_done(result, [write for write in writes if id(write[0]) not in checked])
    finally:
        ctx.storage_waited_s += time.monotonic() - started
    late = [loss for future, loss in writes if not future.done()]
    for future, _ in writes:
        if not future.done():
            future.add_done_callback(_retrieve)  # nobody awaits it any more; the store logs an outage's losses
    why = f"the database is unavailable or did not answer within {ctx.config.storage.critical_wait_s:g} s"
    if NOT_STORED in late and result.stored:
        result.stored = False
        result.degrade(f"the run is not stored yet ({why}): it is written in the background when the database "
                       "is back")
    elif late:
        result.degrade(f"reviewer calibration history is not updated yet ({why}): it is written in the "
                       "background when the database is back")


def write_failed(result: CouncilResult, loss: str, error: BaseException) -> None:
    """Record that a write failed for good: the result says what it cost, once; the log says why."""
    cause = storage_cause(error) if isinstance(error, StorageError) else f"{type(error).__name__}: {error}"
    if loss == NOT_STORED:
        if not result.stored:
            return  # said once
        result.stored = False
    # Operators alert on these event names: one for the run's record, one for calibration history.
    _log.error("run_not_stored" if loss == NOT_STORED else "reviewer_history_not_stored",
               run_id=result.run_id, cause=str(error))
    result.degrade(f"{loss} ({cause})")


def _check_done(result: CouncilResult, writes: list[tuple[asyncio.Future[None], str]]) -> set[int]:
    """Record the failures of the writes that are done; the ids of those futures."""
    done = set()
    for future, loss in writes:
        if not future.done():
            continue
        done.add(id(future))
        error = None if future.cancelled() else future.exception()  # every one retrieved, none left to warn
        if error is not None:
            write_failed(result, loss, error)
    return done


def _left_s(ctx: RunContext) -> float:
    return max(0.0, ctx.config.storage.critical_wait_s - ctx.storage_waited_s)


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable


def _retrieve(future: asyncio.Future[None]) -> None:
    if not future.cancelled():
        future.exception()
