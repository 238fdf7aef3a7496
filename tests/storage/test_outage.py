"""Database outages on real databases: PostgreSQL stopped and restarted, SQLite locked by another process.

What is checked is what a server needs: a write that cannot land is kept and
retried in the background (in order, within a bounded backlog, counted) and
lands once the database is back; a read fails within the short bound instead
of waiting out a 30 s pool; and a restart leaves no stale pooled connection
that loses a calibration update.
"""

from __future__ import annotations

import asyncio

import pytest

from council.errors import StorageError
from council.ranking.aggregation import BIAS_SUMS
from council.ranking.sheet import HistoryIncrement
from council.storage.backlog import BacklogFigures, StorageUnavailableError
from council.storage.connect import open_database
from council.storage.group_commit import GroupCommitter
from council.storage.run_writes import StageWrite
from council.storage.store import Store, prepare_stage
from council.testing.postgres import PostgresServer
from tests.storage.outage import private_postgres, sqlite_locked_elsewhere
from tests.storage.test_store import result
from tests.waiting import TIMEOUT_S, wait_until

__all__ = ["private_postgres"]  # the fixture, imported for pytest

BOUND_S = 1.0
ONE = HistoryIncrement(count=1, mean=0.5, m2=0.0, resid_count=1, resid_m2=0.25, bias=(1.0,) * BIAS_SUMS)


async def stored(store: Store, run_id: str) -> bool:
    try:
        return await store.call(store.run_statuses, [run_id]) == {run_id: "complete"}
    except StorageError:
        return False


def run_stages(store: Store, run_id: str) -> list[str]:
    rows = store.db.fetchall("SELECT stage FROM run_stages WHERE run_id = ? ORDER BY seq", (run_id,))
    return [row[0] for row in rows]


async def test_writes_during_a_postgres_outage_are_kept_and_land_in_order_when_it_is_back(private_postgres):
    server: PostgresServer = private_postgres
    store = Store(server.create_database("outage"), critical_wait_s=BOUND_S)
    try:
        await store.queue_stage(prepare_stage(result("before"), "finished"))
        server.halt()
        running = result("during", status="running")
        writes = [store.queue_stage(prepare_stage(running, "started"), soon=False),
                  store.add_to_reviewer_history({"r": ONE})]
        running.status = "complete"
        writes.append(store.queue_stage(prepare_stage(running, "finished")))
        await wait_until(lambda: store.db.write_backlog().pending == 3, what="the three writes to wait in the backlog")
        assert not any(write.done() for write in writes), "a write during the outage was neither landed nor given up"

        # Told at once from what is known (writes are waiting): the answer is there before anything waited.
        read = store.read_reviewer_history(["r"])
        assert read.done(), "a read waited while writes were known to wait for the database"
        with pytest.raises(StorageUnavailableError, match="the database is unavailable: 3 writes are waiting for it"):
            await read

        server.resume()
        await asyncio.wait_for(asyncio.gather(*writes), timeout=5 * BOUND_S)
        assert run_stages(store, "during") == ["started", "finished"]
        assert store.get("during").status == "complete"
        assert store.reviewer_history(["r"])["r"].count == 1
        backlog = store.db.write_backlog()
        assert (backlog.pending, backlog.retried, backlog.dropped) == (0, 3, 0)
    finally:
        if not _accepting(server):
            server.resume()
        store.close()


def _accepting(server: PostgresServer) -> bool:
    import psycopg

    try:
        psycopg.connect(server.url, connect_timeout=2).close()
    except psycopg.OperationalError:
        return False
    return True


async def test_after_a_restart_no_stale_pooled_connection_loses_a_calibration_update(private_postgres):
    server: PostgresServer = private_postgres
    store = Store(server.create_database("restart"), pool_size=4, critical_wait_s=BOUND_S)
    try:
        # Fill the pool: four connections busy at once, then idle in the pool.
        await asyncio.gather(*(store.call(lambda: store.db.fetchone("SELECT pg_sleep(0.2)")) for _ in range(4)))
        await store.add_to_reviewer_history({"r": ONE})
        server.halt()
        server.resume()
        await asyncio.gather(*(store.add_to_reviewer_history({"r": ONE}) for _ in range(9)))
        # A stale pooled connection fails its write, which then waits in the backlog to be retried.
        assert store.db.write_backlog() == BacklogFigures(), "the first writes after a restart had to wait to reconnect"
        assert await store.call(store.run_statuses, ["nothing"]) == {}  # a read on the worker threads too
        assert store.reviewer_history(["r"])["r"].count == 10
    finally:
        store.close()


