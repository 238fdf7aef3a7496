"""The group-commit writer on real databases: batches, order, one bad write failing alone, write-behind, reads
ahead, close."""

from __future__ import annotations

import asyncio
import gc
import threading
import time

import pytest

from council.errors import StorageError
from council.ranking.aggregation import BIAS_SUMS, fold_increment
from council.ranking.sheet import HistoryIncrement, ReviewerHistory
from council.storage.connect import open_database
from council.storage.group_commit import Ahead
from council.storage.store import Store, prepare_stage
from tests.storage.test_store import result
from tests.waiting import wait_until


async def test_many_runs_written_at_once_share_commits_and_keep_each_runs_order(db_location):
    store = Store(db_location)
    try:
        committer = store.db.committer
        before = committer.commits

        async def one_run(n: int) -> None:
            run = result(f"run-{n}", status="running")
            writes = []
            for stage in ("started", "answers", "ranking"):
                writes.append(store.queue_stage(prepare_stage(run, stage), soon=False))
                await asyncio.sleep(0)
            run.status = "complete"
            writes.append(store.queue_stage(prepare_stage(run, "finished")))
            await asyncio.gather(*writes)

        await asyncio.gather(*(one_run(n) for n in range(40)))
        commits = committer.commits - before
        assert commits < 40, f"160 stage writes of 40 runs took {commits} commits"
        for n in range(40):
            stages = store.db.fetchall("SELECT stage FROM run_stages WHERE run_id = ? ORDER BY seq", (f"run-{n}",))
            assert [s[0] for s in stages] == ["started", "answers", "ranking", "finished"]
            assert store.get(f"run-{n}").status == "complete"
        assert store.run_statuses([f"run-{n}" for n in range(40)]) == {f"run-{n}": "complete" for n in range(40)}
    finally:
        store.close()


async def test_one_bad_write_fails_alone_with_a_storage_error(db_location):
    store = Store(db_location)
    try:
        def bad(session):
            session.execute("INSERT INTO no_such_table VALUES (1)")

        good = [store.queue_stage(prepare_stage(result(f"good-{n}"), "started"), soon=False) for n in range(5)]
        failing = store._queue("writing something odd", bad)
        outcomes = await asyncio.gather(*good, failing, return_exceptions=True)
        assert outcomes[:5] == [None] * 5
        assert isinstance(outcomes[5], StorageError) and "writing something odd failed" in str(outcomes[5])
        assert all(store.get(f"good-{n}") is not None for n in range(5)), "the good writes of the batch landed"
    finally:
        store.close()


async def test_a_write_nobody_waits_for_lands_within_the_write_behind_delay(tmp_path):
    store = Store(tmp_path / "council.db")
    try:
        store.queue_stage(prepare_stage(result("lonely"), "started"), soon=False)
        assert store.get("lonely") is None, "not handed over yet: it waits for company"
        await wait_until(lambda: store.get("lonely") is not None, what="the write to land without company")
    finally:
        store.close()


async def test_closing_commits_writes_still_waiting_on_the_loop(tmp_path):
    path = tmp_path / "council.db"
    store = Store(path)
    store.queue_stage(prepare_stage(result("late"), "started"), soon=False)
    store.close()
    reopened = Store(path)
    try:
        assert reopened.get("late") is not None
    finally:
        reopened.close()


async def test_history_increments_from_many_runs_at_once_lose_none(db_location):
    """50 runs add to one reviewer at once: the result is every increment folded in, whatever the batching."""
    store = Store(db_location)
    try:
        increments = [HistoryIncrement(count=3, mean=0.2 + 0.01 * n, m2=0.05, resid_count=2, resid_m2=0.5,
                                       bias=(1.0,) * BIAS_SUMS) for n in range(50)]
        await asyncio.gather(*(store.add_to_reviewer_history({"r": inc}) for inc in increments))
        expected = None
        for increment in increments:
            expected = fold_increment(expected, increment)
        final = store.reviewer_history(["r"])["r"]
        assert (final.count, final.resid_count) == (150, 100)
        assert final.mean == pytest.approx(expected.mean) and final.m2 == pytest.approx(expected.m2)
        assert final.resid_m2 == pytest.approx(25.0) and final.bias == pytest.approx((50.0,) * BIAS_SUMS)
        assert await store.read_reviewer_history(["r", "unseen"]) == {"r": final}
    finally:
        store.close()


