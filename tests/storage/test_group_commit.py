"""The group-commit writer on real databases: batches, order, one bad write failing alone, write-behind, close."""

from __future__ import annotations

import asyncio
import time

import pytest

from council.errors import StorageError
from council.ranking.aggregation import BIAS_SUMS, fold_increment
from council.ranking.sheet import HistoryIncrement
from council.storage.connect import open_database
from council.storage.group_commit import WRITE_BEHIND_S
from council.storage.store import Store, prepare_stage
from tests.storage.test_store import result


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
        deadline = time.monotonic() + WRITE_BEHIND_S + 2.0
        while store.get("lonely") is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert store.get("lonely") is not None
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
