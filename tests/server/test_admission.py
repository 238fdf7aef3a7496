"""Run admission: slots, a FIFO queue, refusals with a fair Retry-After, and leaving the queue."""

from __future__ import annotations

import asyncio

import pytest

from council.server.admission import Admission, AdmissionClosedError, AdmissionRefusedError
from tests.waiting import TIMEOUT_S, wait_until


async def test_slots_are_taken_at_once_until_the_limit():
    admission = Admission(limit=2, queue_size=4, queue_timeout_s=1)
    await admission.acquire()
    await admission.acquire()
    assert admission.stats().running == 2 and admission.queued == 0


async def test_waiters_are_served_first_in_first_out():
    admission = Admission(limit=1, queue_size=8, queue_timeout_s=5)
    await admission.acquire()
    served: list[int] = []

    async def wait(n: int) -> None:
        await admission.acquire()
        served.append(n)

    waiters = []
    for n in range(5):
        waiters.append(asyncio.ensure_future(wait(n)))
        await asyncio.sleep(0)  # each joins the line in turn
    assert admission.queued == 5
    for _ in range(5):
        admission.release(run_s=0.1)
        await asyncio.sleep(0)
    await asyncio.gather(*waiters)
    assert served == [0, 1, 2, 3, 4]
    assert admission.running == 1  # the last waiter holds the slot


async def test_a_newcomer_does_not_jump_the_queue():
    admission = Admission(limit=1, queue_size=8, queue_timeout_s=5)
    await admission.acquire()
    first = asyncio.ensure_future(admission.acquire())
    await asyncio.sleep(0)
    admission.release()  # the slot goes to the waiter, not to whoever asks next
    late = asyncio.ensure_future(admission.acquire())
    await asyncio.wait_for(first, timeout=TIMEOUT_S)
    # The newcomer has asked by now one way or the other: taken a slot (the bug) or joined the line.
    await wait_until(lambda: late.done() or admission.queued == 1, what="the newcomer to be served or queued")
    assert not late.done() and admission.queued == 1
    admission.release()
    await late


async def test_a_full_queue_is_refused_with_retry_after_from_run_times():
    admission = Admission(limit=1, queue_size=1, queue_timeout_s=5)
    await admission.acquire()
    for _ in range(10):
        admission.release(run_s=4.0)
        await admission.acquire()
    waiting = asyncio.ensure_future(admission.acquire())
    await asyncio.sleep(0)
    with pytest.raises(AdmissionRefusedError) as refused:
        await admission.acquire()
    assert refused.value.retry_after_s >= 4  # about one run's time, and then some for the line
    assert admission.stats().refused == 1
    admission.release()
    await waiting


async def test_a_timed_out_wait_is_refused_and_leaves_the_queue():
    admission = Admission(limit=1, queue_size=4, queue_timeout_s=0.05)
    await admission.acquire()
    with pytest.raises(AdmissionRefusedError, match=r"within 0\.05 s"):
        await admission.acquire()
    assert admission.queued == 0
    admission.release()
    assert admission.running == 0


async def test_a_cancelled_waiter_leaves_the_line_and_never_holds_a_slot():
    admission = Admission(limit=1, queue_size=4, queue_timeout_s=5)
    await admission.acquire()
    leaver = asyncio.ensure_future(admission.acquire())
    stayer = asyncio.ensure_future(admission.acquire())
    await asyncio.sleep(0)
    leaver.cancel()
    await asyncio.gather(leaver, return_exceptions=True)
    assert admission.queued == 1
    admission.release()
    await stayer
    assert admission.running == 1


async def test_a_slot_handed_to_a_waiter_that_is_cancelled_passes_on():
    admission = Admission(limit=1, queue_size=4, queue_timeout_s=5)
    await admission.acquire()
    first = asyncio.ensure_future(admission.acquire())
    second = asyncio.ensure_future(admission.acquire())
    await asyncio.sleep(0)
    admission.release()  # handed to `first` ...
    first.cancel()  # ... which is cancelled before it runs again
    await asyncio.gather(first, return_exceptions=True)
    await asyncio.wait_for(second, timeout=TIMEOUT_S)
    assert admission.running == 1


async def test_close_tells_every_waiter_at_once_and_frees_no_slot_to_anyone():
    admission = Admission(limit=1, queue_size=8, queue_timeout_s=30)
    await admission.acquire()
    waiters = [asyncio.ensure_future(admission.acquire()) for _ in range(5)]
    await asyncio.sleep(0)
    admission.close()
    outcomes = await asyncio.wait_for(asyncio.gather(*waiters, return_exceptions=True), timeout=TIMEOUT_S)
    assert all(isinstance(outcome, AdmissionClosedError) for outcome in outcomes)
    assert admission.queued == 0 and admission.running == 1  # the run in flight keeps its slot
    admission.release()
    assert admission.running == 0
    with pytest.raises(AdmissionClosedError):
        await admission.acquire()  # a free slot, but the server is shutting down


async def test_a_slot_handed_over_just_before_close_starts_nothing():
    admission = Admission(limit=1, queue_size=8, queue_timeout_s=30)
    await admission.acquire()
    handed = asyncio.ensure_future(admission.acquire())
    await asyncio.sleep(0)
    admission.release()  # the slot goes to `handed`, which has not run again yet ...
    admission.close()  # ... when the shutdown begins
    with pytest.raises(AdmissionClosedError):
        await handed
    assert admission.running == 0
