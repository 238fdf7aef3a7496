"""Admission of council runs: at most ``server.max_concurrent_runs`` at once, the rest wait their turn.

A burst of requests larger than the run limit is ordinary load, not abuse:
the extra requests wait in a bounded first-in, first-out queue
(``server.queue_size``) for up to ``server.queue_timeout_s``. Only a full
queue or a wait that times out is refused, and the refusal's ``Retry-After``
comes from how long runs have actually been taking. A client that leaves
while queued leaves the queue at once. Chat completions and the web page's
runs share one :class:`Admission`, so neither can starve the other unseen.
At shutdown :meth:`Admission.close` admits nothing more: every waiting request
is told at once, and a slot freed by a finishing run is handed to no one.

This module knows asyncio and nothing of HTTP or councils; the server turns
:class:`AdmissionRefusedError` into its 429 and :class:`AdmissionClosedError` into its
503.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

_RUN_TIME_WEIGHT = 0.2  # exponential moving average of run durations: recent runs count most


class AdmissionRefusedError(Exception):
    """No slot: the queue is full, or the wait for a slot ran out. ``retry_after_s`` is a fair wait."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class AdmissionClosedError(Exception):
    """The server is shutting down: no run starts any more, queued or not."""

    def __init__(self) -> None:
        super().__init__("the server is shutting down")


@dataclass(frozen=True)
class AdmissionStats:
    """What ``/healthz`` shows about admission."""

    running: int
    queued: int
    limit: int
    queue_size: int
    admitted: int
    refused: int
    mean_wait_ms: float
    mean_run_s: float


class Admission:
    """Run slots with a bounded FIFO wait queue."""

    def __init__(self, limit: int, queue_size: int, queue_timeout_s: float) -> None:
        self.limit = limit
        self.queue_size = queue_size
        self.queue_timeout_s = queue_timeout_s
        self.running = 0
        self.closed = False
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._admitted = 0
        self._refused = 0
        self._waited_s = 0.0
        self._mean_run_s = 1.0  # a first guess until runs have been timed
        self.on_wait: Callable[[float], None] | None = None
        """Told each admitted run's wait in seconds (the metrics histogram listens)."""

    @property
    def queued(self) -> int:
        """Requests waiting for a slot."""
        return sum(not f.done() for f in self._waiting)

    def retry_after_s(self) -> int:
        """A wait after which a slot is likely free: one run's time per round of queued requests ahead."""
        rounds = 1 + self.queued / max(self.limit, 1)
        return max(1, math.ceil(self._mean_run_s * rounds))

    async def acquire(self) -> None:
        """Take a run slot, waiting in line if all are busy.

        :class:`AdmissionRefusedError` when none comes, :class:`AdmissionClosedError`
        once :meth:`close` was called (also for a request already waiting).
        """
        if self.closed:
            raise AdmissionClosedError
        started = time.perf_counter()
        if self.running < self.limit and not self.queued:
            self._take(started)
            return
        if self.queued >= self.queue_size:
            self._refused += 1
            raise AdmissionRefusedError(f"{self.running} council runs are in progress and {self.queued} are waiting, "
                                        "the limit; retry later", self.retry_after_s())
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        try:
            async with asyncio.timeout(self.queue_timeout_s):
                await asyncio.shield(turn)
        except TimeoutError:
            if turn.done() and not turn.cancelled() and turn.exception() is None:
                self._keep_handed(started)  # the slot arrived as the clock ran out: keep it
                return
            turn.cancel()
            if self.closed:
                raise AdmissionClosedError from None
            self._refused += 1
            raise AdmissionRefusedError(f"no council run slot came free within {self.queue_timeout_s:g} s; retry later",
                                        self.retry_after_s()) from None
        except asyncio.CancelledError:
            # The client left while queued: leave the line, and pass on a slot handed over meanwhile.
            if turn.done() and not turn.cancelled() and turn.exception() is None:
                self.running -= 1
                self._hand_over()
            elif not turn.done():
                turn.cancel()
            raise
        finally:
            self._forget_done()
        self._keep_handed(started)

    def _keep_handed(self, started: float) -> None:
        if self.closed:
            # Handed a slot just before the shutdown, but not yet running: no run starts now.
            self.running -= 1
            raise AdmissionClosedError
        self._take(started, handed=True)

    def _take(self, started: float, handed: bool = False) -> None:
        if not handed:
            self.running += 1
        self._admitted += 1
        waited = time.perf_counter() - started
        self._waited_s += waited
        if self.on_wait is not None:
            self.on_wait(waited)

    def release(self, run_s: float | None = None) -> None:
        """Give a slot back (``run_s``: how long the run took, for ``Retry-After``)."""
        if run_s is not None:
            self._mean_run_s += _RUN_TIME_WEIGHT * (run_s - self._mean_run_s)
        self.running -= 1
        self._hand_over()

    def close(self) -> None:
        """Admit nothing more: every waiting request gets :class:`AdmissionClosedError` now, later ones at once."""
        self.closed = True
        while self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():
                turn.set_exception(AdmissionClosedError())

    def _hand_over(self) -> None:
        # The slot passes straight to the longest waiter, so newcomers cannot jump the queue.
        while not self.closed and self._waiting and self.running < self.limit:
            turn = self._waiting.popleft()
            if not turn.done():
                self.running += 1
                turn.set_result(None)
                return

    def _forget_done(self) -> None:
        while self._waiting and self._waiting[0].done():
            self._waiting.popleft()

    def stats(self) -> AdmissionStats:
        """Counts for ``/healthz``."""
        return AdmissionStats(running=self.running, queued=self.queued, limit=self.limit,
                              queue_size=self.queue_size, admitted=self._admitted, refused=self._refused,
                              mean_wait_ms=round(1000 * self._waited_s / max(self._admitted, 1), 1),
                              mean_run_s=round(self._mean_run_s, 3))
