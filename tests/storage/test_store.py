"""The run store on both backends: runs round-trip stage by stage, calibration, migrations and clear errors.

Every test taking ``db_location`` runs twice: on a SQLite file and on a
database of a real PostgreSQL server started for the test session.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import os
import sqlite3
from datetime import UTC, datetime

import pytest
import yaml

from council import Council, CouncilConfig
from council.config import simulated_config_path
from council.errors import StorageError
from council.ranking.aggregation import ReviewerHistory
from council.ranking.sheet import HistoryIncrement
from council.result import CouncilResult, Reproducibility
from council.storage.connect import open_database
from council.storage.run_records import stage_payload
from council.storage.schema import MIGRATIONS, SCHEMA_VERSION
from council.storage.store import Store
from council.types import ChatMessage
from tests.storage.threads import run_in_threads
from tests.waiting import wait_until


def result(run_id: str, question: str = "Why?", status: str = "complete") -> CouncilResult:
    reproducibility = Reproducibility(config_hash="c", prompt_hashes={}, rubric_id="default", rubric_version="1.0.0",
                                      rubric_hash="r", shuffle_seed=1, aggregation_method="calibrated",
                                      package_version="0")
    return CouncilResult(run_id=run_id, created_at=datetime.now(UTC), status=status,  # type: ignore[arg-type]
                         question=[ChatMessage(role="user", content=question)], reproducibility=reproducibility)


@pytest.fixture
def store(db_location):
    opened = Store(db_location)
    yield opened
    opened.close()


def test_runs_round_trip_and_list_newest_first(db_location):
    store = Store(db_location)
    try:
        store.save(result("one", "First question"))
        store.save(result("two", "Second question"))
        updated = store.get("one").model_copy(update={"status": "failed"})
        store.save(updated)
        assert store.get("one") == updated
        assert store.get("missing") is None
        listed = store.list_runs()
        assert [r.run_id for r in listed] == ["two", "one"]
        assert listed[1].status == "failed" and listed[1].question == "First question"
        assert [r.run_id for r in store.list_runs(limit=1)] == ["two"]
        assert store.run_statuses(["one", "two", "gone"]) == {"one": "failed", "two": "complete"}
    finally:
        store.close()
    reopened = Store(db_location)
    try:
        assert reopened.get("two") is not None
    finally:
        reopened.close()


def simulated_without_latency() -> CouncilConfig:
    """The built-in simulated council (four members and a chairman, the default rubric), answering at once."""
    raw = yaml.safe_load(simulated_config_path().read_text())
    for member in raw["members"]:
        member["persona"]["latency_ms"] = 0
    return CouncilConfig.model_validate(raw)


async def test_a_council_run_is_written_stage_by_stage_and_reads_back_the_same(db_location):
    store = Store(db_location)
    try:
        async with Council(simulated_without_latency(), store=store) as council:
            finished = await council.ask("Why is the sky blue?")
        assert finished.status == "complete" and finished.final_answer is not None and finished.calibration == []
        assert store.get(finished.run_id).model_dump_json() == finished.model_dump_json()
        stages = store.db.fetchall("SELECT stage, payload FROM run_stages WHERE run_id = ? ORDER BY seq",
                                   (finished.run_id,))
        assert [s[0] for s in stages] == ["started", "answers", "ranking", "finished"]
        stored_bytes = sum(len(bytes(s[1])) for s in stages)
        assert stored_bytes < len(finished.model_dump_json()) / 3, "stages are compressed and written once each"
        # A second run reads the history the first one wrote, and records what it used.
        async with Council(simulated_without_latency(), store=store) as council:
            second = await council.ask("And at sunset?")
        assert {c.reviewer for c in second.calibration} == {a.member for a in second.answers}
        assert store.get(second.run_id) == second
    finally:
        store.close()


def test_reviewer_history_updates_atomically(store):
    assert store.reviewer_history(["a"]) == {}
    store.update_reviewer_history(["a"], lambda current: {"a": ReviewerHistory(3, 6.0, 2.0, 3, 1.5)})
    store.update_reviewer_history(
        ["a"], lambda current: {"a": ReviewerHistory(current["a"].count + 1, 6.0, 2.0, 3, 1.5)})
    assert store.reviewer_history(["a", "b"]) == {"a": ReviewerHistory(4, 6.0, 2.0, 3, 1.5)}

    def broken(current):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        store.update_reviewer_history(["a"], broken)
    assert store.reviewer_history(["a"])["a"].count == 4, "a failed update is rolled back"
    store.update_reviewer_history(["b"], lambda current: dict(current))  # seen, nothing recorded yet
    assert store.reviewer_history(["b"]) == {}, "a reviewer without scores has no history"


def test_concurrent_writers_on_one_reviewer_lose_no_update(db_location):
    """Four stores (four replicas' connections) with four threads each fold 25 updates apiece into one reviewer."""
    stores, per_thread, threads_per_store = [Store(db_location, pool_size=4) for _ in range(4)], 25, 4

    def hammer(store: Store, index: int) -> None:
        def fold(current: dict[str, ReviewerHistory]) -> dict[str, ReviewerHistory]:
            seen = current.get("hot", ReviewerHistory())
            # count and mean carry exact integer sums: every lost update would show.
            return {"hot": ReviewerHistory(seen.count + 1, seen.mean + index, seen.m2 + 1.0, seen.resid_count,
                                           seen.resid_m2, tuple(b + 1.0 for b in seen.bias))}

        for _ in range(per_thread):
            store.update_reviewer_history(["hot", "cold"], fold)

    workers = [functools.partial(hammer, store, 1 + n % 5) for store in stores for n in range(threads_per_store)]
    errors = run_in_threads(workers)
    try:
        assert errors == []
        final = stores[0].reviewer_history(["hot"])["hot"]
        writes = len(workers) * per_thread
        assert final.count == writes == 400
        assert final.mean == sum(per_thread * (1 + n % 5) for _ in stores for n in range(threads_per_store))
        assert final.m2 == writes and all(b == writes for b in final.bias)
    finally:
        for store in stores:
            store.close()


def test_prune_deletes_the_stage_rows_and_keeps_calibration(store):
    old = result("old").model_copy(update={"created_at": datetime(2020, 1, 1, tzinfo=UTC)})
    store.save(old)
    store.save(result("new"))
    store.update_reviewer_history(["r"], lambda current: {"r": ReviewerHistory(2, 5.0, 1.0, 2, 0.5)})
    assert store.prune_runs(__import__("datetime").timedelta(days=30)) == 1
    assert store.get("old") is None and store.get("new") is not None
    assert store.db.fetchone("SELECT COUNT(*) FROM run_stages WHERE run_id = 'old'")[0] == 0
    assert store.reviewer_history(["r"])["r"].count == 2


def test_stage_rows_of_a_few_kilobytes_stay_in_place_and_longer_ones_still_round_trip(store):
    # Random text: zlib leaves it about as long, so each row's payload is as long as asked.
    def noise(chars: int) -> str:
        return base64.b64encode(os.urandom(chars)).decode()[:chars]

    toast_size = "SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE relname = 'run_stages'"
    mid, long = result("mid", question=noise(3500)), result("long", question=noise(12000))
    store.save(mid)
    if store.backend == "postgresql":
        assert 2500 < max(len(row[0]) for row in store.db.fetchall("SELECT payload FROM run_stages")) < 4000
        assert store.db.fetchone(toast_size)[0] == 0, "a 3 KB row stays in its table's pages"
    store.save(long)
    assert store.get("mid") == mid and store.get("long") == long
    if store.backend == "postgresql":
        assert store.db.fetchone(toast_size)[0] > 0, "a 9 KB row goes out of line"
        # ... as it is: zlib output is not compressed a second time.
        stored, length = store.db.fetchone("SELECT pg_column_size(payload), length(payload) FROM run_stages "
                                           "ORDER BY length(payload) DESC LIMIT 1")
        assert length > 8000 and stored >= length


# -- schema versions and migrations ---------------------------------------------------------------------------

def test_an_empty_database_is_migrated_to_the_current_schema(db_location):
    database = open_database(db_location, migrate=False)
    try:
        assert database.table_names() == [] or "council_schema" not in database.table_names()
    finally:
        database.close()
    store = Store(db_location)
    try:
        assert store.schema_version() == SCHEMA_VERSION
        versions = store.db.fetchall("SELECT version FROM council_schema ORDER BY version")
        assert [v[0] for v in versions] == [m.version for m in MIGRATIONS]
        assert {"runs", "run_stages", "reviewer_stats", "rubrics", "conversations", "eval_samples"} <= set(
            store.db.table_names())
    finally:
        store.close()


def database_at(db_location, version, fill):
    """A database at schema ``version`` (migrations up to it, as an older release left it), then ``fill(session)``."""
    database = open_database(db_location, migrate=False)
    try:
        def older_schema(session):
            for migration in MIGRATIONS[:version]:
                migration.apply(session, database.backend)
            session.execute("CREATE TABLE council_schema (version INTEGER PRIMARY KEY, description TEXT NOT NULL, "
                            "applied_at TEXT NOT NULL)")
            for migration in MIGRATIONS[:version]:
                session.execute("INSERT INTO council_schema VALUES (?, ?, '2026-01-01')",
                                (migration.version, migration.description))
            fill(session)

        database.transaction(older_schema)
    finally:
        database.close()


def test_a_database_of_the_first_schema_upgrades_without_losing_a_run(db_location):
    """Migration 1 alone is the schema release 0.1.0 wrote: its runs, one JSON blob each, read back the same."""
    kept = result("kept", "An old question?")
    database_at(db_location, 1, lambda session: session.execute(
        "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ("kept", kept.created_at.isoformat(), kept.created_at.isoformat(), "complete", "An old question?", None, 0, 0,
         kept.model_dump_json())))
    store = Store(db_location)
    try:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.get("kept") == kept
        assert [r.run_id for r in store.list_runs()] == ["kept"]
    finally:
        store.close()