async def test_a_run_written_while_another_process_holds_sqlite_locked_lands_when_it_lets_go(tmp_path):
    path = tmp_path / "council.db"
    store = Store(path, critical_wait_s=BOUND_S)
    try:
        with sqlite_locked_elsewhere(path):
            write = store.queue_stage(prepare_stage(result("locked-out"), "finished"))
            await wait_until(lambda: store.db.write_backlog().pending == 1, what="the write to wait in the backlog")
            assert not write.done()
            # Told at once from what is known (a write is waiting), not after waiting out the busy timeout.
            read = store.read_reviewer_history(["r"])
            assert read.done(), "a read waited out the busy timeout"
            with pytest.raises(StorageUnavailableError, match="unavailable: 1 writes are waiting for it"):
                await read
        await asyncio.wait_for(write, timeout=5 * BOUND_S)
        assert await stored(store, "locked-out")
        assert store.db.write_backlog().retried == 1
    finally:
        store.close()


async def test_a_read_is_answered_while_the_writer_waits_for_a_lock_another_process_holds(tmp_path):
    path = tmp_path / "council.db"
    # The writer waits for the lock up to its busy timeout, this long: a read queued behind that wait would
    # outlast the test's bound, one that does not wait for the writer is answered at once.
    store = Store(path, critical_wait_s=60.0)
    try:
        store.save(result("before"))
        with sqlite_locked_elsewhere(path):
            write = store.queue_stage(prepare_stage(result("locked-out"), "started"))
            await wait_until(lambda: store.db.committer.commits == 1, what="the writer to try the write")
            # In WAL mode a reader needs no lock: the result cache's lookup and the page's reads go on.
            read = await asyncio.wait_for(store.call(store.get, "before"), timeout=TIMEOUT_S)
            assert read is not None and read.run_id == "before"
            assert not write.done(), "the write still waits for the lock"
        await asyncio.wait_for(write, timeout=TIMEOUT_S)
        assert await stored(store, "locked-out")
    finally:
        store.close()


async def test_a_read_that_cannot_reach_postgres_tells_runs_not_to_wait_until_a_call_succeeds(private_postgres):
    server: PostgresServer = private_postgres
    store = Store(server.create_database("known"), critical_wait_s=BOUND_S)
    try:
        assert store.list_runs() == [] and not store.db.known_unavailable
        server.halt()
        try:
            with pytest.raises(StorageUnavailableError):
                await store.call(store.list_runs)
            assert store.db.known_unavailable, "a read that found the database down is known"
            assert store.db.write_backlog().pending == 0, "known from the read alone: no write is waiting"
        finally:
            server.resume()
        await wait_until(lambda: _answers(store), what="a read to succeed once PostgreSQL is back")
        assert not store.db.known_unavailable
    finally:
        store.close()


def _answers(store: Store) -> bool:
    try:
        store.list_runs()
    except StorageError:
        return False
    return True


async def test_a_full_backlog_drops_the_oldest_runs_whole_and_counts_them(tmp_path):
    path = tmp_path / "council.db"
    db = open_database(path, critical_wait_s=BOUND_S)
    store = Store(db)
    committer = GroupCommitter(db, "test-writer", unavailable=db.unavailable, max_pending=6)
    try:
        with sqlite_locked_elsewhere(path):
            writes = {}
            for n in range(5):  # three writes a run, room for six: the newest two runs are kept
                run = result(f"run-{n}", status="running")
                writes[n] = [committer.submit(prepare_stage(run, stage), combine=StageWrite.apply_many, soon=False,
                                              durable=True, group=run.run_id)
                             for stage in ("started", "answers", "finished")]
                await asyncio.sleep(0.1)
            await wait_until(lambda: committer.backlog().pending + committer.backlog().dropped == 15,
                             what="every write kept or dropped")
            assert (committer.backlog().pending, committer.backlog().dropped) == (6, 9)
            for n in range(3):
                dropped = await asyncio.gather(*writes[n], return_exceptions=True)
                assert all(isinstance(e, StorageError) and "dropped" in str(e) for e in dropped), dropped
        await asyncio.wait_for(asyncio.gather(*writes[3], *writes[4]), timeout=5 * BOUND_S)
        assert [run_stages(store, f"run-{n}") for n in range(5)] == [[]] * 3 + [["started", "answers", "finished"]] * 2
        assert committer.backlog() == BacklogFigures(pending=0, retried=6, dropped=9)
    finally:
        committer.close()
        db.close()


async def test_closing_during_an_outage_gives_up_within_the_bound_and_says_what_was_lost(private_postgres):
    server: PostgresServer = private_postgres
    store = Store(server.create_database("closing"), critical_wait_s=BOUND_S)
    server.halt()
    try:
        write = store.queue_stage(prepare_stage(result("lost"), "finished"))
        await wait_until(lambda: store.db.write_backlog().pending == 1, what="the write to wait in the backlog")
        # Closing gives up on the waiting write instead of waiting for the database: the bound is against a hang.
        await asyncio.wait_for(asyncio.to_thread(store.close), timeout=TIMEOUT_S)
        with pytest.raises(StorageError, match="not stored"):
            await write
    finally:
        server.resume()