async def test_futures_of_a_closed_loop_are_dropped_quietly(tmp_path):
    database = open_database(str(tmp_path / "council.db"))
    try:
        def slow(session):
            time.sleep(0.2)
            return session.fetchone("SELECT 1")

        async def submit_and_leave():
            database.committer.submit(slow)

        # The loop that asked is gone before the writer finishes: the writer goes on serving others.
        await asyncio.to_thread(asyncio.run, submit_and_leave())
        assert await database.committer.submit(lambda session: session.fetchone("SELECT 2")) == (2,)
    finally:
        database.close()


class _StoppedClock(asyncio.SelectorEventLoop):
    """An event loop whose clock stands still: no timer ever fires, so a job waiting for company
    reaches the writer only when something hands it over at once."""

    def time(self) -> float:
        return 0.0


def _on_stopped_clock(scenario):
    loop = _StoppedClock()
    try:
        return loop.run_until_complete(scenario())
    finally:
        loop.close()


def test_awaiting_a_read_made_ahead_hands_it_to_the_writer_at_once(db_location):
    store = Store(db_location)
    stored = ReviewerHistory(3, 6.0, 2.0, 3, 1.5)
    store.update_reviewer_history(["r"], lambda current: {"r": stored})
    give_up = threading.Event()

    async def scenario():
        ahead = store.read_reviewer_history(["r", "unseen"], ahead=True)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert not ahead.future.done(), "made ahead of need, the read waits for company"
        read = asyncio.ensure_future(_awaiting(ahead))
        # A real-time guard: on this loop's clock the write-behind delay never ends.
        guard = asyncio.get_running_loop().run_in_executor(None, give_up.wait, 10)
        done, _ = await asyncio.wait({read, guard}, return_when=asyncio.FIRST_COMPLETED)
        give_up.set()
        assert read in done, "awaiting the read did not hand it over"
        return read.result()

    try:
        assert _on_stopped_clock(scenario) == {"r": stored}
    finally:
        store.close()


async def _awaiting(ahead):
    return await ahead


def test_a_read_made_ahead_rides_along_with_the_next_write(db_location):
    store = Store(db_location)

    async def scenario():
        ahead = store.read_reviewer_history(["r"], ahead=True)
        before = store.db.committer.commits
        await store.queue_stage(prepare_stage(result("carrier"), "started"))  # handed over on the next turn
        await asyncio.sleep(0)  # the read's result is settled in the same wake-up as the write's
        assert ahead.future.done() and ahead.future.result() == {}
        return store.db.committer.commits - before

    try:
        assert _on_stopped_clock(scenario) == 1, "the read and the write share one transaction"
    finally:
        store.close()


async def test_a_failed_read_ahead_nobody_awaits_is_not_reported_as_unretrieved(tmp_path):
    store = Store(tmp_path / "council.db")
    loop = asyncio.get_running_loop()
    reported = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: reported.append(context["message"]))

    def bad(session):
        session.execute("SELECT * FROM no_such_table")

    async def fail_and_drop(ahead: bool) -> None:
        future = store._queue("reading ahead", bad, soon=False)
        held = Ahead(store.db.committer, future) if ahead else future
        await asyncio.wait([future])  # done, failed, and its exception never asked for
        del held, future
        # The writer holds its last batch until it takes the next one: give it one, so nothing refers to the future.
        await store.queue_stage(prepare_stage(result("next-batch"), "started"))
        gc.collect()

    try:
        await fail_and_drop(ahead=False)
        assert reported == ["Future exception was never retrieved"], "a plain future's failure is reported"
        reported.clear()
        await fail_and_drop(ahead=True)
        assert reported == [], "a read ahead that nobody came for fails quietly"
        awaited = store.read_reviewer_history(["r"], ahead=True)
        store.db.execute("DROP TABLE reviewer_stats")
        with pytest.raises(StorageError, match="reading reviewer statistics failed"):
            await awaited
    finally:
        loop.set_exception_handler(previous)
        store.close()