def test_a_database_of_the_second_schema_keeps_each_runs_stage_order(db_location):
    """Schema 2 numbered stage rows per run; schema 3 by one counter. Rows inserted out of order read back in order."""
    started, finished = result("staged", status="running"), result("staged", status="complete")

    def two_stages_out_of_order(session):
        session.execute("INSERT INTO runs VALUES ('staged', ?, ?, 'complete', 'Why', NULL, 0, 0, NULL)",
                        (started.created_at.isoformat(), started.created_at.isoformat()))
        session.execute("INSERT INTO run_stages VALUES ('staged', 1, 'finished', 'b', ?)",
                        (stage_payload(finished, "finished"),))
        session.execute("INSERT INTO run_stages VALUES ('staged', 0, 'started', 'a', ?)",
                        (stage_payload(started, "started"),))

    database_at(db_location, 2, two_stages_out_of_order)
    store = Store(db_location)
    try:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.get("staged").status == "complete", "the later stage still wins"
        store.save_stage(result("staged", status="interrupted"), "finished")
        assert store.get("staged").status == "interrupted", "a row written after the upgrade comes last"
    finally:
        store.close()


def _schema_8_with_bias(db_location, rows):
    """A database at schema 8, whose reviewers' bias sums were JSON text."""
    def reviewers(session):
        for key, bias in rows:
            session.execute("INSERT INTO reviewer_stats VALUES (?, 3, 6.5, 2.0, 3, 1.0, '2026-11-01', ?)", (key, bias))

    database_at(db_location, 8, reviewers)


