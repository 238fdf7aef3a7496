"""The SQLite store: runs round-trip, listing, calibration history, and clear errors."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import pytest

from council.errors import StorageError
from council.ranking.aggregation import ReviewerHistory
from council.result import CouncilResult, Reproducibility
from council.storage.store import Store
from council.types import ChatMessage


def result(run_id: str, question: str = "Why?", status: str = "complete") -> CouncilResult:
    reproducibility = Reproducibility(config_hash="c", prompt_hashes={}, rubric_id="default", rubric_version="1.0.0",
                                      rubric_hash="r", shuffle_seed=1, aggregation_method="calibrated",
                                      package_version="0")
    return CouncilResult(run_id=run_id, created_at=datetime.now(UTC), status=status,  # type: ignore[arg-type]
                         question=[ChatMessage(role="user", content=question)], reproducibility=reproducibility)


def test_runs_round_trip_and_list_newest_first(tmp_path):
    store = Store(tmp_path / "sub" / "runs.db")
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
    finally:
        store.close()
    reopened = Store(tmp_path / "sub" / "runs.db")
    try:
        assert reopened.get("two") is not None
    finally:
        reopened.close()


def test_reviewer_history_updates_atomically():
    store = Store(":memory:")
    try:
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
    finally:
        store.close()


def test_unopenable_path_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StorageError, match="cannot open the run database"):
        Store(blocker / "runs.db")


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "future.db"
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version=99")
    db.close()
    with pytest.raises(StorageError, match="newer than this Council"):
        Store(path)


def test_a_corrupt_row_is_reported_not_crashed(tmp_path):
    store = Store(tmp_path / "runs.db")
    try:
        store.save(result("bad"))
        store._db.execute("UPDATE runs SET result_json = '{\"run_id\": 3}' WHERE run_id = 'bad'")
        with pytest.raises(StorageError, match=r"run bad .* is unreadable"):
            store.get("bad")
    finally:
        store.close()