def test_bias_sums_stored_as_json_text_upgrade_to_the_same_doubles(db_location):
    """Migration 9 turns each reviewer's JSON bias sums into doubles, bit for bit, whatever their length."""
    sums = (0.1, -2.5e-300, 1e300, 123456.78901234567, 1 / 3) + (0.0,) * 7  # 12 sums, as releases before 15
    _schema_8_with_bias(db_location, [("long", json.dumps(sums)), ("none", "[]"), ("r", json.dumps([4.0] * 15))])
    store = Store(db_location)
    try:
        assert store.schema_version() == SCHEMA_VERSION
        history = store.reviewer_history(["long", "none", "r"])
        assert history["long"] == ReviewerHistory(3, 6.5, 2.0, 3, 1.0, sums)
        assert history["none"].bias == () and history["r"].bias == (4.0,) * 15
        asyncio.run(_fold_one(store, "long"))
        assert store.reviewer_history(["long"])["long"].bias[:5] == tuple(b + 1.0 for b in sums[:5])
    finally:
        store.close()


async def _fold_one(store, key):
    await store.add_to_reviewer_history({key: HistoryIncrement(1, 6.5, 0.0, 0, 0.0, (1.0,) * 15)})


def test_unreadable_bias_sums_stop_the_upgrade_naming_the_reviewer(db_location):
    _schema_8_with_bias(db_location, [("good", "[1.0]"), ("broken", "[1.0, oops")])
    with pytest.raises(StorageError, match=r"reviewer 'broken' has unreadable bias sums"):
        Store(db_location)
    database = open_database(db_location, migrate=False)
    try:
        assert database.fetchone("SELECT MAX(version) FROM council_schema")[0] == 8, "nothing half-applied"
        assert database.fetchone("SELECT bias FROM reviewer_stats WHERE reviewer_key = 'broken'")[0] == "[1.0, oops"
    finally:
        database.close()


def test_a_sqlite_file_of_release_0_1_0_upgrades_in_place(tmp_path):
    """0.1.0 had no schema table: its version was PRAGMA user_version, and conversations came later."""
    path = tmp_path / "old.db"
    kept = result("kept")
    old = sqlite3.connect(path)
    old.executescript("""
        CREATE TABLE runs (run_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
            status TEXT NOT NULL, question TEXT NOT NULL, top_member TEXT, degraded INTEGER NOT NULL,
            simulated INTEGER NOT NULL, result_json TEXT NOT NULL);
        CREATE TABLE reviewer_stats (reviewer_key TEXT PRIMARY KEY, count INTEGER NOT NULL, mean REAL NOT NULL,
            m2 REAL NOT NULL, resid_count INTEGER NOT NULL, resid_m2 REAL NOT NULL, updated_at TEXT NOT NULL,
            bias TEXT NOT NULL DEFAULT '[]');
        PRAGMA user_version = 1;
    """)
    old.execute("INSERT INTO runs VALUES (?, ?, ?, 'complete', 'Why?', NULL, 0, 0, ?)",
                ("kept", kept.created_at.isoformat(), kept.created_at.isoformat(), kept.model_dump_json()))
    old.execute("INSERT INTO reviewer_stats VALUES ('r', 3, 6.5, 2.0, 3, 1.0, '2026-01-01', '[]')")
    old.commit()
    old.close()
    store = Store(path)
    try:
        assert store.get("kept") == kept
        assert store.reviewer_history(["r"])["r"] == ReviewerHistory(3, 6.5, 2.0, 3, 1.0, ())
        assert store.db.fetchone("PRAGMA user_version")[0] == SCHEMA_VERSION, "0.1.0 refuses the upgraded file"
        assert "conversations" in store.db.table_names()
    finally:
        store.close()


def test_a_database_newer_than_this_council_is_refused(db_location):
    Store(db_location).close()
    database = open_database(db_location, migrate=False)
    try:
        database.execute("INSERT INTO council_schema VALUES (99, 'from the future', '2030-01-01')")
    finally:
        database.close()
    newer = rf"schema version 99, newer than this Council understands \({SCHEMA_VERSION}\)"
    with pytest.raises(StorageError, match=newer):
        Store(db_location)


def test_unopenable_path_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StorageError, match="cannot open the run database"):
        Store(blocker / "runs.db")


def test_an_unreachable_postgresql_is_a_clear_error_without_the_password():
    with pytest.raises(StorageError) as caught:
        Store("postgresql://council:s3cret@127.0.0.1:9/council")
    assert "cannot connect to PostgreSQL at postgresql://council:***@127.0.0.1:9/council" in str(caught.value)
    assert "s3cret" not in str(caught.value)


def test_a_corrupt_row_is_reported_not_crashed(store):
    store.save(result("bad"))
    store.db.execute("UPDATE run_stages SET payload = ? WHERE run_id = 'bad'", (b"not zlib",))
    with pytest.raises(StorageError, match=r"run bad .* is unreadable"):
        store.get("bad")


async def test_a_locked_database_does_not_stall_the_event_loop(tmp_path):
    """A slow disk, made real: another connection holds SQLite's write lock while a run wants to write."""
    path = tmp_path / "council.db"
    store = Store(path)
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticking = asyncio.create_task(ticker())
    try:
        async with Council(simulated_without_latency(), store=store) as council:
            kinds: list[str] = []
            asking = asyncio.create_task(council.ask("Why is the sky blue?", on_event=lambda e: kinds.append(e.kind)))
            # Past the reviews the run reads reviewer history, which queues behind its writes, held by the lock.
            await wait_until(lambda: "review" in kinds, what="the run to reach its reviews")
            waiting_since = ticks
            await wait_until(lambda: ticks >= waiting_since + 10, what="the event loop to turn while the write waits")
            assert not asking.done(), "the run waits for the database"
            blocker.execute("COMMIT")
            finished = await asking
        assert finished.stored and store.get(finished.run_id) == finished
    finally:
        ticking.cancel()
        blocker.close()
        store.close()


async def test_a_history_update_that_fails_degrades_the_run_but_keeps_it(tmp_path):
    """The database refuses changes to reviewer history (a trigger): the run is stored and says what it lost."""
    store = Store(tmp_path / "council.db")
    try:
        for event in ("INSERT", "UPDATE"):
            store.db.execute(f"CREATE TRIGGER frozen_{event.lower()} BEFORE {event} ON reviewer_stats "
                             "BEGIN SELECT RAISE(ABORT, 'history is frozen'); END")
        async with Council(simulated_without_latency(), store=store) as council:
            finished = await council.ask("Why is the sky blue?")
        assert finished.status == "complete" and finished.stored and finished.ranking
        assert "reviewer calibration history could not be updated (updating reviewer statistics failed: " \
               "history is frozen)" in finished.degraded_reasons
        assert store.get(finished.run_id) == finished
        assert store.reviewer_history([f"{a.member}|simulated|{a.model}" for a in finished.answers]) == {}
    finally:
        store.close()
